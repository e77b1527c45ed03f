// The sandbox a task's code runs in: QuickJS compiled to WebAssembly (quickjs-emscripten, the
// single-file sync variant: the wasm is inside the JS, so Node, a Vite-built Web Worker and the
// page load it without fetching files). The task gets a fresh JS engine of its own: no fetch,
// storage, DOM, process, require or import (each named one says so when touched), a memory limit
// (the cap on the engine's wasm memory), a stack limit, and a time limit per call enforced twice: by the engine's
// interrupt handler, and by a watchdog outside the engine that ends the engine's thread when a
// call overruns (workerHost.ts). docs/your-task.md argues the design.
//
// Two modes, chosen per thread (`sandboxMode()`):
//   'worker'     the engine in its own thread (a Node worker_thread; a Web Worker where a spawner is
//                registered), waited for with Atomics.wait: nothing the task does outruns the limit.
//   'in-thread'  the engine on this thread, where no thread can be waited for synchronously (a
//                browser page, a worker without SharedArrayBuffer): only the engine's own deadline
//                holds, and a QuickJS built-in that loops in C (Array.prototype.join on
//                { length: 2 ** 53 - 1 }) is not stopped; the thread's tasks share one engine module, so
//                one memory cap (IN_THREAD_TASKS default limits).
import variant from '@jitl/quickjs-singlefile-mjs-release-sync';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { InputError } from '../../contract/errors';
import { loadEngineWasm, MEMORY_BYTES, TaskEngine, type Failure } from './engine.mjs';
import { taskError, TaskError, type Where } from './failure';
import { FAILED, PRELUDE } from './prelude';
import { canWaitHere } from './syncChannel';
import { nodeSpawner, sandboxSpawner, setSandboxSpawner, WatchedEngine, type Outcome } from './workerHost';

export { TaskError, type Where };

/** A call's time limit (ms): a batch of scores or a sampler that takes longer is stopped. */
export const CALL_MS = 2000;
export { MEMORY_BYTES };
/** In-thread, the thread's tasks share one engine module, so one wasm memory: capped at this many tasks' limits. */
export const IN_THREAD_TASKS = 4;
/** QuickJS's stack (bytes): below what the host's stack holds of wasm frames, so deep recursion is QuickJS's clean error. */
export const STACK_BYTES = 128 * 1024;
/** The file name syntax errors and stacks show. */
export const TASK_FILE = 'task.js';

let wasm: QuickJSWASMModule | null = null;
let loading: Promise<unknown> | null = null;

const isNode = typeof process !== 'undefined' && !!process.versions?.node;

/** Loads the sandbox's engine once per thread (and, in Node, the watchdog's thread spawner); every task after that starts in milliseconds. */
export function prepareUserTasks(): Promise<void> {
  loading ??= Promise.all([
    loadEngineWasm(variant, IN_THREAD_TASKS * MEMORY_BYTES).then((m) => (wasm = m)),
    isNode && !sandboxSpawner() ? nodeSpawner().then(setSandboxSpawner) : null,
  ]);
  return loading.then(() => undefined);
}

/** Whether prepareUserTasks has finished (loadUserTask needs it: Environment is synchronous). */
export const userTasksReady = (): boolean => wasm !== null;

/** Where tasks run in this thread: behind the watchdog in a thread of their own, or in this thread (the fallback). */
export function sandboxMode(): 'worker' | 'in-thread' {
  // GSPO_SANDBOX=in-thread: the fallback on purpose (to measure the watchdog's cost against it)
  if (isNode && process.env.GSPO_SANDBOX === 'in-thread') return 'in-thread';
  return sandboxSpawner() && canWaitHere() ? 'worker' : 'in-thread';
}

export interface SandboxLimits { callMs?: number; memoryBytes?: number; mode?: 'worker' | 'in-thread' }

/**
 * One task's engine, in the mode of this thread. After a call stopped by a limit the engine is
 * thrown away and made anew on the next call (QuickJS does not promise a usable heap after one).
 */
export class TaskSandbox {
  readonly callMs: number;
  readonly memoryBytes: number;
  readonly mode: 'worker' | 'in-thread';
  private watched: WatchedEngine | null = null;
  private engine: TaskEngine | null = null;

  constructor(readonly code: string, limits: SandboxLimits = {}) {
    if (!wasm) throw new InputError('the task sandbox is not loaded yet: await prepareUserTasks() before loading a task');
    this.callMs = limits.callMs ?? CALL_MS;
    this.memoryBytes = limits.memoryBytes ?? MEMORY_BYTES;
    this.mode = limits.mode ?? sandboxMode();
    const init = { code, prelude: PRELUDE, callMs: this.callMs, memoryBytes: this.memoryBytes, stackBytes: STACK_BYTES, taskFile: TASK_FILE };
    if (this.mode === 'worker') {
      const spawn = sandboxSpawner();
      if (!spawn) throw new InputError('the sandbox\'s worker mode needs a thread spawner: call prepareUserTasks() in Node, or setSandboxSpawner()');
      this.watched = new WatchedEngine(init, spawn);
    }
    this.open();
  }

  private open(): void {
    const f = this.watched ? this.watched.open() : this.openInThread();
    if (f) { this.close(); throw this.error(f, 'module'); }
  }

  private openInThread(): Failure | null {
    this.engine = new TaskEngine(wasm!, { code: this.code, prelude: PRELUDE, callMs: this.callMs, memoryBytes: this.memoryBytes, stackBytes: STACK_BYTES, taskFile: TASK_FILE });
    return this.engine.load();
  }

  private error(f: Failure, fn: string): TaskError {
    return taskError(f, { callMs: this.callMs, memoryBytes: this.memoryBytes, file: TASK_FILE }, fn);
  }

  /** The engine is gone; the next call makes it anew. */
  close(): void {
    this.watched?.close();
    this.engine?.close(); this.engine = null;
  }

  /** Calls the prelude's entry `name` with `arg` (JSON both ways) within the time limit; `fn` names it if the watchdog stops it. */
  call<T>(name: string, arg: unknown, fn = name === 'describe' ? 'module' : name === 'demos' ? 'demo' : name): T {
    let r: Outcome;
    if (this.watched) r = this.watched.call(name, JSON.stringify(arg), fn);
    else {
      if (!this.engine) { const f = this.openInThread(); if (f) { this.close(); throw this.error(f, 'module'); } }
      r = this.engine!.call(name, JSON.stringify(arg));
      if ('failure' in r && this.engine!.broken) this.close();
    }
    if ('failure' in r) throw this.error(r.failure, fn);
    return parseReply(r.text, fn) as T;
  }
}

/** Deepest nesting a reply may have: deeper values would overflow the host's own recursion (JSON.stringify, messages). */
export const REPLY_DEPTH = 64;

/** A reply's JSON, refused when nested past REPLY_DEPTH (one scan: a reply is a few kB). */
function parseReply(text: string, fn: string): unknown {
  if (text.charCodeAt(0) === FAILED.charCodeAt(0)) throw new TaskError(`${fn}: a malformed reply`, { fn, item: -1 }, 'internal');
  let depth = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) { if (c === 92) i++; else if (c === 34) inString = false; } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) { if (++depth > REPLY_DEPTH) throw new TaskError(`${fn} returned a value nested more than ${REPLY_DEPTH} deep: a task and its views are plain, shallow data`, { fn, item: -1 }, 'size'); } else if (c === 93 || c === 125) depth--;
  }
  return JSON.parse(text);
}
