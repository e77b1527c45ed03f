// Fuzz: decoding a shared link. Random queries of known, unknown and prototype
// names, edge values, repeats, bad percent-escapes and huge strings: decodeSetup
// never throws, applies only own config fields whose values pass, reports each
// problem in a bounded line, and stays fast (the query length is capped).
import { describe, it } from 'vitest';
import { FIELDS } from '../../src/config';
import { findPreset, presetConfig, PRESETS } from '../../src/envs/presets';
import { decodeSetup, type DecodedSetup } from '../../src/store/urlState';
import { int, pick, PROTO_KEYS, seeded, Tally } from './harness';

const NAMES = [...Object.keys(FIELDS), ...PROTO_KEYS, 'v', 'preset', 'bogus', '', 'a'.repeat(300), '%', '%zz', 'lr%00', 'x[]'];
const VALUES = ['', '0', '-0', '-1', '1', '0.5', '3e-4', '1e308', '-1e308', 'NaN', 'Infinity', '-Infinity', '0x10', '1e', ' 2 ', 'gspo', 'grpo', 'on', 'hint',
  '%', '%zz', '%E0%A4%A', 'x'.repeat(1000), '__proto__', ...PRESETS.map((p) => p.name), '1', '4', '64', '65'];

function randomQuery(rand: () => number): string {
  const n = int(rand, 12);
  const parts: string[] = [];
  if (rand() < 0.8) parts.push(`v=${pick(rand, ['1', '1', '2', ''])}`);
  if (rand() < 0.8) parts.push(`preset=${pick(rand, [...PRESETS.map((p) => p.name), 'nope', '__proto__', 'constructor'])}`);
  for (let i = 0; i < n; i++) parts.push(rand() < 0.05 ? pick(rand, NAMES) : `${pick(rand, NAMES)}=${pick(rand, VALUES)}`);
  const q = parts.join(pick(rand, ['&', '&', '&', '&&', ';']));
  return rand() < 0.3 ? `?${q}` : q;
}

function invariants(d: DecodedSetup): string | null {
  if (!PRESETS.some((p) => p.name === d.preset)) return `preset ${d.preset}`;
  for (const k of Object.keys(d.overrides)) if (!Object.prototype.hasOwnProperty.call(FIELDS, k)) return `override ${k}`;
  if (Object.getPrototypeOf(d.overrides) !== Object.prototype) return 'overrides lost their prototype';
  try { presetConfig(findPreset(d.preset), d.overrides as Record<string, unknown>); } catch (e) { return `overrides that do not validate (${String(e)})`; }
  for (const p of d.problems) if (p.length > 600) return `a problem line of ${p.length} characters`;
  if (d.problems.length > 21) return `${d.problems.length} problem lines`;
  return null;
}

describe('fuzz: URL decoding', () => {
  it('never throws; applies only own config fields that pass; bounded messages; fast', () => {
    const tally = new Tally('URL', () => false); // decodeSetup reports problems, it never throws
    for (let k = 0; k < 10_000; k++) {
      const q = randomQuery(seeded(30_000 + k));
      tally.run('random-query', () => q.slice(0, 300), () => decodeSetup(q), invariants);
    }
    // long links: many distinct names (quadratic before), and over the cap
    for (const n of [500, 1000, 5000, 80_000]) {
      const q = Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
      tally.run('many-names', () => `${n} distinct names`, () => decodeSetup(q), invariants);
    }
    tally.report(10_000);
  });
});
