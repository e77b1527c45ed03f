// Fuzz: the run-file importer. JSON edits at every path (edge values, deleted and
// added keys, prototype names, deep nesting, huge strings), text truncation and
// character flips; and through the store: a rejected file stores nothing.
import { describe, expect, it } from 'vitest';
import { FIELDS, validateConfig } from '../../src/config';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MetricsSeries } from '../../src/store/metricsSeries';
import { parseRunFile, RunFileError, runToJson, type ImportedRun } from '../../src/store/runFile';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { RunMeta } from '../../src/store/runTypes';
import type { PickedFile } from '../../src/store/types';
import { METRIC_NAMES } from '../../src/worker/protocol';
import { FakeTrainer, fakeClient } from '../store/fakeClient';
import { EDGE_JSON, int, paths, pick, PROTO_KEYS, seeded, Tally } from './harness';

const C = METRIC_NAMES.length;
const config = presetConfig(findPreset('relay-silence'), { groupSize: 4 });
const meta: RunMeta = {
  id: 'r1', name: 'a run', preset: 'relay-silence', config, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000, status: 'paused', steps: 6,
  evals: [{ step: 0, accuracy: 0.5, tokens: 8, turns: 1, lambdaTok: 0.1, reward: -0.3, silenceKnown: 0 }, { step: 5, accuracy: 0.75, tokens: 2, turns: 1, lambdaTok: 0.1, reward: 0.5, silenceKnown: 0.5 }],
  bestEval: null, flags: [{ kind: 'nonfinite-update', step: 2, message: 'skipped' }], warmStart: 'checkpoints/relay-warm.safetensors', backend: 'cpu',
  checkpoints: { last: 6 }, colorIndex: 0, source: 'trained',
  baselines: [{ name: 'random', accuracy: 0.1, tokens: 3, extras: { silence: 0.2 } }], curriculum: [{ step: 3, stage: 1, label: 'N = 5' }],
  comparison: { step: 5, rows: [{ name: 'actor alone', n: 10, accuracy: 0.5, lo: 0.2, hi: 0.8, tokens: 0, extras: {} }] },
  changes: [{ step: 4, field: 'groupSize', value: 2 }],
};
function series(n: number): MetricsSeries {
  const d = new Float64Array(n * C);
  for (let r = 0; r < n; r++) for (let c = 0; c < C; c++) d[r * C + c] = METRIC_NAMES[c] === 'step' ? r : Math.cos(r + c);
  d[C + METRIC_NAMES.indexOf('kl')] = NaN;
  return MetricsSeries.from(d);
}
const BASE = runToJson(meta, series(6));

const finite = (x: unknown, lo = -Infinity, hi = Infinity) => typeof x === 'number' && Number.isFinite(x) && x >= lo && x <= hi;
const whole = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** The invariants of an accepted run: every field the store keeps is checked and in range. */
function invariants(run: ImportedRun): string | null {
  const m = run.meta;
  if (typeof m.name !== 'string' || m.name.length > 200) return 'a bad name';
  if (!whole(m.steps)) return `steps ${m.steps}`;
  if (!finite(m.createdAt)) return `createdAt ${m.createdAt}`;
  try { if (JSON.stringify(validateConfig(m.config as unknown as Record<string, unknown>)) !== JSON.stringify(m.config)) return 'a config that does not validate to itself'; } catch (e) { return `a config that does not validate (${String(e)})`; }
  for (const k of Object.keys(m.config)) if (!Object.prototype.hasOwnProperty.call(FIELDS, k)) return `config key ${k}`;
  for (const e of m.evals) {
    if (!whole(e.step) || !finite(e.accuracy, 0, 1) || !finite(e.tokens, 0) || !finite(e.turns, 0) || !finite(e.lambdaTok, 0)) return `eval ${JSON.stringify(e)}`;
  }
  for (const f of m.flags) if (!['nonfinite-update', 'diverged', 'degenerate', 'collapse'].includes(f.kind) || !whole(f.step)) return `flag ${JSON.stringify(f)}`;
  for (const b of m.baselines ?? []) if (!finite(b.accuracy, 0, 1) || !finite(b.tokens, 0) || Object.values(b.extras).some((v) => !finite(v))) return 'a baseline';
  for (const c of m.curriculum ?? []) if (!whole(c.step) || !whole(c.stage) || typeof c.label !== 'string') return 'a curriculum mark';
  if (m.comparison) {
    if (!Array.isArray(m.comparison.rows) || m.comparison.rows.length === 0) return 'a comparison with no rows';
    for (const r of m.comparison.rows) if (!finite(r.accuracy, 0, 1) || !finite(r.lo, 0, 1) || !finite(r.hi, 0, 1) || !whole(r.n) || !finite(r.tokens, 0)) return 'a comparison row';
  }
  for (const c of m.changes ?? []) if (!Object.prototype.hasOwnProperty.call(FIELDS, c.field) || !whole(c.step)) return `a change ${JSON.stringify(c)}`;
  let prev = -1;
  const steps = run.metrics.column('step');
  for (let r = 0; r < run.metrics.rows; r++) { if (!whole(steps[r]) || steps[r] <= prev) return `metrics step ${steps[r]}`; prev = steps[r]; }
  return null;
}

