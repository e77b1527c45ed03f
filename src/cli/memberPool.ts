// The CPU population of the CLI: each member's run on its own worker thread, at
// most `atOnce` at a time (the next starts when one ends). Threads beyond the cores
// are shared by the OS, which balances members of unequal cost better than a fixed
// split would (5 equal members on 2 cores: 2.5 runs' time, not 3).
import { Worker } from 'node:worker_threads';
import type { RunConfig } from '../config';
import { inLanes, type MemberChange } from '../rl/population';
import type { WarmStarts } from '../rl/warmStart';
import type { TrainResult } from './commands/train';

/** One member's run: the preset and its overrides (as `setup` takes them), where it writes, its warm start and changes. */
export interface MemberJob {
  preset: string; overrides: Record<string, unknown> & Partial<RunConfig>; out: string;
  warm?: WarmStarts; changes: MemberChange[]; label: string; // no warm: the member makes its own (shipped, or pretrained in its thread)
}
export type MemberOutcome = { ok: true; result: TrainResult } | { ok: false; kind: 'fault' | 'input' | 'internal'; message: string };

export const THREAD_BOOT = new URL('./threadBoot.mjs', import.meta.url);

function runThread(job: MemberJob): Promise<MemberOutcome> {
  return new Promise((resolve) => {
    const w = new Worker(THREAD_BOOT, { workerData: { entry: './memberThread.ts', job } });
    let got: MemberOutcome | null = null;
    w.on('message', (m: MemberOutcome) => { got = m; });
    w.on('error', (e) => { got ??= { ok: false, kind: 'internal', message: e.stack ?? e.message }; });
    w.on('exit', (code) => resolve(got ?? { ok: false, kind: 'internal', message: `the member's thread exited with code ${code} before it reported` }));
  });
}

/** Every job's outcome, in the jobs' order; `onDone` as each ends. */
export async function runMembers(jobs: MemberJob[], atOnce: number, onDone?: (i: number, o: MemberOutcome) => void): Promise<MemberOutcome[]> {
  const out: MemberOutcome[] = new Array(jobs.length);
  await inLanes(jobs.length, atOnce, async (i) => {
    out[i] = await runThread(jobs[i]);
    onDone?.(i, out[i]);
  });
  return out;
}
