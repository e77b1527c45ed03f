// Hostile and broken tasks (docs/your-task.md "The sandbox"): each must end, well within a bound,
// in a clean one-line TaskError / InputError (or pass the checks when it is harmless), never hang,
// never an internal error, never reach the host. `expect` is what its first problem must say.

export interface Probe { name: string; code: string; expect?: RegExp; fn?: string }

const FNS = ['sample', 'solver', 'messenger', 'score', 'demo', 'heldOut'] as const;
type Fn = (typeof FNS)[number];

/**
 * A valid task with `pre` run first in function `fn` (and `ret` as its return value when given). Two held-out
 * tasks (strict equality: a comparison would run a returned value's toPrimitive here): Check refuses an eval
 * stream of one, and a probe that passes Check goes on to load, sample and score.
 */
export function task(o: { fn?: Fn; pre?: string; ret?: string; fields?: string; top?: string } = {}): string {
  const two = o.fn === 'messenger';
  const body = (fn: Fn, dflt: string) => `${o.fn === fn ? o.pre ?? '' : ''}; return ${o.fn === fn && o.ret !== undefined ? o.ret : dflt};`;
  return `${o.top ?? ''}
export default {
  vocab: 'abcdefgh', maxAnswer: 1, ${two ? 'maxMessage: 1,' : ''} ${o.fields ?? ''}
  sample(rand) { ${body('sample', "rand.pick(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])")} },
  solver(t) { ${body('solver', 't')} },
  ${two ? `messenger(t) { ${body('messenger', 't')} },` : ''}
  score(t, a) { ${body('score', 'a === t ? 1 : 0')} },
  demo(t) { ${body('demo', two ? '{ message: t, answer: t }' : 't')} },
  heldOut(t) { ${body('heldOut', "t === 'a' || t === 'b'")} },
};`;
}

const TIME = /did not return within \d+ ms/;
const MEMORY = /ran out of memory/;
const STACK = /stack depth|nested more than/;

/** Statements run at the start of a task function, and what they must give. */
const BODIES: [string, string, RegExp][] = [
  ['an endless loop', 'while (true) {}', TIME],
  ['Array.prototype.join over a huge array-like (loops in C)', 'Array.prototype.join.call({ length: 2 ** 53 - 1 }, "x")', TIME],
  ['Array.prototype.indexOf over a huge array-like', 'Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)', TIME],
  ['Array.prototype.fill over a huge array-like', 'Array.prototype.fill.call({ length: 2 ** 53 - 1 }, 1)', /did not return within|out of memory/],
  ['unbounded recursion', '(function f() { return f() + 1; })()', STACK],
  ['a 1 GB typed array', 'new Uint8Array(2 ** 30).fill(1)', MEMORY],
  ['a doubling string', 'let s = "x"; for (;;) s += s', /out of memory|did not return|characters|too large/],
  ['process through the Function constructor', 'Function("return process")().exit(3)', /process is not available in a task/],
  ['process through a constructor chain', '({}).constructor.constructor("return process")().exit(3)', /process is not available in a task/],
  ['require', 'require("fs")', /require is not available in a task/],
  ['fetch', 'fetch("http://example.com")', /fetch is not available in a task/],
  ['globalThis.process', 'globalThis.process.exit(3)', /process is not available in a task/],
  ['a thrown object whose message getter loops', 'throw { get message() { for (;;) {} } }', /threw|did not return/],
  ['a thrown object whose toString loops', 'throw { toString() { for (;;) {} } }', /threw a value|threw Error: an object that is not an Error/],
  ['a thrown Proxy whose traps loop', 'throw new Proxy({}, { getOwnPropertyDescriptor() { for (;;) {} }, getPrototypeOf() { for (;;) {} } })', TIME],
  ['a 20 MB error message', 'throw new Error("x".repeat(20e6))', /threw Error: x+.*characters\)|out of memory/],
  ['terminal escapes and a forged line in a message', 'throw new Error("\\u001b[2J\\ngspo: all good\\r")', /\\u001b\[2J\\u000agspo: all good/],
  ['JSON.stringify replaced', 'JSON.stringify = function () { for (;;) {} }; JSON.parse = null', /./],
  ['Array.prototype.push and Object.keys replaced', 'Array.prototype.push = null; Object.keys = null; String = null; Array.prototype.join = null', /./],
  ['Object.prototype.toJSON that loops', 'Object.prototype.toJSON = function () { for (;;) {} }', /./],
  ['a queued promise job that loops', 'Promise.resolve().then(function () { for (;;) {} })', /./],
  ['a slow leak kept across calls', 'globalThis.keep = globalThis.keep || []; globalThis.keep.push(new Array(2e5).fill(1.5))', /./],
  ['Date and state', 'globalThis.n = (globalThis.n || 0) + 1', /./],
  ['a getter on Array.prototype index 0', 'Object.defineProperty(Array.prototype, "0", { get() { for (;;) {} }, set(v) { for (;;) {} }, configurable: true })', /./],
];

