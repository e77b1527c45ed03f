// Fuzz: config validation and the CLI's flags. Random partial configs (known,
// unknown and prototype keys; edge values; deep nesting; huge strings), --set
// lists and flag vectors: each is an InputError with a bounded message, or a
// config whose every field is within its declared range.
import { describe, it } from 'vitest';
import { checkLiveChange, FIELDS, validateConfig, type RunConfig } from '../../src/config';
import { InputError } from '../../src/contract/errors';
import { parseFlags } from '../../src/cli/args';
import { parseSets } from '../../src/cli/commands/runSetup';
import { trainFlags } from '../../src/cli/commands/train';
import { EDGE_JSON, int, pick, PROTO_KEYS, seeded, Tally } from './harness';

const KEYS = [...Object.keys(FIELDS), ...PROTO_KEYS, 'bogus', '', 'x'.repeat(200)];
const RAW = ['', '1', '-1', '0', '0.5', '1e-9', 'NaN', 'Infinity', 'gspo', 'relay', 'on', 'x'.repeat(5000), '__proto__'];

/** A config whose every field is within its FIELDS range (an independent restatement of the table's meaning). */
function inRange(c: RunConfig): string | null {
  for (const [k, f] of Object.entries(FIELDS)) {
    const v = (c as unknown as Record<string, unknown>)[k];
    if (f.kind === 'enum') { if (!f.values.includes(v as string)) return `${k} = ${String(v)}`; continue; }
    if (typeof v !== 'number' || !Number.isFinite(v) || v < f.min || v > f.max || (f.kind === 'int' && !Number.isInteger(v))) return `${k} = ${String(v)}`;
  }
  if (c.nEmbd % c.nHead !== 0) return 'nEmbd not divisible by nHead';
  for (const k of Object.keys(c)) if (!Object.prototype.hasOwnProperty.call(FIELDS, k)) return `key ${k}`;
  return null;
}

function partial(rand: () => number): Record<string, unknown> {
  const n = 1 + int(rand, 5);
  let text = '{';
  for (let i = 0; i < n; i++) {
    const k = pick(rand, KEYS);
    const v = rand() < 0.5 ? pick(rand, EDGE_JSON) : JSON.stringify(pick(rand, RAW));
    text += `${i ? ',' : ''}${JSON.stringify(k)}:${v}`;
  }
  return JSON.parse(text + '}') as Record<string, unknown>; // JSON.parse keeps "__proto__" as an own key, as a file would
}

describe('fuzz: config validation and CLI flags', () => {
  it('every input is an InputError or a config within range', () => {
    const tally = new Tally('config', (e) => e instanceof InputError);
    for (let k = 0; k < 5000; k++) {
      const p = partial(seeded(40_000 + k));
      tally.run('validateConfig', () => `seed ${40_000 + k}: ${Object.keys(p).join(',')}`, () => validateConfig(p), inRange);
    }
    for (let k = 0; k < 1500; k++) {
      const rand = seeded(45_000 + k);
      const keys = Array.from({ length: 1 + int(rand, 3) }, () => pick(rand, KEYS));
      tally.run('checkLiveChange', () => keys.join(','), () => checkLiveChange(keys), () => null);
    }
    for (let k = 0; k < 2000; k++) {
      const rand = seeded(47_000 + k);
      const sets = Array.from({ length: 1 + int(rand, 3) }, () => `${pick(rand, KEYS)}${pick(rand, ['=', '=', ''])}${pick(rand, RAW)}`);
      tally.run('--set', () => sets.join(' '), () => validateConfig(parseSets(sets)), inRange);
    }
    for (let k = 0; k < 1500; k++) {
      const rand = seeded(49_000 + k);
      const argv = Array.from({ length: 1 + int(rand, 4) }, () => pick(rand, [`--${pick(rand, [...Object.keys(trainFlags), ...PROTO_KEYS, 'x'])}`, pick(rand, RAW), `--steps=${pick(rand, RAW)}`]));
      tally.run('flags', () => argv.join(' ').slice(0, 300), () => parseFlags(argv, trainFlags, 'train'),
        (f) => (Object.keys(f).every((n) => Object.prototype.hasOwnProperty.call(trainFlags, n)) ? null : `flags ${Object.keys(f).join(',')}`));
    }
    tally.report(10_000);
  });
});
