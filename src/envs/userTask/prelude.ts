// The JavaScript that runs inside the sandbox before a task's own module (docs/your-task.md):
// the names a task may not reach (each says so when touched), the seeded rand a sampler gets,
// and the batch entry points the host calls (one call per batch, JSON in and out, so the
// QuickJS boundary is crossed once per step's tasks, not once per episode).
//
// A task's code is hostile: it may replace any global (JSON, Array.prototype.push, Object.keys,
// String...). So the prelude captures every intrinsic it needs before the task loads and calls only
// those; it serializes each value right after the task function returns (its toJSON and getters run
// under the call's deadline, blamed on that function), and describes a thrown value itself, reading
// only own data properties (no host code ever dumps a task object). Which function runs on which
// item is kept in the closure; `__whereNow()` reads it back after a call was stopped from outside.

/** Globals a task may not use: each read throws this message (a task runs with none of them). */
export const BLOCKED_GLOBALS = [
  'fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'indexedDB', 'localStorage', 'sessionStorage', 'caches',
  'document', 'window', 'self', 'navigator', 'location', 'process', 'require', 'module', 'exports', 'importScripts',
  'postMessage', 'Worker', 'setTimeout', 'setInterval', 'queueMicrotask', 'Deno', 'Bun', 'std', 'os',
] as const;

export const NOT_AVAILABLE = 'is not available in a task: a task runs sandboxed, with no network, storage, page, file system or process';

/** The held-out share of the default split: a task is eval-only when the hash of its JSON is 0 mod this. */
export const HELD_OUT_EVERY = 5;
/** Draws a sampler gets to find a task of the asked stream before the call fails. */
export const SAMPLE_TRIES = 1000;

/** Longest JSON of one task (characters): a task is a small piece of data, and it is hashed on every draw. */
export const TASK_JSON_MAX = 65536;
/** Longest reply of one call (characters of JSON): a batch of views, scores or demonstrations. */
export const REPLY_MAX = 16 * 2 ** 20;
/** Characters of a thrown message the prelude keeps (the host clips the line further). */
export const ERROR_TEXT_MAX = 2000;
/** The first character of a reply that is a failure's description, not a result. */
export const FAILED = '\u0001';

