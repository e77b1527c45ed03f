// The worker's step loop: steps under the API's lock until a count, a pause, an
// error, divergence or the run's end; a pause ends the step at its next
// minibatch; a lost device is recovered from (by the host) and the step taken again.
// A run is K >= 1 members stepping together: each member's metrics, evals and flags go
// out under its own run id, and each has its own divergence watch (the first to trip
// pauses the run, named).
import { DivergenceWatch } from '../rl/faults';
import { rewardWeights, type RewardWeights } from '../rl/reward';
import type { EvalRecord, StepMetrics } from '../rl/runRecord';
import type { Trainer } from '../rl/trainer';
import type { RunStatus } from './protocol';
import { MAX_RECOVERIES } from './recovery';
import type { TelemetryBatcher } from './telemetry';
import { TaskError } from '../envs/userTask/failure';

/** Progress inside a step is reported once the step has run this long. */
const STEP_PROGRESS_AFTER_MS = 1000;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const yieldToEventLoop = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

/** What the loop needs from the API that owns the run (TrainerApi). */
export interface LoopHost {
  readonly telemetry: TelemetryBatcher;
  /** The run's Trainer now (a recovery replaces it). */
  trainer(): Trainer;
  /** Each member's run id. */
  runIds(): string[];
  status(): RunStatus;
  setStatus(status: RunStatus, message?: string): void;
  /** A task function's failure stopped the run (its message for the status); the host refuses to go on with this task's code. */
  taskFailed(e: TaskError, step: number): string;
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Hyperparameters set since the last step go in before the next. */
  applyPending(t: Trainer): void;
  /** The step count the run trains to, a pending change included (Continue raises it before start). */
  plannedSteps(): number;
  /** The reward weights a step used (the step's anatomy reads them). */
  stepWeights(w: RewardWeights): void;
  runEval(): Promise<EvalRecord[]>;
  sendNewFlags(): void;
  lostDevice(): Promise<boolean>;
  /** A new backend and Trainer after a lost device (called under the lock). */
  recover(cause: unknown): Promise<void>;
}

export interface LoopResult { metrics: StepMetrics[]; error: unknown }

export class RunLoop {
  private current: Promise<LoopResult> | null = null;
  private stopRequested = false;
  private recoveriesInARow = 0;
  /** Each member's watch (a recovery or a new run starts them afresh). */
  private watches: DivergenceWatch[] = [];

  constructor(private readonly host: LoopHost) {}

  get running(): boolean { return this.current !== null; }

  /** A new run (or a recovered one): no divergence streak, no recoveries counted. */
  reset(): void {
    this.watches = [];
    this.recoveriesInARow = 0;
  }

  /** Runs until config.steps (or a pause) in the background. */
  start(): void {
    this.watches = [];
    const loop = this.runSteps(Infinity, true);
    this.current = loop;
    void loop.then(() => { if (this.current === loop) this.current = null; });
  }

  /** Runs `n` steps (fewer on a pause or divergence); rejects with the loop's error. */
  async steps(n: number): Promise<StepMetrics[]> {
    this.watches = [];
    const loop = this.runSteps(n, false);
    this.current = loop;
    try {
      const { metrics, error } = await loop;
      if (error) throw error;
      return metrics;
    } finally {
      if (this.current === loop) this.current = null;
    }
  }

  /** Asks the loop to stop (at the next minibatch) and waits for it. */
  async stop(): Promise<void> {
    const loop = this.current;
    if (!loop) return;
    this.stopRequested = true;
    await loop;
    if (this.current === loop) this.current = null;
  }

  /** Steps until `max` steps, a pause, an error, divergence, or (when `untilDone`) config.steps. */
  private async runSteps(max: number, untilDone: boolean): Promise<LoopResult> {
    const h = this.host, metrics: StepMetrics[] = [];
    this.stopRequested = false;
    h.setStatus('running');
    try {
      for (let i = 0; i < max; i++) {
        if (this.stopRequested) break;
        const t = h.trainer();
        if (untilDone && t.stepCount >= h.plannedSteps()) break;
        try {
          metrics.push(await h.exclusive(() => this.oneStep()));
          this.recoveriesInARow = 0;
        } catch (e) {
          if (!(await h.lostDevice()) || this.recoveriesInARow >= MAX_RECOVERIES) throw e;
          this.recoveriesInARow++;
          await h.exclusive(async () => {
            await h.recover(e);
            this.watches = [];
          });
          i--; // the step is taken again
          continue;
        }
        if (this.tripped() >= 0) break;
        await yieldToEventLoop(); // lets pause, setHyperparams and getState in
      }
      const t = h.trainer(), k = this.tripped();
      if (k >= 0) {
        const who = t.K > 1 ? `member ${k} (${h.runIds()[k]}) diverged: ` : '';
        const message = `paused: ${who}${this.watches[k].streak} consecutive updates were skipped (non-finite loss or gradient); lower ${t.K > 1 ? 'its ' : ''}lr or reset()`;
        t.members[k].flags.push({ kind: 'diverged', step: t.stepCount, message });
        h.sendNewFlags();
        h.setStatus('paused', message);
      } else if (!this.stopRequested && untilDone && t.stepCount >= h.plannedSteps()) {
        if (t.evals[t.evals.length - 1]?.step !== t.stepCount) await h.exclusive(() => h.runEval());
        h.setStatus('idle', `finished ${t.stepCount} steps`);
      } else {
        const partial = t.lastStepUpdates < t.config.minibatches ? ` (its last step made ${t.lastStepUpdates} of ${t.config.minibatches} minibatch updates)` : '';
        h.setStatus('paused', `paused at step ${t.stepCount}${partial}`);
      }
      return { metrics, error: null };
    } catch (e) {
      h.setStatus('error', e instanceof TaskError ? h.taskFailed(e, h.trainer().stepCount + 1) : errorMessage(e));
      return { metrics, error: e };
    } finally {
      h.telemetry.flush();
    }
  }

  /** The first member whose divergence watch tripped (-1: none). */
  private tripped(): number { return this.watches.findIndex((w) => w.tripped); }

  /** One step under the lock: the warm start's eval first, pending hyperparameters, the step, evals at evalEvery; member 0's metrics. */
  private async oneStep(): Promise<StepMetrics> {
    const h = this.host, t = h.trainer();
    if (t.stepCount === 0 && t.evals.length === 0) await h.runEval(); // the warm start's point on the frontier
    h.applyPending(t);
    const before = t.members.map((m) => m.skippedUpdates);
    const weights = rewardWeights(t.config, t.lambdaTok);
    const t0 = performance.now(), runIds = h.runIds(), step = t.stepCount;
    const ms = await t.stepAll({
      // a pause ends the step at its next minibatch (the updates so far are kept), not after all of them
      stopRequested: () => this.stopRequested,
      // progress inside a step, only once it is long (a fast step would flood the port)
      progress: (done, of) => {
        if (performance.now() - t0 > STEP_PROGRESS_AFTER_MS) for (const runId of runIds) h.telemetry.status({ runId, status: h.status(), within: { step, done, of } });
      },
    });
    h.stepWeights(weights);
    ms.forEach((m, k) => h.telemetry.metrics(runIds[k], m));
    h.sendNewFlags();
    const updates = Math.max(1, t.lastStepUpdates);
    t.members.forEach((m, k) => (this.watches[k] ??= new DivergenceWatch()).record(m.skippedUpdates - before[k], updates));
    if (t.stepCount % t.config.evalEvery === 0) await h.runEval();
    return ms[0];
  }
}
