// The page's one current run: a population of K >= 1 members. A population is the
// setup's `population` trained as a sweep in lane workers (sweepPopulation.ts); a lone
// run (K = 1) trains in the main worker. Whichever it is, the page reads one lifecycle,
// one step and one chosen member from here, so the status line, the run buttons, the
// slider, the task card and the inspector all speak of the same run.
import type { RunStatus as WorkerStatus } from '../worker/protocol';
import type { SweepRecord } from './sweepRecord';

/** idle: not started; training; paused (by the person, or by a reload); finished its step count; stopped by a fault. */
export type Lifecycle = 'idle' | 'training' | 'paused' | 'finished' | 'stopped';

export interface CurrentRunInput {
  preset: string;
  population: number[] | null;
  sweep: SweepRecord | null;
  sweepSelected: string | null;
  status: WorkerStatus;
  message: string | null;
}

/** The sweep record when it is the current run: the setup is a population of its preset and values. */
export function populationRun(s: Pick<CurrentRunInput, 'preset' | 'population' | 'sweep'>): SweepRecord | null {
  const { sweep, population, preset } = s;
  if (!sweep || !population) return null;
  if (sweep.status === 'running') return sweep; // a training population is the current run whatever the setup shows (Pause must reach it)
  return sweep.preset === preset && sweep.runs.length === population.length && sweep.runs.every((r, i) => r.value === population[i]) ? sweep : null;
}

/** The lifecycle of a population (its sweep record) or of the lone run (the worker's status; stepsTaken from telemetry). */
export function lifecycleOf(s: CurrentRunInput, stepsTaken: number): Lifecycle {
  const pop = populationRun(s);
  if (s.population) {
    if (!pop) return 'idle';
    switch (pop.status) {
      case 'running': return 'training';
      case 'done': return 'finished';
      case 'interrupted': return 'paused';
      case 'stopped': return pop.message === null || pop.message === STOPPED_BY_YOU || pop.message === 'stopped by you' ? 'paused' : 'stopped';
    }
  }
  switch (s.status) {
    case 'running': return 'training';
    case 'paused': return 'paused';
    case 'error': return 'stopped';
    case 'idle': return s.message?.startsWith('finished') ? 'finished' : stepsTaken > 0 ? 'paused' : 'idle';
  }
}

/** The message a sweep paused by the person carries. */
export const STOPPED_BY_YOU = 'paused by you';

/**
 * The member the page shows and the slider moves: the one the person chose (a trail, its legend entry or a member
 * chip), kept until they choose another; else the first member with a run. Hovering never changes it.
 */
export function chosenMember(s: CurrentRunInput): { runId: string; label: string } | null {
  const pop = populationRun(s);
  const runs = (pop?.runs ?? []).filter((r) => r.runId !== null);
  const run = runs.find((r) => r.runId === s.sweepSelected) ?? runs[0];
  return run ? { runId: run.runId!, label: run.label } : null;
}

/** "λ=0.1" for a member's label "lambda_tok=0.1" (the short words the slider and panels use). */
export const shortLabel = (label: string): string => label.replace(/^lambda_tok=/, 'λ=').replace(/^budget=/, 'B=');

/** A run's lambda_tok setting now: its last live change, else its config (not the last step's value, which lags a change by a step). */
export function lambdaSetting(m: { config: { lambdaTok: number }; changes?: readonly { field: string; value: unknown }[] }): number {
  const c = [...(m.changes ?? [])].reverse().find((x) => x.field === 'lambdaTok');
  return c ? Number(c.value) : m.config.lambdaTok;
}