/** Return values a task function may hand back, and what they must give. */
const RETURNS: [string, string, RegExp][] = [
  ['a value whose toJSON loops', '({ toJSON() { for (;;) {} } })', TIME],
  ['a value with a looping getter', '({ get x() { for (;;) {} } })', TIME],
  ['a value with a looping Symbol.toPrimitive', '({ [Symbol.toPrimitive]() { for (;;) {} } })', /./],
  ['a Promise (import())', 'import("node:fs")', /returned a Promise/],
  ['a Promise rejected with a looping getter', 'Promise.reject({ get message() { for (;;) {} } })', /returned a Promise/],
  ['a 32 MB string', '"a".repeat(2 ** 25)', /characters of JSON|out of memory|grew past|did not return/],
  // building 1e5 levels takes a good part of the suite's 250 ms call limit, so on a loaded machine
  // the time limit can stop it first: either cause is a clean stop naming the function
  ['a value nested 100000 deep', '(function () { let v = []; for (let i = 0; i < 1e5; i++) v = [v]; return v; })()', new RegExp(`${STACK.source}|${TIME.source}`)],
  ['a value nested 80 deep', '(function () { let v = []; for (let i = 0; i < 80; i++) v = [v]; return v; })()', /./],
];

/** Declarations: bad values for numeric fields, names with escapes, extras. */
const FIELDS: [string, string, RegExp][] = [
  ['maxAnswer NaN', 'maxAnswer: NaN', /maxAnswer must be an integer in 1\.\.32; got NaN/],
  ['maxAnswer Infinity', 'maxAnswer: Infinity', /maxAnswer must be an integer .* got Infinity/],
  ['maxAnswer -Infinity', 'maxAnswer: -Infinity', /maxAnswer must be an integer .* got -Infinity/],
  ['maxAnswer a string', 'maxAnswer: "3"', /maxAnswer must be an integer .* got the string "3"/],
  ['maxAnswer 1.5', 'maxAnswer: 1.5', /maxAnswer must be an integer/],
  ['maxAnswer 1e9', 'maxAnswer: 1e9', /maxAnswer must be an integer/],
  ['maxPrompt NaN', 'maxPrompt: NaN', /maxPrompt must be an integer .* got NaN/],
  ['maxPrompt Infinity', 'maxPrompt: Infinity', /maxPrompt must be an integer .* got Infinity/],
  ['pretrain.steps NaN', 'pretrain: { steps: NaN }', /pretrain\.steps must be an integer .* got NaN/],
  ['pretrain.steps Infinity', 'pretrain: { steps: Infinity }', /pretrain\.steps must be an integer .* got Infinity/],
  ['pretrain.target NaN', 'pretrain: { target: NaN }', /pretrain\.target must be an accuracy/],
  ['settings.lr NaN', 'settings: { lr: NaN }', /settings: .*lr/],
  ['settings.steps Infinity', 'settings: { steps: Infinity }', /settings: .*steps/],
  ['a name with terminal escapes and a newline', 'name: "\\u001b[2J\\ngspo: forged"', /^$/],
  ['an about with C1 controls', 'about: "\\u009b2J\\u2028x"', /^$/],
  ['a name of 1 MB', 'name: "n".repeat(1e6)', /^$/],
  ['a name whose getter loops', 'get name() { for (;;) {} }', TIME],
  ['a vocab whose getter recurses', 'get vocab() { return (function f() { return f(); })(); }', STACK],
  ['settings whose toJSON loops', 'settings: { toJSON() { for (;;) {} } }', TIME],
  ['a vocab with an escape character', 'vocab: "ab\\u001b"', /vocab has the control character \\u001b/],
  ['an unknown field', 'colour: 1', /unknown field "colour"/],
];

