// Fuzz: the exporter on hostile stored configs and preset names (what another script on the
// page could write into storage). Every input is refused with an InputError or exported; every
// export holds no payload, no undefined/NaN/Infinity, and, read by Python and bash themselves
// (toplevel.py, a sample of the accepted ones in one process), has exactly the top level of the
// clean export for the same env and target.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/config';
import { presetConfig, PRESETS } from '../../src/envs/presets';
import { InputError } from '../../src/contract/errors';
import { recipeBundle } from '../../src/export/bundle';
import { exportRecipe, type ExportFile, type ExportTarget } from '../../src/export/recipe';
import { EDGE_VALUES, int, PAYLOADS, pick, PROTO_KEYS, seeded, Tally } from './harness';

const TOPLEVEL = join(import.meta.dirname, '..', 'export', 'toplevel.py');
const CASES = 10_000, SAMPLE = 120;
const NUMERIC_TEXT = [' 0.5 ', '1e-3', '2', '0', '-0', '3.', '.25', '1E1', '+1'];
const BAD = /PWNED|\bundefined\b|\bNaN\b|\bInfinity\b|\[object /;

function hostileConfig(rand: () => number): { config: Record<string, unknown>; preset: unknown; target: ExportTarget } {
  const p = pick(rand, PRESETS);
  const config: Record<string, unknown> = { ...presetConfig(p) };
  const keys = Object.keys(config);
  for (let n = 1 + int(rand, 3); n > 0; n--) {
    const k = pick(rand, keys);
    switch (int(rand, 6)) {
      case 0: delete config[k]; break;
      case 1: config[k] = pick(rand, PAYLOADS); break;
      case 2: config[k] = pick(rand, NUMERIC_TEXT); break;
      case 3: config[k] = `${String(config[k])}${pick(rand, PAYLOADS)}`; break;
      case 4: Object.defineProperty(config, pick(rand, [...PROTO_KEYS, 'evil']), { value: pick(rand, PAYLOADS), enumerable: true, configurable: true, writable: true }); break;
      default: config[k] = pick(rand, EDGE_VALUES);
    }
  }
  const r = rand();
  const preset = r < 0.8 ? p.name : r < 0.9 ? `${p.name}${pick(rand, PAYLOADS)}` : pick(rand, [...PAYLOADS, 'x'.repeat(100_000), 42, null, {}, undefined]);
  return { config, preset, target: rand() < 0.5 ? 'trl' : 'verl' };
}

const sig = (t: ExportTarget, env: string, f: string) => `${t}/${env}/${f}`;

describe('fuzz: the exporter', () => {
  it('every hostile config or name is refused by name or exported clean, with the expected top level', () => {
    const tally = new Tally('exporter', (e) => e instanceof InputError);
    const sample: { key: string; files: ExportFile[]; env: string; target: ExportTarget }[] = [];
    for (let k = 0; k < CASES; k++) {
      const seed = 70_000 + k;
      const { config, preset, target } = hostileConfig(seeded(seed));
      tally.run('hostile', () => `seed ${seed}`, () => exportRecipe(target, config as unknown as RunConfig, preset as string), (files) => {
        for (const f of files) if (BAD.test(f.text)) return `${f.path} holds ${f.text.match(BAD)![0]}`;
        recipeBundle(files, `run-${target}`); // the page's download of it builds too
        if (sample.length < SAMPLE && k % 7 === 0) sample.push({ key: `seed ${seed}`, files, env: String(config.env), target });
        return null;
      });
    }
    // the clean export of each env and target: what every accepted one's top level must be
    const clean = new Map<string, ExportFile[]>();
    for (const p of PRESETS) {
      for (const t of ['trl', 'verl'] as const) {
        const key = `${t}/${presetConfig(p).env}`;
        if (!clean.has(key)) clean.set(key, exportRecipe(t, presetConfig(p), p.name));
      }
    }
    const batch = [...[...clean.values()].flat(), ...sample.flatMap((s) => s.files)];
    const tops: { top: string[] | null; error: string | null }[] = JSON.parse(execFileSync('python3', [TOPLEVEL], { input: JSON.stringify(batch), encoding: 'utf8', maxBuffer: 64 << 20 }));
    const expected = new Map<string, string>();
    let i = 0;
    for (const [key, files] of clean) for (const f of files) { const [t, env] = key.split('/'); expected.set(sig(t as ExportTarget, env, f.path), JSON.stringify(tops[i++])); }
    for (const v of expected.values()) expect(JSON.parse(v).error).toBeNull();
    const broken: string[] = [];
    for (const s of sample) for (const f of s.files) {
      const got = JSON.stringify(tops[i++]);
      if (got !== expected.get(sig(s.target, s.env, f.path))) broken.push(`${s.key} ${s.target} ${f.path}: ${got.slice(0, 300)}`);
    }
    console.log(`fuzz exporter: ${sample.length} accepted exports (${sample.reduce((n, s) => n + s.files.length, 0)} files) read by python3 and bash, ${broken.length} with another top level`);
    expect(broken).toEqual([]);
    expect(sample.length).toBeGreaterThan(20); // enough of them were accepted to say something
    tally.report(CASES);
  });
});
