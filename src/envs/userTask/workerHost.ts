// The watchdog (docs/your-task.md "The sandbox"): a task's engine in a thread of its own, each call
// waited for with a hard wall-clock limit from outside the engine. A call that overruns it (a
// QuickJS built-in looping in C, which polls no interrupt) ends the thread; the next call starts a
// fresh one. Node: a worker_thread, started synchronously (the wait below does not stop it from
// starting). A browser would start a Web Worker of sandboxWorker.mjs through setSandboxSpawner.
import { SyncChannel } from './syncChannel';
import type { Failure } from './engine.mjs';

/** What the sandbox thread needs: the channel's memory, the task's code, the prelude and the limits. */
export interface SpawnInit {
  control: SharedArrayBuffer; data: SharedArrayBuffer;
  code: string; prelude: string; callMs: number; memoryBytes: number; stackBytes: number; taskFile: string;
}

/** Starts a sandbox thread; returns how to end it. */
export type Spawner = (init: SpawnInit) => { terminate(): void };

/** A fresh thread's time to start (load and compile its engine) before the first call's limit counts (ms). */
export const START_MS = 20_000;
/** How far past a call's own deadline (the engine's interrupt) the watchdog waits before it ends the thread. */
export const graceMs = (callMs: number): number => Math.max(250, callMs / 4);
/** After this long in one call, SIGINT and SIGTERM get their default action (end the process) until it returns. */
export const SIGNALS_AFTER_MS = 100;

let spawner: Spawner | null = null;

/** The spawner this thread uses (the page's worker would register a Web Worker's). */
export function setSandboxSpawner(s: Spawner | null): void { spawner = s; }
export const sandboxSpawner = (): Spawner | null => spawner;

/** Node: a worker_thread running sandboxWorker.mjs (plain JavaScript: no TypeScript loader to start). */
export async function nodeSpawner(): Promise<Spawner> {
  const { Worker } = await import(/* @vite-ignore */ 'node:' + 'worker_threads') as typeof import('node:worker_threads');
  const url = new URL('./sandboxWorker.mjs', import.meta.url);
  return (init) => {
    const w = new Worker(url, { workerData: init, resourceLimits: { stackSizeMb: 4 } });
    w.unref(); // a task's thread never keeps the process alive
    w.on('error', () => { /* a thread that died is replaced on the next call */ });
    return { terminate: () => void w.terminate() };
  };
}

/** A call's outcome: the reply's JSON text, or a failure (the watchdog's own: cause 'time'). */
export type Outcome = { text: string } | { failure: Failure };

/**
 * Lets SIGINT and SIGTERM end the process while this thread is blocked in a long call: their
 * JavaScript handlers could not run until it returns. Returns how to put the handlers back.
 */
function signalsToDefault(): () => void {
  if (typeof process === 'undefined' || typeof process.listeners !== 'function') return () => {};
  const saved = (['SIGINT', 'SIGTERM'] as const).map((sig) => [sig, process.listeners(sig)] as const);
  for (const [sig] of saved) process.removeAllListeners(sig);
  return () => { for (const [sig, ls] of saved) for (const l of ls) process.on(sig, l as NodeJS.SignalsListener); };
}

/** One task's engine in its own thread, behind the watchdog. */
export class WatchedEngine {
  private channel: SyncChannel | null = null;
  private thread: { terminate(): void } | null = null;

  constructor(private readonly init: Omit<SpawnInit, 'control' | 'data'>, private readonly spawn: Spawner) {}

  /** Ends the thread (its engine goes with it: nothing to free). */
  close(): void {
    this.thread?.terminate();
    this.thread = null; this.channel = null;
  }

  /** Starts a thread and loads the task in it: null, or the load's failure. */
  open(): Failure | null {
    this.close();
    const channel = new SyncChannel();
    this.channel = channel;
    this.thread = this.spawn({ ...this.init, control: channel.control, data: channel.data });
    const r = this.request('load', '', 'module');
    return 'failure' in r ? r.failure : null;
  }

  /** A call into the engine; on a limit or an overrun the thread is ended (the next call starts another). */
  call(name: string, arg: string, fn: string): Outcome {
    if (!this.channel) {
      const f = this.open();
      if (f) { this.close(); return { failure: f }; }
    }
    return this.request(name, arg, fn);
  }

  private request(name: string, arg: string, fn: string): Outcome {
    const channel = this.channel!;
    const t0 = performance.now();
    let readyAt = channel.ready ? t0 : -1;
    channel.send(name, arg);
    const limit = this.init.callMs + graceMs(this.init.callMs);
    let restore: (() => void) | null = null;
    let text: string | null;
    try {
      text = channel.receive(() => {
        if (readyAt < 0 && channel.ready) readyAt = performance.now();
        return readyAt < 0 ? t0 + START_MS : readyAt + limit;
      }, (waited) => { if (!restore && waited >= SIGNALS_AFTER_MS) restore = signalsToDefault(); });
    } finally { (restore as (() => void) | null)?.(); }
    if (text === null) {
      this.close();
      return { failure: { cause: readyAt < 0 ? 'internal' : 'time', fn, item: -1, name: 'Error', message: readyAt < 0 ? `the sandbox's thread did not start within ${START_MS} ms` : '' } };
    }
    if (text[0] === 'T') return { text: text.slice(1) };
    const failure = JSON.parse(text.slice(1)) as Failure;
    if (['time', 'memory', 'stack', 'internal'].includes(failure.cause)) this.close(); // its engine is spent
    return { failure };
  }
}