const PATHS = paths(JSON.parse(BASE)).filter((p) => p.length > 0);
const MARK = '"@@EDGE@@"';

/** One JSON edit at a random path; edge values are spliced in as text. */
function edit(rand: () => number): string {
  const doc = JSON.parse(BASE);
  const path = pick(rand, PATHS);
  let parent = doc;
  for (const k of path.slice(0, -1)) parent = parent[k];
  const last = path[path.length - 1];
  const edge = pick(rand, EDGE_JSON);
  switch (int(rand, 5)) {
    case 0: case 1: parent[last] = '@@EDGE@@'; break;
    case 2: if (Array.isArray(parent)) parent.splice(last as number, 1); else delete parent[last]; break;
    case 3: { // an added key: a prototype name or a stray one, next to the edited path
      if (Array.isArray(parent) || typeof parent !== 'object') { parent[last] = '@@EDGE@@'; break; }
      const key = rand() < 0.7 ? pick(rand, PROTO_KEYS) : pick(rand, ['extra', 'x'.repeat(500), '']);
      return JSON.stringify(doc).replace(`${JSON.stringify(last)}:`, () => `${JSON.stringify(key)}:${edge},${JSON.stringify(last)}:`);
    }
    default: parent[last] = JSON.parse(pick(rand, ['-1', '0.5', '1e300', '"NaN"', '"Infinity"', '"-Infinity"', '""', '[]', '{}', 'null'])); break;
  }
  return JSON.stringify(doc).replace(MARK, () => edge);
}

describe('fuzz: run-file importer', () => {
  it('every mutation is rejected with a RunFileError or accepted with every kept field in range', () => {
    const tally = new Tally('run file', (e) => e instanceof RunFileError);
    const parse = (text: string, kind: string, label: () => string) => tally.run(kind, label, () => parseRunFile(text, 'f.run.json'), invariants);
    parse(BASE, 'control', () => 'the unmutated file');
    for (let k = 0; k < 7000; k++) { const r = seeded(20_000 + k); const t = edit(r); parse(t, 'json-edit', () => `edit seed ${20_000 + k}: ${t.slice(0, 300)}`); }
    const rand = seeded(3);
    for (let k = 0; k < 1500; k++) { const n = int(rand, BASE.length); parse(BASE.slice(0, n), 'truncate', () => `the first ${n} characters`); }
    for (let k = 0; k < 1500; k++) {
      const i = int(rand, BASE.length), ch = pick(rand, ['"', '{', '}', '[', ']', ',', ':', '0', '-', 'e', '\\', ' ', 'x']);
      parse(BASE.slice(0, i) + ch + BASE.slice(i + 1), 'char-flip', () => `character ${i} set to ${ch}`);
    }
    tally.report(10_000);
  });

  it('through the store: a rejected file stores nothing, an accepted one exactly one run', async () => {
    const stores: AppStore[] = [];
    try {
      const storage = new MemoryRunStorage();
      const store = createAppStore({ client: fakeClient(new FakeTrainer()), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000 });
      stores.push(store);
      const file = (text: string): PickedFile => ({ name: 'f.run.json', size: text.length, text: async () => text, arrayBuffer: async () => new TextEncoder().encode(text).buffer });
      let accepted = 0, rejected = 0;
      for (let k = 0; k < 200; k++) {
        const text = edit(seeded(50_000 + k));
        const before = (await storage.listRuns()).length;
        await store.getState().importFiles([file(text)]);
        const after = (await storage.listRuns()).length;
        if (store.getState().importError) { rejected++; expect(after, `seed ${50_000 + k}`).toBe(before); } else { accepted++; expect(after).toBe(before + 1); }
      }
      console.log(`fuzz run file through the store: 200 imports (${accepted} stored, ${rejected} rejected with nothing stored)`);
    } finally {
      for (const s of stores) s.ctx.recorder.stop();
    }
  });
});
