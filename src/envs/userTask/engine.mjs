// One task's QuickJS engine: the prelude, the task's module, and calls into it, each under a
// deadline (the engine's interrupt handler). Plain JavaScript, so that the sandbox's worker
// (sandboxWorker.mjs) loads it without a TypeScript loader; the in-thread fallback uses it too.
//
// Nothing here runs task code without a deadline: every evaluation, call, pending job and read of
// a thrown value happens inside `within`, and a thrown value is described by the prelude's
// captured functions (never dumped here: a dump runs the task's getters and toJSON).
// Failures come back as data ({ cause, fn, item, name, message, stack }); failure.ts words them.
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';

/** What stopped a call: the engine's limits, or the task. */
const FAILED = '\u0001';

/** A task's memory limit (bytes): the engine's whole wasm memory, its own static data and stack (about 5 MB) included. */
export const MEMORY_BYTES = 64 * 2 ** 20;
/** The engine's wasm memory at its start (its static data, stack and first heap): no limit is below it. */
export const ENGINE_START_BYTES = 16 * 2 ** 20;
const PAGE = 65536;

/**
 * Loads QuickJS with its wasm memory capped at `limitBytes` (at least ENGINE_START_BYTES): an allocation past
 * it fails inside the engine as out of memory, at once. QuickJS's own limit (setMemoryLimit) refuses one
 * allocation larger than the limit but counts a kept one as 8 bytes (this build has no malloc_usable_size), so
 * without this cap many allocations under the limit grew the engine to 2 GB before anything stopped them.
 * @param {import('quickjs-emscripten-core').QuickJSSyncVariant} variant
 * @param {number} limitBytes
 */
export function loadEngineWasm(variant, limitBytes) {
  const maximum = Math.ceil(Math.max(ENGINE_START_BYTES, limitBytes) / PAGE);
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: new WebAssembly.Memory({ initial: ENGINE_START_BYTES / PAGE, maximum }) }));
}

export class TaskEngine {
  /**
   * @param {import('quickjs-emscripten-core').QuickJSWASMModule} wasm
   * @param {{ code: string, prelude: string, callMs: number, memoryBytes: number, stackBytes: number, taskFile: string }} o
   */
  constructor(wasm, o) {
    this.o = o;
    this.deadline = Infinity;
    this.interrupted = false;
    /** Must be thrown away: a limit stopped it (QuickJS promises no usable heap after one). */
    this.broken = false;
    /** Whether freeing it is safe (after a stack overflow it may not be: a worker is ended instead). */
    this.disposable = true;
    const rt = wasm.newRuntime();
    rt.setMemoryLimit(o.memoryBytes);
    rt.setMaxStackSize(o.stackBytes);
    rt.setInterruptHandler(() => {
      if (performance.now() <= this.deadline) return false;
      this.interrupted = true;
      return true;
    });
    rt.setModuleLoader((name) => { throw new Error(`import of ${JSON.stringify(String(name).slice(0, 80))}: import is not available in a task (a task is one module with no imports)`); });
    this.rt = rt;
    this.ctx = rt.newContext();
  }

  /** Runs `f` with the deadline `ms` from now; the deadline is lifted only after f returned. */
  within(ms, f) {
    this.deadline = performance.now() + ms;
    this.interrupted = false;
    try { return f(); } finally { this.deadline = Infinity; }
  }

  /** Evaluates the prelude and the task's module, hands the default export to the prelude. Returns a failure or null. */
  load() {
    const { ctx } = this;
    const p = ctx.evalCode(this.o.prelude, 'prelude.js', { type: 'global' });
    if (p.error) { p.error.dispose(); return { cause: 'internal', fn: 'module', item: -1, name: 'Error', message: 'the prelude did not load' }; }
    p.value.dispose();
    this.callFn = ctx.getProp(ctx.global, '__call');
    this.describeFn = ctx.getProp(ctx.global, '__describe');
    return this.within(this.o.callMs, () => {
      const r = ctx.evalCode(this.o.code, this.o.taskFile, { type: 'module' });
      if (r.error) return this.failure(r.error, 'module');
      const state = ctx.getPromiseState(r.value);
      if (!state.notAPromise) {
        if (state.type === 'rejected') state.error.dispose();
        if (state.type === 'fulfilled') state.value.dispose();
        r.value.dispose();
        return { cause: 'await', fn: 'module', item: -1, name: 'Error', message: '' };
      }
      const def = ctx.getProp(r.value, 'default');
      r.value.dispose();
      if (ctx.typeof(def) === 'undefined') { def.dispose(); return { cause: 'no-default', fn: 'module', item: -1, name: 'Error', message: '' }; }
      const set = ctx.getProp(ctx.global, '__setTask');
      const s = ctx.callFunction(set, ctx.undefined, def);
      set.dispose(); def.dispose();
      if (s.error) return this.failure(s.error, 'module');
      s.value.dispose();
      return null;
    });
  }

