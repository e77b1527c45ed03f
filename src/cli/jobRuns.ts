// The one rule for the jobs of several runs (sweep, study, robustness, compare): a run that did not finish
// (a training fault, a file it could not write, a thread that died) is a failed run, never a stop of the
// others. The job writes what finished (its result file lists `failed`: each run's label and why, on one
// line), then exits RUNS_FAILED_EXIT with one line naming every failed run and where the rest is.
import { clip, InputError, RunFault } from '../contract/errors';
import { isFsError, writeFailed } from './fsErrors';
import type { MemberOutcome } from './memberPool';

/** The exit code of a job in which any run failed (bad input is 2, before anything runs). */
export const RUNS_FAILED_EXIT = 1;

export interface FailedRun { label: string; message: string }

/** Why a run stopped, on one line (a thread's stack is cut to its first line). */
export const oneLine = (message: string): string => clip(message.split('\n')[0].trim(), 300);

/** The failed runs among `outcomes` (labels in the same order), in the runs' order. */
export function failedRuns(labels: readonly string[], outcomes: readonly MemberOutcome[]): FailedRun[] {
  return outcomes.flatMap((o, i) => (o.ok ? [] : [{ label: labels[i], message: oneLine(o.message) }]));
}

/** The job's fault when any run failed: one line naming each failed run (and why) and where the finished ones are. */
export function runsFailed(command: string, total: number, failed: readonly FailedRun[], kept: string): RunFault | null {
  if (failed.length === 0) return null;
  const names = failed.map((f) => `${f.label} (${clip(f.message, 160)})`).join('; ');
  const rest = failed.length === total ? `none finished; ${kept} lists them` : `the ${total - failed.length} that finished are in ${kept}`;
  return new RunFault(`${command}: ${failed.length} of ${total} runs failed: ${names}; ${rest}`);
}

/** Throws runsFailed's fault (exit RUNS_FAILED_EXIT) when any run failed; call it after the job's file is written. */
export function checkRuns(command: string, total: number, failed: readonly FailedRun[], kept: string): void {
  const fault = runsFailed(command, total, failed, kept);
  if (fault) throw fault;
}

/** What a run that threw is as an outcome: a fault, bad input, a file-system error in words (said once), or internal. */
export function failure(e: unknown): Extract<MemberOutcome, { ok: false }> {
  if (e instanceof RunFault) return { ok: false, kind: 'fault', message: e.message };
  if (e instanceof InputError) return { ok: false, kind: 'input', message: e.message };
  if (isFsError(e)) return { ok: false, kind: 'input', message: writeFailed(e as NodeJS.ErrnoException) };
  return { ok: false, kind: 'internal', message: e instanceof Error ? e.stack ?? e.message : String(e) };
}
