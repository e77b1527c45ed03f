// The sandbox a task's code runs in: QuickJS compiled to WebAssembly (quickjs-emscripten, the
// single-file sync variant: the wasm is inside the JS, so Node, a Vite-built Web Worker and the
// page load it without fetching files). The task gets a fresh JS engine of its own: no fetch,
// storage, DOM, process, require or import (each named one says so when touched), a memory limit
// for the whole runtime and a time limit per call (an interrupt handler with a deadline).
//
// Why QuickJS and not an iframe or a worker: Environment is synchronous (the Trainer calls
// sampleTasks, score... inline), QuickJS's sync API answers inline, and the same code runs in
// Node (the CLI) and in the browser; an opaque-origin iframe answers only by postMessage
// (asynchronous) and does not exist in Node. docs/your-task.md argues it in full.
import variant from '@jitl/quickjs-singlefile-mjs-release-sync';
import { newQuickJSWASMModuleFromVariant, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { clip, InputError } from '../../errors';
import { PRELUDE } from './prelude';

/** A call's time limit (ms): a batch of scores or a sampler that takes longer is stopped. */
export const CALL_MS = 2000;
/** The runtime's memory limit (bytes): everything the task's code allocates, the engine's own included. */
export const MEMORY_BYTES = 64 * 2 ** 20;
/** The file name syntax errors and stacks show. */
export const TASK_FILE = 'task.js';

let wasm: QuickJSWASMModule | null = null;
let loading: Promise<QuickJSWASMModule> | null = null;

/** Loads the sandbox's engine once per thread (about a second: the wasm is compiled); every task after that starts in milliseconds. */
export function prepareUserTasks(): Promise<void> {
  loading ??= newQuickJSWASMModuleFromVariant(variant).then((m) => (wasm = m));
  return loading.then(() => undefined);
}

/** Whether prepareUserTasks has finished (loadUserTask needs it: Environment is synchronous). */
export const userTasksReady = (): boolean => wasm !== null;

export interface SandboxLimits { callMs?: number; memoryBytes?: number }

/** Where a failed call was: the task function and the item of the batch (-1: none). */
export interface Where { fn: string; item: number }

/** A task function's failure: the message names the function; `where` says which item of the batch. */
export class TaskError extends InputError {
  override name = 'TaskError';
  constructor(message: string, readonly where: Where) { super(message); }
}

/** A line number from a QuickJS error's stack ("at f (task.js:12:5)"), or null. */
function lineOf(e: Record<string, unknown>): number | null {
  if (typeof e.lineNumber === 'number' && e.fileName === TASK_FILE) return e.lineNumber;
  const m = typeof e.stack === 'string' ? new RegExp(`${TASK_FILE.replace('.', '\\.')}:(\\d+)`).exec(e.stack) : null;
  return m ? Number(m[1]) : null;
}

/**
 * One task's engine: a QuickJS runtime and context with the prelude and the task's module. After a
 * call stopped from outside (time, memory) the engine is thrown away and made anew on the next call:
 * QuickJS does not promise a usable heap after an out-of-memory.
 */
export class TaskSandbox {
  private rt: QuickJSRuntime | null = null;
  private ctx: QuickJSContext | null = null;
  private callFn: QuickJSHandle | null = null;
  private deadline = Infinity;
  readonly callMs: number;
  readonly memoryBytes: number;

  constructor(readonly code: string, limits: SandboxLimits = {}) {
    this.callMs = limits.callMs ?? CALL_MS;
    this.memoryBytes = limits.memoryBytes ?? MEMORY_BYTES;
    this.open();
  }

  private open(): void {
    if (!wasm) throw new InputError('the task sandbox is not loaded yet: await prepareUserTasks() before loading a task');
    const rt = wasm.newRuntime();
    rt.setMemoryLimit(this.memoryBytes);
    rt.setMaxStackSize(1024 * 1024);
    rt.setInterruptHandler(() => performance.now() > this.deadline);
    rt.setModuleLoader((name) => { throw new Error(`import of ${JSON.stringify(name)}: import is not available in a task (a task is one module with no imports)`); });
    const ctx = rt.newContext();
    this.rt = rt; this.ctx = ctx;
    try {
      this.evalOrThrow(PRELUDE, 'prelude.js', 'global', 'the prelude');
      this.deadline = performance.now() + this.callMs;
      const r = ctx.evalCode(this.code, TASK_FILE, { type: 'module' });
      this.deadline = Infinity;
      if (r.error) throw this.failure(r.error, { fn: 'module', item: -1 }, 'module');
      const def = ctx.getProp(r.value, 'default');
      r.value.dispose();
      if (ctx.typeof(def) === 'undefined') {
        def.dispose();
        throw new TaskError('the module has no `export default { ... }`: a task is one module whose default export declares it (docs/your-task.md)', { fn: 'module', item: -1 });
      }
      ctx.setProp(ctx.global, '__task', def);
      def.dispose();
      this.callFn = ctx.getProp(ctx.global, '__call');
    } catch (e) {
      this.close();
      throw e;
    }
  }

  private evalOrThrow(code: string, file: string, type: 'global' | 'module', what: string): void {
    const r = this.ctx!.evalCode(code, file, { type });
    if (r.error) throw this.failure(r.error, { fn: 'module', item: -1 }, what);
    r.value.dispose();
  }

  /** The engine is gone (disposed); the next call makes it anew. */
  close(): void {
    this.callFn?.dispose(); this.callFn = null;
    this.ctx?.dispose(); this.ctx = null;
    this.rt?.dispose(); this.rt = null;
  }

  /** Calls the prelude's entry `name` with `arg` (JSON both ways) within the time limit. */
  call<T>(name: string, arg: unknown): T {
    if (!this.ctx) this.open();
    const ctx = this.ctx!;
    const nameH = ctx.newString(name), argH = ctx.newString(JSON.stringify(arg));
    this.deadline = performance.now() + this.callMs;
    let r;
    try {
      r = ctx.callFunction(this.callFn!, ctx.undefined, nameH, argH);
    } finally {
      this.deadline = Infinity;
      nameH.dispose(); argH.dispose();
    }
    if (r.error) {
      const where = this.where();
      throw this.failure(r.error, where, where.fn);
    }
    const text = ctx.getString(r.value);
    r.value.dispose();
    return JSON.parse(text) as T;
  }

  private where(): Where {
    try {
      const h = this.ctx!.getProp(this.ctx!.global, '__where');
      const w = this.ctx!.dump(h) as Where;
      h.dispose();
      return w && typeof w.fn === 'string' ? w : { fn: 'unknown', item: -1 };
    } catch { return { fn: 'unknown', item: -1 }; }
  }

  /** The error a failed evaluation becomes: named after the task function, with the line where QuickJS knows it. */
  private failure(errH: QuickJSHandle, where: Where, fn: string): TaskError {
    const ctx = this.ctx!;
    let e: Record<string, unknown>;
    try { e = ctx.dump(errH) as Record<string, unknown>; } catch { e = { message: 'an error QuickJS could not describe' }; }
    errH.dispose();
    if (typeof e !== 'object' || e === null) e = { message: String(e) };
    const message = typeof e.message === 'string' ? e.message : clip(JSON.stringify(e) ?? String(e));
    const name = typeof e.name === 'string' ? e.name : 'Error';
    const line = lineOf(e);
    const at = line !== null ? ` (${TASK_FILE} line ${line})` : '';
    const who = fn === 'module' ? 'the module' : fn;
    let text: string;
    if (name === 'InternalError' && message === 'interrupted') {
      text = `${who} did not return within ${this.callMs} ms: stopped (an endless loop?)`;
      this.close(); // the engine is made anew on the next call
    } else if (name === 'InternalError' && /out of memory/.test(message)) {
      text = `${who} ran out of memory: stopped at the task's limit of ${Math.round(this.memoryBytes / 2 ** 20)} MB`;
      this.close();
    } else if (name === 'SyntaxError') {
      text = `${fn === 'module' ? 'the task' : fn} has a syntax error${at}: ${message}`;
    } else {
      text = `${who} threw ${name}: ${message}${at}`;
      const rejected = this.rejected();
      if (rejected) text += ` (${rejected})`;
    }
    return new TaskError(text, { ...where, fn });
  }

  /** The reason a Promise a task function returned was rejected with (import() says why there), if any. */
  private rejected(): string | null {
    try {
      this.rt?.executePendingJobs();
      const h = this.ctx!.getProp(this.ctx!.global, '__rejected');
      const v = this.ctx!.dump(h);
      h.dispose();
      return typeof v === 'string' ? v : null;
    } catch { return null; }
  }
}