  /** Calls the prelude's entry `name` with `arg` (a JSON text): { text } or { failure }. */
  call(name, arg) {
    const { ctx } = this;
    return this.within(this.o.callMs, () => {
      const nameH = ctx.newString(name), argH = ctx.newString(arg);
      const r = ctx.callFunction(this.callFn, ctx.undefined, nameH, argH);
      nameH.dispose(); argH.dispose();
      if (r.error) return { failure: this.failure(r.error, null) };
      // __call returns a string it made itself (its own JSON or a failure's description)
      const text = ctx.typeof(r.value) === 'string' ? ctx.getString(r.value) : 'null';
      r.value.dispose();
      if (text[0] !== FAILED) return { text };
      const d = JSON.parse(text.slice(1));
      return { failure: this.classify(d, this.rejectedReason(d)) };
    });
  }

  /** A Promise a task function returned: its reason once its jobs ran (still under the call's deadline). */
  rejectedReason(d) {
    if (!d.ours || !/returned a Promise/.test(d.message ?? '')) return d.rejected;
    try {
      const jobs = this.rt.executePendingJobs(64);
      if (jobs.error) { jobs.error.dispose(); return d.rejected; }
      const w = this.whereNow();
      return w ? w[2] ?? undefined : d.rejected;
    } catch { return d.rejected; }
  }

  /** [fn, item, rejected] as the prelude last recorded them, or null. */
  whereNow() {
    const { ctx } = this;
    const h = ctx.getProp(ctx.global, '__whereNow');
    const r = ctx.callFunction(h, ctx.undefined);
    h.dispose();
    if (r.error) { r.error.dispose(); return null; }
    const s = ctx.typeof(r.value) === 'string' ? ctx.getString(r.value) : 'null';
    r.value.dispose();
    return JSON.parse(s);
  }

  /** An error that reached the host: the limit that stopped it, or what the task threw (described by the prelude). */
  failure(errH, fn) {
    const { ctx } = this;
    const interrupted = this.interrupted;
    let d = null;
    if (!interrupted) {
      // the prelude reads it (own data properties only), under a short deadline of its own
      this.deadline = performance.now() + 100;
      try {
        const r = ctx.callFunction(this.describeFn, ctx.undefined, errH);
        if (r.error) r.error.dispose();
        else { if (ctx.typeof(r.value) === 'string') d = JSON.parse(ctx.getString(r.value)); r.value.dispose(); }
      } catch { d = null; }
    }
    errH.dispose();
    let where = null;
    this.deadline = performance.now() + 100;
    try { where = this.whereNow(); } catch { where = null; }
    d ??= { name: 'Error', message: '' };
    if (where) { d.fn = where[0]; d.item = where[1]; }
    if (fn !== null) d.fn = fn;
    if (interrupted) return { ...d, cause: this.nearMemoryLimit() ? 'memory' : 'time', fn: d.fn ?? 'unknown', item: d.item ?? -1 };
    return this.classify(d, d.rejected);
  }

  /** What was thrown, by kind: the engine's limits break the engine; the task's own errors do not. */
  classify(d, rejected) {
    const out = { fn: d.fn ?? 'unknown', item: d.item ?? -1, name: d.name ?? 'Error', message: d.message ?? '', stack: d.stack, rejected, ours: !!d.ours };
    if (out.name === 'InternalError' && /out of memory/.test(out.message)) { this.broken = true; return { ...out, cause: 'memory' }; }
    if (/stack overflow|call stack size/i.test(out.message) && (out.name === 'InternalError' || out.name === 'RangeError' || out.name === 'SyntaxError')) {
      this.broken = true; this.disposable = false;
      return { ...out, cause: 'stack' };
    }
    if (out.name === 'InternalError' && /string too long|array too long|invalid array length/.test(out.message)) return { ...out, cause: 'size', message: `made a value too large (${out.message})` };
    if (out.name === 'SyntaxError') return { ...out, cause: 'syntax' };
    if (out.ours) return { ...out, cause: /characters of JSON/.test(out.message) ? 'size' : 'task' };
    return { ...out, cause: 'threw' };
  }

  /** Whether the heap is near its limit (a slow leak makes the collector run out of time before the allocator refuses). */
  nearMemoryLimit() {
    this.broken = true;
    try {
      const h = this.rt.computeMemoryUsage();
      // what the runtime's values hold (malloc_size counts a kept allocation as 8 bytes in this build)
      const sizeH = this.ctx.getProp(h, 'memory_used_size');
      const size = this.ctx.getNumber(sizeH);
      sizeH.dispose(); h.dispose();
      return size > 0.8 * this.o.memoryBytes;
    } catch { return false; }
  }

  /** Frees the engine (unless that is unsafe: then it is left for its thread's end). */
  close() {
    if (!this.rt) return;
    if (this.disposable) {
      try {
        this.callFn?.dispose(); this.describeFn?.dispose();
        this.ctx.dispose(); this.rt.dispose();
      } catch { /* a runtime QuickJS cannot free is dropped: its thread ends with it */ }
    }
    this.rt = null; this.ctx = null;
  }
}
