// A run's resume state in its own folder, so a long job (sweep, ...) killed mid-way continues where it was:
// the state the page keeps for Resume (src/worker/protocol.ts ResumeState: the Trainer's step counter, evals,
// best eval, dual lambda, flags, skipped updates, AdamW's moments and counter, the KL reference) with the
// last and best weights, saved at every eval and at most every RESUME_EVERY_MS between them, in one file
// written atomically (resume.safetensors: the tensors, and the counters as JSON in its metadata; resume.json
// beside it says the step for people and the Ctrl-C line). A finished run leaves result.json (its summary and
// step history, what the job file is built from) and no resume state. On the CPU engine a run resumed from
// its state ends bit for bit where the uninterrupted run ends (same weights, evals, checkpoints).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../contract/errors';
import { parseSafetensors, serializeSafetensors } from '../model/safetensors';
import type { RunConfig } from '../config';
import type { EvalRecord, Flag } from '../rl/runRecord';
import type { StepPoint } from '../rl/dualStatic';
import type { Trainer } from '../rl/trainer';
import { writeAllAtomic } from './io';
import type { TrainResult } from './trainResult';

export const RESUME_FILE = 'resume.safetensors';
export const RESUME_NOTE = 'resume.json';
export const RESULT_FILE = 'result.json';
/** Files a resumable run writes in its folder besides train's (outputTree.ts checks them too). */
export const RESUME_MEMBER_FILES: readonly string[] = [RESUME_FILE, RESUME_NOTE, RESULT_FILE];

/** Between evals, a run's state is saved at most this often (ms); GSPO_RESUME_EVERY_MS changes it (tests). */
export function resumeEveryMs(env: Record<string, string | undefined> = process.env): number {
  const v = Number(env.GSPO_RESUME_EVERY_MS);
  return Number.isFinite(v) && v >= 0 ? v : 10_000;
}

// NaN and the infinities survive JSON as {"$f": "NaN"} (an eval's extras may be NaN; JSON would make it null)
const enc = (_k: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $f: String(v) } : v);
const dec = (_k: string, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $f?: unknown }).$f === 'string' ? Number((v as { $f: string }).$f) : v);
export const exactJson = (x: unknown): string => JSON.stringify(x, enc);
export const parseExact = (s: string): unknown => JSON.parse(s, dec);

/** What a saved state holds besides the tensors. */
export interface SavedCounters {
  version: 1; preset: string; planned: RunConfig; step: number; config: RunConfig;
  evals: EvalRecord[]; bestEval: EvalRecord | null; lambdaTok: number; flags: Flag[]; skippedUpdates: number;
  optimizerStep: number; hasReference: boolean; history: StepPoint[];
}
export interface SavedRun { counters: SavedCounters; weights: Float32Array; best: Float32Array; m: Float32Array; v: Float32Array; reference: Float32Array | null }

/** The fields in which two configs differ (a run's saved config against the one asked for now). */
export function differingFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}
const showFields = (a: Record<string, unknown>, b: Record<string, unknown>, keys: string[]) =>
  keys.slice(0, 8).map((k) => `${k} (${a[k] === undefined ? 'unset' : JSON.stringify(a[k])} then, ${b[k] === undefined ? 'unset' : JSON.stringify(b[k])} now)`).join(', ') + (keys.length > 8 ? `, and ${keys.length - 8} more` : '');

/** Member k's state now (after its step and eval), saved into `dir` in one atomic write. */
export async function saveResume(dir: string, trainer: Trainer, k: number, preset: string, planned: RunConfig, history: StepPoint[]): Promise<void> {
  const snap = await trainer.snapshot({ optimizer: true, member: k });
  const best = await trainer.readWeights('best', k);
  const n = snap.weights.length, opt = snap.optimizer!;
  const counters: SavedCounters = {
    version: 1, preset, planned, step: snap.step, config: snap.config, evals: snap.evals, bestEval: snap.bestEval, lambdaTok: snap.lambdaTok,
    flags: snap.flags, skippedUpdates: snap.skippedUpdates, optimizerStep: opt.step, hasReference: !!snap.reference, history,
  };
  const tensors: Array<[string, { shape: number[]; data: Float32Array }]> = [
    ['weights', { shape: [n], data: snap.weights }], ['best', { shape: [n], data: best }],
    ['adam_m', { shape: [n], data: opt.m }], ['adam_v', { shape: [n], data: opt.v }],
    ...(snap.reference ? [['reference', { shape: [n], data: snap.reference }] as [string, { shape: number[]; data: Float32Array }]] : []),
  ];
  const bytes = serializeSafetensors(tensors, { gspo_resume: exactJson(counters) });
  const note = { step: snap.step, of: planned.steps, evals: snap.evals.length, savedAt: new Date().toISOString(), state: RESUME_FILE };
  writeAllAtomic([{ path: join(dir, RESUME_FILE), data: bytes }, { path: join(dir, RESUME_NOTE), data: JSON.stringify(note) + '\n' }]);
}

