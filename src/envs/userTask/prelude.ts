// The JavaScript that runs inside the sandbox before a task's own module (docs/your-task.md):
// the names a task may not reach (each says so when touched), the seeded rand a sampler gets,
// and the batch entry points the host calls (one call per batch, JSON in and out, so the
// QuickJS boundary is crossed once per step's tasks, not once per episode).
//
// `__where` records which task function runs on which item, so that a call stopped from
// outside (an endless loop, the memory limit: QuickJS cannot catch those) is still named.

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

export const PRELUDE = `
'use strict';
(function () {
  const g = globalThis;
  for (const name of ${JSON.stringify(BLOCKED_GLOBALS)}) {
    try { delete g[name]; } catch (e) {}
    Object.defineProperty(g, name, { get() { throw new ReferenceError(name + ' ${NOT_AVAILABLE}'); }, configurable: false });
  }
  Math.random = function () { throw new Error('Math.random is not available in a task: use the rand that sample and demo receive (seeded, so a run repeats)'); };
  g.__where = { fn: 'module', item: -1 };
  // mulberry32 and the murmur3 mixer: the same numbers in every engine (integer arithmetic only)
  function mix(x) { x = Math.imul(x ^ (x >>> 16), 0x85ebca6b); x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35); return (x ^ (x >>> 16)) >>> 0; }
  function hashInts() { let h = 0x9e3779b9; for (let i = 0; i < arguments.length; i++) h = mix((h ^ (arguments[i] >>> 0)) + 0x7f4a7c15 | 0); return h; }
  function hashText(s) { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193); return mix(h); }
  function makeRand(seed) {
    let a = seed >>> 0;
    const rand = function () { a = a + 0x6d2b79f5 | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = t + Math.imul(t ^ (t >>> 7), 61 | t) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    rand.int = function (n) { return Math.floor(rand() * n); };
    rand.pick = function (xs) { return xs[Math.floor(rand() * xs.length)]; };
    return rand;
  }
  const at = function (fn, item) { g.__where = { fn: fn, item: item }; };
  const task = function () { return g.__task; };
  const asJson = function (fn, item, v) {
    if (v !== null && typeof v === 'object' && typeof v.then === 'function') {
      v.then(null, function (e) { g.__rejected = String(e && e.message || e); });
      throw new Error(fn + ' returned a Promise: task functions are synchronous (import() and async code are not available in a task)');
    }
    return v;
  };
  const heldOut = function (t) {
    at('heldOut', -1);
    if (typeof task().heldOut === 'function') return !!task().heldOut(t);
    return hashText(JSON.stringify(t)) % ${HELD_OUT_EVERY} === 0;
  };
  // task number index of a stream: its own rand, so it depends only on (split, seed, index)
  const sampleOne = function (split, seed, index) {
    const rand = makeRand(hashInts(seed, split === 'eval' ? 0xe7a1 : 0x7a1, index));
    for (let tries = 0; tries < ${SAMPLE_TRIES}; tries++) {
      at('sample', index);
      const t = asJson('sample', index, task().sample(rand, split));
      if (t === undefined || JSON.stringify(t) === undefined) throw new Error('sample returned ' + (t === undefined ? 'undefined' : 'a value JSON cannot hold') + ': a task must be plain data (numbers, strings, arrays, objects)');
      if (heldOut(t) === (split === 'eval')) return t;
    }
    at('sample', index);
    throw new Error('sample: ${SAMPLE_TRIES} draws gave no ' + split + ' task (every task drawn belongs to the ' + (split === 'eval' ? 'train' : 'eval') + ' stream): the sampler needs more distinct tasks, or heldOut marks too many or too few');
  };
  const views = function (t, index) {
    const out = { task: t };
    at('solver', index); out.solver = asJson('solver', index, task().solver(t));
    if (typeof task().messenger === 'function') { at('messenger', index); out.messenger = asJson('messenger', index, task().messenger(t)); }
    return out;
  };
  const entries = {
    describe: function () {
      const t = task();
      if (t === null || typeof t !== 'object') return { missing: true, type: t === null ? 'null' : typeof t };
      const fns = {};
      for (const k of Object.keys(t)) fns[k] = typeof t[k];
      return {
        fields: fns, name: t.name, about: t.about, vocab: t.vocab, maxAnswer: t.maxAnswer, maxMessage: t.maxMessage,
        maxPrompt: t.maxPrompt, settings: t.settings, pretrain: t.pretrain,
      };
    },
    sample: function (a) {
      const out = [];
      for (let i = 0; i < a.count; i++) out.push(views(sampleOne(a.split, a.seed, a.index + i), a.index + i));
      return out;
    },
    score: function (a) {
      const out = [];
      for (let i = 0; i < a.items.length; i++) {
        const it = a.items[i];
        at('score', i);
        out.push(asJson('score', i, task().score(it[0], it[1], it[2])));
      }
      return out;
    },
    heldOut: function (a) { return a.tasks.map(function (t) { return heldOut(t); }); },
    demos: function (a) {
      const rand = makeRand(hashInts(a.seed, 0xde70));
      const out = [];
      for (let i = 0; i < a.count; i++) {
        const v = views(sampleOne('train', a.seed ^ 0x5eed, a.index + i), a.index + i);
        at('demo', a.index + i);
        v.demo = asJson('demo', a.index + i, task().demo(v.task, rand));
        out.push(v);
      }
      return out;
    },
  };
  const call = function (name, json) {
    g.__rejected = undefined;
    const result = entries[name](JSON.parse(json));
    g.__where = { fn: 'host', item: -1 };
    const text = JSON.stringify(result);
    return text === undefined ? 'null' : text;
  };
  Object.defineProperty(g, '__call', { value: call, writable: false, configurable: false });
})();
`;