/** Modules broken or hostile at their top level. */
const MODULES: [string, string, RegExp][] = [
  ['no default export', 'export const x = 1;', /no `export default/],
  ['a default export that is a number', 'export default 5;', /default export is number/],
  ['top-level await of import()', 'await import("node:fs");\nexport default {};', /awaits at its top level|import is not available/],
  ['top-level await', 'await 0;\n' + task(), /awaits at its top level/],
  ['a top-level endless loop', 'for (;;) {}\n' + task(), TIME],
  ['a top-level C loop', 'Array.prototype.join.call({ length: 2 ** 53 - 1 });\n' + task(), TIME],
  ['top-level recursion', '(function f() { f(); })();\n' + task(), STACK],
  ['a top-level memory bomb', 'const big = new Uint8Array(2 ** 30);\n' + task(), MEMORY],
  ['a syntax error', 'export default { vocab: "ab", ', /syntax error \(task\.js line \d+\)/],
  ['a top-level throw of a looping getter', 'throw { get message() { for (;;) {} } };\n' + task(), /threw|did not return/],
  ['a default export Proxy whose ownKeys loops', 'export default new Proxy({}, { ownKeys() { for (;;) {} } });', TIME],
  ['a default export with a looping getter for sample', 'export default { vocab: "ab", get sample() { for (;;) {} }, solver: (t) => t, score: () => 1 };', TIME],
  ['a static import', 'import fs from "node:fs";\n' + task(), /import is not available in a task/],
  ['globalThis.__call replaced', 'globalThis.__call = () => "[]";\n' + task(), /__call|read-only|threw/],
];

/** Scores with bad parts. */
const SCORES: [string, string, RegExp][] = [
  ['score NaN', 'NaN', /score returned NaN/],
  ['score Infinity', 'Infinity', /score returned NaN, Infinity/],
  ['score a string', '"1"', /not a number/],
  ['an extra named constructor', '({ score: 1, extras: { constructor: 1 } })', /./],
  ['an extra named __proto__', '({ score: 1, extras: JSON.parse(\'{"__proto__": 1}\') })', /the name is taken/],
  ['an extra named accuracy', '({ score: 1, extras: { accuracy: 0.5 } })', /the name is taken/],
  ['reward NaN', '({ score: 1, reward: NaN })', /reward/],
  ['an extra with an escape in its name', '({ score: 1, extras: { ["a\\u001bb"]: 1 } })', /names are identifiers/],
];

export function probes(): Probe[] {
  const out: Probe[] = [];
  for (const [what, pre, expect] of BODIES) for (const fn of FNS) out.push({ name: `${fn}: ${what}`, code: task({ fn, pre }), expect, fn });
  for (const [what, ret, expect] of RETURNS) for (const fn of ['sample', 'solver', 'score', 'demo'] as const) out.push({ name: `${fn} returns ${what}`, code: task({ fn, ret }), expect, fn });
  for (const [what, fields, expect] of FIELDS) out.push({ name: `field: ${what}`, code: task({ fields }).replace(/vocab: 'abcdefgh', maxAnswer: 1,/, fields.startsWith('vocab') ? '' : fields.startsWith('maxAnswer') ? "vocab: 'abcdefgh'," : "vocab: 'abcdefgh', maxAnswer: 1,").replace(`${fields}\n`, `${fields},\n`), expect, fn: 'module' });
  for (const [what, code, expect] of MODULES) out.push({ name: `module: ${what}`, code, expect, fn: 'module' });
  for (const [what, ret, expect] of SCORES) out.push({ name: `score returns ${what}`, code: task({ fn: 'score', ret }), expect, fn: 'score' });
  return out;
}