/** Temp folders a killed atomic write left in `dir` (io.ts writeAllAtomic names them .<file>.tmp-XXXXXX). */
export function removeStaleTemps(dir: string): void {
  let names: string[];
  try { names = readdirSync(dir); } catch { return; }
  for (const n of names) if (/^\..+\.tmp-[A-Za-z0-9]{6}$/.test(n)) rmSync(join(dir, n), { recursive: true, force: true });
}

/**
 * The state saved in `dir` for a run of `planned` (null: none). A state of another setting is refused naming the
 * fields (the job's own check says it first); a state that cannot be read (cut short, another version) is said and
 * the run starts over.
 */
export function loadResume(dir: string, preset: string, planned: RunConfig, say: (m: string) => void): SavedRun | null {
  const path = join(dir, RESUME_FILE);
  if (!existsSync(path)) return null;
  let counters: SavedCounters, t: Map<string, { data: Float32Array }>;
  try {
    const p = parseSafetensors(readFileSync(path), { maxHeaderBytes: 256 << 20 });
    counters = parseExact(p.metadata.gspo_resume) as SavedCounters;
    t = p.tensors;
    if (counters?.version !== 1 || !t.has('weights') || !t.has('best') || !t.has('adam_m') || !t.has('adam_v')) throw new Error('not a resume state of this version');
  } catch (e) {
    say(`the resume state in ${path} cannot be read (${e instanceof Error ? e.message : String(e)}); the run starts over`);
    return null;
  }
  const diff = differingFields(counters.planned as unknown as Record<string, unknown>, planned as unknown as Record<string, unknown>);
  if (counters.preset !== preset || diff.length) {
    throw new InputError(`${dir} holds a run of another setting: ${counters.preset !== preset ? `preset (${counters.preset} then, ${preset} now)` : showFields(counters.planned as never, planned as never, diff)}; run it with the same settings to continue it, or --fresh to start anew`);
  }
  const f32 = (name: string) => Float32Array.from(t.get(name)!.data);
  return { counters, weights: f32('weights'), best: f32('best'), m: f32('adam_m'), v: f32('adam_v'), reference: t.has('reference') ? f32('reference') : null };
}

/** Restores a saved state into a lone run's Trainer (built from the saved best weights). */
export function restoreInto(trainer: Trainer, saved: SavedRun): void {
  const c = saved.counters;
  trainer.restore({
    step: c.step, config: c.config, weights: saved.weights, evals: c.evals, bestEval: c.bestEval, lambdaTok: c.lambdaTok, flags: c.flags,
    skippedUpdates: c.skippedUpdates, optimizer: { m: saved.m, v: saved.v, step: c.optimizerStep }, ...(saved.reference ? { reference: saved.reference } : {}),
  });
}

interface SavedResult { version: 1; preset: string; planned: RunConfig; result: TrainResult }

/** A finished run's result, kept in its folder (the job file is rebuilt from it when the job runs again). */
export function saveResult(dir: string, preset: string, planned: RunConfig, result: TrainResult): void {
  writeAllAtomic([{ path: join(dir, RESULT_FILE), data: exactJson({ version: 1, preset, planned, result } satisfies SavedResult) + '\n' }]);
  rmSync(join(dir, RESUME_FILE), { force: true });
  rmSync(join(dir, RESUME_NOTE), { force: true });
}

/** The result of a run of `planned` that finished in `dir` (null: none, or not readable). Another setting's is refused. */
export function finishedResult(dir: string, preset: string, planned: RunConfig): TrainResult | null {
  const path = join(dir, RESULT_FILE);
  if (!existsSync(path)) return null;
  let saved: SavedResult;
  try { saved = parseExact(readFileSync(path, 'utf8')) as SavedResult; } catch { return null; }
  if (saved?.version !== 1 || !saved.result?.summary) return null;
  const diff = differingFields(saved.planned as unknown as Record<string, unknown>, planned as unknown as Record<string, unknown>);
  if (saved.preset !== preset || diff.length) {
    throw new InputError(`${dir} holds a finished run of another setting: ${saved.preset !== preset ? `preset (${saved.preset} then, ${preset} now)` : showFields(saved.planned as never, planned as never, diff)}; run it with the same settings, or --fresh to start anew`);
  }
  return saved.result;
}

/** The step a run's saved state is at, from resume.json (null: none). */
export function savedStep(dir: string): { step: number; of: number } | null {
  try {
    const n = JSON.parse(readFileSync(join(dir, RESUME_NOTE), 'utf8')) as { step: number; of: number };
    return Number.isInteger(n.step) ? { step: n.step, of: n.of } : null;
  } catch { return null; }
}
