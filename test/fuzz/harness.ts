// The fuzz suite's harness: a seeded source of mutations and a tally of outcomes.
// Every input must end as the project's own named error or as an accepted value
// that passes the caller's invariants; anything else (a TypeError, a RangeError,
// a broken invariant, an input that takes over a second) is recorded as a failure.
import { expect } from 'vitest';

/** mulberry32, written out here so the harness does not lean on the code under test. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
export const int = (rand: () => number, n: number): number => Math.floor(rand() * n);

/** Object.prototype names, and __proto__, that an unknown-key check must not let through. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/** JSON text nested `depth` levels deep (arrays or objects): JSON.stringify of its parse overflows the stack. */
export const deepJson = (depth: number, kind: 'array' | 'object' = 'array'): string =>
  kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Numeric and other edge values, as JSON text. */
export const EDGE_JSON = [
  '0', '-0', '-1', '1', '0.5', '1e308', '-1e308', '1e-320', '9007199254740993', '4294967296', '1e400', '-1e400',
  'null', 'true', 'false', '""', '"NaN"', '"Infinity"', '"-Infinity"', '"1"', '[]', '{}', '[1,2]', '[-1,0]', '{"a":1}',
  `"${'x'.repeat(200_000)}"`, deepJson(5000), deepJson(5000, 'object'), '{"__proto__":{"polluted":1}}', '{"constructor":1}',
];

export class Tally {
  count = 0;
  accepted = 0;
  rejected = 0;
  maxMs = 0;
  readonly failures: string[] = [];
  private readonly kinds = new Map<string, number>();
  constructor(readonly name: string, private readonly isNamedError: (e: unknown) => boolean) {}

  /** Runs one input: `parse` then `check` (null when the invariants hold, else what broke). */
  run<T>(kind: string, label: () => string, parse: () => T, check: (v: T) => string | null): void {
    this.count++;
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    const t0 = performance.now();
    let value: T;
    try {
      value = parse();
    } catch (e) {
      this.time(t0, kind, label);
      if (this.isNamedError(e)) {
        this.rejected++;
        const m = (e as Error).message;
        if (m.length > 2000) this.fail(`${kind}: message of ${m.length} characters (echoes input?) for ${label()}`);
      } else this.fail(`${kind}: ${e instanceof Error ? `${e.name}: ${e.message.slice(0, 200)}` : String(e)} for ${label()}`);
      return;
    }
    this.time(t0, kind, label);
    this.accepted++;
    let broken: string | null;
    try { broken = check(value); } catch (e) { broken = `the invariant check threw ${String(e).slice(0, 200)}`; }
    if (broken) this.fail(`${kind}: accepted but ${broken} for ${label()}`);
  }

  private time(t0: number, kind: string, label: () => string): void {
    const ms = performance.now() - t0;
    this.maxMs = Math.max(this.maxMs, ms);
    if (ms > 1000) this.fail(`${kind}: took ${ms.toFixed(0)} ms for ${label()}`);
  }

  private fail(what: string): void {
    if (this.failures.length < 20) this.failures.push(what);
    else if (this.failures.length === 20) this.failures.push('... more');
  }

  /** Prints the counts and asserts zero failures and the minimum count. */
  report(min: number): void {
    const kinds = [...this.kinds].map(([k, n]) => `${k} ${n}`).join(', ');
    console.log(`fuzz ${this.name}: ${this.count} inputs (${this.accepted} accepted, ${this.rejected} rejected with the project's error), ` +
      `${this.failures.length} failures, slowest ${this.maxMs.toFixed(1)} ms; ${kinds}`);
    expect(this.failures).toEqual([]);
    expect(this.count).toBeGreaterThanOrEqual(min);
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  }
}

/** Text that would run code if an exported file let it out of its quoting; "PWNED" marks it. */
export const PAYLOADS = [
  '0\nimport os; os.system("touch PWNED")', '"""\nimport os  # PWNED\n"""', '\'; touch PWNED; \'', '$(touch PWNED)', '`touch PWNED`',
  'x" + __import__("os").system("touch PWNED") + "', '\\\nPWNED = 1', '\r\nPWNED()', '${PWNED}', '\u2028PWNED', '0; PWNED', 'PWNED\\',
];

/** Every path into a value (objects and arrays; typed arrays are leaves). */
export function paths(doc: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  const todo: [unknown, (string | number)[]][] = [[doc, []]];
  while (todo.length) {
    const [v, p] = todo.pop()!;
    out.push(p);
    if (Array.isArray(v)) v.forEach((x, i) => todo.push([x, [...p, i]]));
    else if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) for (const [k, x] of Object.entries(v)) todo.push([x, [...p, k]]);
  }
  return out;
}

/** Values a stored object can hold (a structured clone keeps more than JSON: NaN, undefined, typed arrays). */
export const EDGE_VALUES: unknown[] = [
  ...EDGE_JSON.map((t) => JSON.parse(t)), NaN, Infinity, -Infinity, undefined, -0, 2 ** 53 - 1, 2 ** 53, 5, -3, 1e6, 0.5, 'x'.repeat(3000),
  new Float32Array(3), [NaN], { step: 1 }, ...PAYLOADS,
];

/** A copy of `base` with one edit at a random path: an edge value, a deleted entry, or an added key. */
export function editObject<T>(base: T, allPaths: (string | number)[][], rand: () => number): T {
  const doc = structuredClone(base) as any;
  const path = pick(rand, allPaths.filter((p) => p.length > 0));
  let parent = doc;
  for (const k of path.slice(0, -1)) parent = parent[k];
  const last = path[path.length - 1];
  switch (int(rand, 4)) {
    case 0: if (Array.isArray(parent)) parent.splice(last as number, 1); else delete parent[last]; break;
    case 1: { // an added key beside it: a prototype name or a stray one
      const key = rand() < 0.6 ? pick(rand, PROTO_KEYS) : pick(rand, ['extra', 'x'.repeat(500), '']);
      if (!Array.isArray(parent)) Object.defineProperty(parent, key, { value: pick(rand, EDGE_VALUES), enumerable: true, writable: true, configurable: true });
      break;
    }
    case 2: // a number nudged out of (or within) its range; anything else gets an edge value
      parent[last] = typeof parent[last] === 'number' ? parent[last] * pick(rand, [-1, 1e6, 1.5, 0]) + pick(rand, [0, 0.5, 1]) : pick(rand, EDGE_VALUES);
      break;
    default: parent[last] = pick(rand, EDGE_VALUES);
  }
  return doc;
}
