// The CPU population's threads: each member's run on its own worker thread (runLanes.ts
// starts them, as many at once as placement.ts says). Threads beyond the cores are shared
// by the OS, which balances members of unequal cost better than a fixed split would
// (5 equal members on 2 cores: 2.5 runs' time, not 3).
import { Worker } from 'node:worker_threads';
import { freemem } from 'node:os';
import { cpuLimitBytes, MACHINE_SHARE } from './cpuBudget';
import type { RunConfig } from '../config';
import type { MemberChange } from '../rl/population';
import type { WarmStarts } from '../rl/warmStart';
import type { TrainResult } from './trainResult';

/** One member's run: the preset and its overrides (as `setup` takes them), where it writes, its warm start and changes. */
export interface MemberJob {
  preset: string; overrides: Record<string, unknown> & Partial<RunConfig>; out: string;
  warm?: WarmStarts; changes: MemberChange[]; label: string; // no warm: the member makes its own (shipped, or pretrained in its thread)
  engine?: 'cpu' | 'wasm'; // the member's CPU engine: the reference (default) or the WebAssembly SIMD engine
  resume?: boolean; // continues from the state saved in `out` and saves its own (resumeState.ts)
}
export type MemberOutcome = { ok: true; result: TrainResult } | { ok: false; kind: 'fault' | 'input' | 'internal'; message: string };

export const THREAD_BOOT = new URL('./threadBoot.mjs', import.meta.url);

/** Runs `entry` (a module beside this one) in a thread with `job` as its workerData; its one message, or `failed(why)`. */
export function inThread<T>(entry: string, job: unknown, failed: (e: { message: string; stack?: string }) => T): Promise<T> {
  return new Promise((resolve) => {
    const w = new Worker(THREAD_BOOT, { workerData: { entry, job } });
    let got: T | null = null;
    w.on('message', (m: T) => { got = m; });
    w.on('error', (e) => { got ??= failed(e); });
    w.on('exit', (code) => resolve(got ?? failed({ message: `the thread exited with code ${code} before it reported` })));
  });
}

/** One member's run in a thread of its own (memberThread.ts): its outcome, an internal failure when the thread dies. */
export const runThread = (job: MemberJob) => inThread<MemberOutcome>('./memberThread.ts', job, (e) => ({ ok: false, kind: 'internal', message: e.stack ?? e.message }));

/**
 * Memory runs side by side may use: --memory-limit (cpuBudget.ts: refused past the machine's memory), else 3/4 of what
 * the system has available now (a lone run plans against the machine's total; several at once against what is free).
 */
export function memoryLimit(flag: unknown): number {
  if (flag !== undefined) return cpuLimitBytes(flag);
  const avail = typeof process.availableMemory === 'function' ? process.availableMemory() : freemem();
  return Math.floor(avail * MACHINE_SHARE);
}