export const PRELUDE = `
'use strict';
(function () {
  const g = globalThis;
  // the intrinsics the prelude uses, captured before the task can replace them
  const stringify = JSON.stringify, parse = JSON.parse, create = Object.create, defineProperty = Object.defineProperty,
    getDesc = Object.getOwnPropertyDescriptor, getProto = Object.getPrototypeOf, apply = Reflect.apply, isArray = Array.isArray,
    floor = Math.floor, imul = Math.imul, hasOwn = Object.prototype.hasOwnProperty, keysOf = Object.keys,
    slice = String.prototype.slice, charCodeAt = String.prototype.charCodeAt, promiseThen = Promise.prototype.then,
    isPromise = function (v) { try { apply(promiseThen, v, [undefined, function () {}]); return true; } catch (e) { return false; } },
    Err = Error;
  for (const name of ${JSON.stringify(BLOCKED_GLOBALS)}) {
    try { delete g[name]; } catch (e) {}
    defineProperty(g, name, { get() { throw new ReferenceError(name + ' ${NOT_AVAILABLE}'); }, configurable: false });
  }
  Math.random = function () { throw new Err('Math.random is not available in a task: use the rand that sample and demo receive (seeded, so a run repeats)'); };
  let whereFn = 'module', whereItem = -1, rejected;
  const at = function (fn, item) { whereFn = fn; whereItem = item; };
  // mulberry32 and the murmur3 mixer: the same numbers in every engine (integer arithmetic only)
  function mix(x) { x = imul(x ^ (x >>> 16), 0x85ebca6b); x = imul(x ^ (x >>> 13), 0xc2b2ae35); return (x ^ (x >>> 16)) >>> 0; }
  function hashInts(a, b, c) { let h = 0x9e3779b9; h = mix((h ^ (a >>> 0)) + 0x7f4a7c15 | 0); h = mix((h ^ (b >>> 0)) + 0x7f4a7c15 | 0); if (c !== undefined) h = mix((h ^ (c >>> 0)) + 0x7f4a7c15 | 0); return h; }
  function hashText(s) { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) h = imul(h ^ apply(charCodeAt, s, [i]), 0x01000193); return mix(h); }
  function makeRand(seed) {
    let a = seed >>> 0;
    const rand = function () { a = a + 0x6d2b79f5 | 0; let t = imul(a ^ (a >>> 15), 1 | a); t = t + imul(t ^ (t >>> 7), 61 | t) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    rand.int = function (n) { return floor(rand() * n); };
    rand.pick = function (xs) { return xs[floor(rand() * xs.length)]; };
    return rand;
  }
  const fail = function (message) { const e = new Err(message); e.ours = true; return e; };
  let theTask;
  const task = function () { return theTask; };
  // a task function's value as JSON, read now (toJSON and getters run here, under the deadline, blamed on fn)
  const asJson = function (fn, v, max) {
    if (v !== null && typeof v === 'object' && isPromise(v)) {
      apply(promiseThen, v, [undefined, function (e) { rejected = e !== null && typeof e === 'object' ? text(own(e, 'message')) : text(e); }]);
      throw fail(fn + ' returned a Promise: task functions are synchronous (import() and async code are not available in a task)');
    }
    const s = stringify(v);
    if (s === undefined) return 'null';
    if (s.length > max) throw fail(fn + ' returned a value of ' + s.length + ' characters of JSON, more than the ' + max + ' a ' + (max === ${TASK_JSON_MAX} ? 'task' : 'call') + ' may have');
    return s;
  };
  const heldOut = function (t, json, index) {
    if (typeof task().heldOut === 'function') { at('heldOut', index); return !!task().heldOut(t); }
    return hashText(json) % ${HELD_OUT_EVERY} === 0; // the default split: the prelude's own hash, no task code
  };
  // task number index of a stream: its own rand, so it depends only on (split, seed, index)
  const sampleOne = function (split, seed, index) {
    const rand = makeRand(hashInts(seed, split === 'eval' ? 0xe7a1 : 0x7a1, index));
    for (let tries = 0; tries < ${SAMPLE_TRIES}; tries++) {
      at('sample', index);
      const t = task().sample(rand, split);
      if (t === undefined) throw fail('sample returned undefined: a task must be plain data (numbers, strings, arrays, objects)');
      const json = asJson('sample', t, ${TASK_JSON_MAX});
      if (heldOut(t, json, index) === (split === 'eval')) return [t, json];
    }
    at('sample', index);
    throw fail('sample: ${SAMPLE_TRIES} draws gave no ' + split + ' task (every task drawn belongs to the ' + (split === 'eval' ? 'train' : 'eval') + ' stream): the sampler needs more distinct tasks, or heldOut marks too many or too few');
  };
  let size = 0;
  const part = function (s) { size += s.length; if (size > ${REPLY_MAX}) throw fail(whereFn + ': the call\\'s reply grew past ${REPLY_MAX} characters of JSON (values too large)'); return s; };
  const views = function (tj, index) {
    const t = tj[0];
    at('solver', index);
    let out = '{"task":' + tj[1] + ',"solver":' + part(asJson('solver', task().solver(t), ${REPLY_MAX}));
    if (typeof task().messenger === 'function') { at('messenger', index); out += ',"messenger":' + part(asJson('messenger', task().messenger(t), ${REPLY_MAX})); }
    return out;
  };
  // numbers JSON cannot hold (NaN, Infinity) kept as text, so that a declaration says what it was
  const marked = function (k, v) { return typeof v === 'number' && !(v - v === 0) ? { $number: '' + v } : v; };
  const entries = {
    describe: function () {
      at('module', -1);
      const t = task();
      if (t === null || typeof t !== 'object') return stringify({ missing: true, type: t === null ? 'null' : typeof t });
      const fns = create(null), d = create(null);
      const ks = keysOf(t);
      for (let i = 0; i < ks.length && i < 64; i++) fns[ks[i]] = typeof t[ks[i]];
      d.fields = fns;
      const names = ['name', 'about', 'vocab', 'maxAnswer', 'maxMessage', 'maxPrompt', 'settings', 'pretrain'];
      for (let i = 0; i < names.length; i++) d[names[i]] = t[names[i]];
      const s = stringify(d, marked);
      return s === undefined ? 'null' : part(s);
    },
    sample: function (a) {
      let out = '[';
      for (let i = 0; i < a.count; i++) out += (i > 0 ? ',' : '') + part(views(sampleOne(a.split, a.seed, a.index + i), a.index + i)) + '}';
      return out + ']';
    },
    score: function (a) {
      let out = '[';
      for (let i = 0; i < a.items.length; i++) {
        const it = a.items[i];
        at('score', i);
        out += (i > 0 ? ',' : '') + part(asJson('score', task().score(it[0], it[1], it[2]), ${REPLY_MAX}));
      }
      return out + ']';
    },
    heldOut: function (a) {
      let out = '[';
      for (let i = 0; i < a.tasks.length; i++) out += (i > 0 ? ',' : '') + (heldOut(a.tasks[i], stringify(a.tasks[i]), i) ? 'true' : 'false');
      return out + ']';
    },
    demos: function (a) {
      const rand = makeRand(hashInts(a.seed, 0xde70));
      let out = '[';
      for (let i = 0; i < a.count; i++) {
        const tj = sampleOne('train', a.seed ^ 0x5eed, a.index + i);
        const v = views(tj, a.index + i);
        at('demo', a.index + i);
        out += (i > 0 ? ',' : '') + part(v + ',"demo":' + part(asJson('demo', task().demo(tj[0], rand), ${REPLY_MAX}))) + '}';
      }
      return out + ']';
    },
  };
  // an own data property, never a getter (Proxies' traps run, under the deadline)
  function own(o, k) {
    try { const d = getDesc(o, k); return d !== undefined && apply(hasOwn, d, ['value']) ? d.value : undefined; } catch (e) { return undefined; }
  }
  function text(v) {
    if (typeof v === 'string') return v.length > ${ERROR_TEXT_MAX} ? apply(slice, v, [0, ${ERROR_TEXT_MAX}]) + '... (' + v.length + ' characters)' : v;
    if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean') return '' + v;
    return typeof v === 'object' || typeof v === 'function' ? 'an object that is not an Error' : 'a ' + typeof v;
  }
  // what was thrown, read with captured functions only: { fn, item, name, message, stack }
  function described(e) {
    const d = create(null);
    d.fn = whereFn; d.item = whereItem; d.name = 'Error'; d.ours = false;
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      let o = e;
      for (let depth = 0; depth < 8 && o !== null; depth++) {
        const n = own(o, 'name');
        if (typeof n === 'string') { d.name = text(n); break; }
        try { o = getProto(o); } catch (x) { break; }
      }
      const m = own(e, 'message');
      d.message = m === undefined ? 'an object that is not an Error' : text(m);
      const s = own(e, 'stack');
      if (typeof s === 'string') d.stack = apply(slice, s, [0, 4000]);
      d.ours = own(e, 'ours') === true;
    } else { d.name = 'a value'; d.message = text(e); }
    if (rejected !== undefined) d.rejected = text(rejected);
    return stringify(d);
  }
  const call = function (name, json) {
    rejected = undefined; size = 0;
    try {
      const r = entries[name](parse(json));
      return typeof r === 'string' ? r : 'null';
    } catch (e) {
      return '${FAILED}' + described(e);
    }
  };
  // after pending jobs ran (a rejected Promise's reason), the description again
  const whereNow = function () { return stringify([whereFn, whereItem, rejected === undefined ? null : text(rejected)]); };
  defineProperty(g, '__call', { value: call, writable: false, configurable: false });
  const setTask = function (t) { theTask = t; };
  defineProperty(g, '__setTask', { value: setTask, writable: false, configurable: false });
  defineProperty(g, '__describe', { value: described, writable: false, configurable: false });
  defineProperty(g, '__whereNow', { value: whereNow, writable: false, configurable: false });
})();
`;
