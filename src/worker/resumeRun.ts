// Resume after a page reload: the stored state beside a run's last checkpoint,
// checked before anything changes. Counters that do not read refuse the resume
// (an InputError naming the field; the stored run is untouched); an optimizer
// state that does not fit is dropped with a notice, and the run goes on from
// its weights with AdamW restarted, as for runs stored before it was kept.
import { InputError, quote } from '../contract/errors';
import type { AdamWState } from '../model/optimizer';
import { betterEval } from '../rl/pareto';
import type { EvalRecord, TrainerSnapshot } from '../rl/runRecord';
import { evals as evalList, flags as flagList, LAMBDA_TOK_MAX, RunFileError, step as stepCount, finite } from '../rl/recordSchema';
import type { ResumeState } from './protocol';

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const own = (o: Record<string, unknown>, k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
const bad = (why: string): never => { throw new InputError(`resume: the stored run state ${why}`); };

/** The run-file schema (runSchema.ts) for the counters, evals and flags, its errors as this resume's. */
function checked<T>(read: () => T): T {
  try { return read(); } catch (e) { if (e instanceof RunFileError) bad(e.message); throw e; }
}

/** Why an optimizer state does not fit a model of `n` parameters (null: it fits). */
export function optimizerProblem(x: unknown, n: number): string | null {
  if (!isObject(x)) return 'is not an object';
  const m = own(x, 'm'), v = own(x, 'v'), step = own(x, 'step');
  if (!(m instanceof Float32Array) || !(v instanceof Float32Array)) return 'has no Float32Array moments m and v';
  if (m.length !== n || v.length !== n) return `has ${m.length} / ${v.length} moments; the model has ${n} parameters`;
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) return `has update counter ${quote(step)}, not a whole number`;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(m[i])) return `has a non-finite first moment at index ${i}`;
    if (!Number.isFinite(v[i]) || v[i] < 0) return `has a ${Number.isFinite(v[i]) ? 'negative' : 'non-finite'} second moment at index ${i}`;
  }
  return null;
}

export interface CheckedResume {
  /** The counters and (when it fits) the optimizer, at the checkpoint's step; weights go in from the checkpoint. */
  snapshot: Omit<TrainerSnapshot, 'weights'>;
  /** Set when AdamW restarts: why (none stored, or what was wrong with it). */
  optimizerNotice: string | null;
}

/**
 * The stored state, checked against the last checkpoint: `step` is the checkpoint's (null when it
 * records none), `numParams` the model's, `config` the checkpoint's run config (what the run goes on with).
 */
export function checkResumeState(state: ResumeState | null, ck: { step: number | null; numParams: number; config: TrainerSnapshot['config'] }): CheckedResume {
  if (state === null) {
    if (ck.step === null) bad('is missing, and the checkpoint does not record its step');
    return {
      snapshot: { step: ck.step!, config: ck.config, evals: [], bestEval: null, lambdaTok: ck.config.lambdaTok, flags: [], skippedUpdates: 0 },
      optimizerNotice: 'no optimizer state was stored with this run',
    };
  }
  if (!isObject(state)) return bad('is not an object');
  const s = state as unknown as Record<string, unknown>;
  const stateStep = checked(() => stepCount(own(s, 'step'), 'step'));
  const step = ck.step ?? stateStep;
  // evals and flags after the checkpoint (a run that went on past its last stored checkpoint) are dropped: the run redoes them
  const evals = checked(() => evalList(own(s, 'evals') ?? [], 'evals')).filter((e) => e.step <= step);
  let bestEval: EvalRecord | null = null;
  for (const e of evals) if (betterEval(e, bestEval)) bestEval = e;
  const flags = checked(() => flagList(own(s, 'flags') ?? [], 'flags')).filter((f) => f.step <= step);
  const lambdaTok = checked(() => finite(own(s, 'lambdaTok') ?? ck.config.lambdaTok, 'lambdaTok', 0, LAMBDA_TOK_MAX));
  const skippedUpdates = checked(() => stepCount(own(s, 'skippedUpdates') ?? 0, 'skippedUpdates'));

  const snapshot: Omit<TrainerSnapshot, 'weights'> = { step, config: ck.config, evals, bestEval, lambdaTok, flags, skippedUpdates };
  const opt = own(s, 'optimizer');
  let optimizerNotice: string | null = null;
  if (opt === undefined) optimizerNotice = 'no optimizer state was stored with this run';
  else if (stateStep !== step) optimizerNotice = `the stored optimizer state is of step ${stateStep}, the last checkpoint of step ${step}`;
  else {
    const problem = optimizerProblem(opt, ck.numParams);
    if (problem) optimizerNotice = `the stored optimizer state ${problem}`;
    else snapshot.optimizer = opt as AdamWState;
  }
  const ref = own(s, 'reference');
  if (snapshot.optimizer && ref !== undefined) {
    if (ref instanceof Float32Array && ref.length === ck.numParams && ref.every(Number.isFinite)) snapshot.reference = ref;
    else optimizerNotice = 'the stored KL reference weights do not fit the model';
  }
  if (optimizerNotice && snapshot.optimizer) delete snapshot.optimizer;
  return { snapshot, optimizerNotice };
}
