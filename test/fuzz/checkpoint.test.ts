// Fuzz: the checkpoint parser (readCheckpoint over parseSafetensors), and the run-file
// import's checkpoint check. Bit flips, truncation at every header byte, header JSON
// edits (edge values, deleted and added keys, prototype names, duplicate keys, deep
// nesting, huge strings, the largest model in a tiny file), non-finite weights.
import { describe, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { readCheckpoint, writeCheckpoint, type Checkpoint } from '../../src/model/checkpoint';
import { paramSpecs, validateGPTConfig, type GPTConfig } from '../../src/model/params';
import { SafetensorsError } from '../../src/model/safetensors';
import { checkRunCheckpoint, RunFileError } from '../../src/store/runFile';
import { validateConfig } from '../../src/config';
import { createEnv } from '../../src/envs/registry';
import { EDGE_JSON, int, pick, PROTO_KEYS, seeded, Tally } from './harness';

const named = (e: unknown) => e instanceof SafetensorsError || e instanceof InputError || e instanceof RunFileError;

// a tiny model that fits the relay environment, so the run-import check can accept it
const config = validateConfig({ nLayer: 1, nHead: 2, nEmbd: 8 });
const env = createEnv(config);
const gpt: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 8, blockSize: env.blockSize, vocabSize: env.vocab.length };
function baseFile(): Uint8Array {
  const { total } = paramSpecs(gpt);
  const weights = Float32Array.from({ length: total }, (_, i) => Math.sin(i) / 4);
  return writeCheckpoint({ config: gpt, weights, vocab: [...env.vocab], extras: { env: 'relay', env_options: '{"digits":3,"maxMessage":8}', step: '7' } });
}

/** The invariants of an accepted checkpoint: shapes fit its config, every weight finite. */
function invariants(ck: Checkpoint): string | null {
  if (validateGPTConfig(ck.config) !== null) return `an invalid config ${JSON.stringify(ck.config)}`;
  if (ck.weights.length !== paramSpecs(ck.config).total) return `${ck.weights.length} weights for ${paramSpecs(ck.config).total} parameters`;
  for (let i = 0; i < ck.weights.length; i++) if (!Number.isFinite(ck.weights[i])) return `weight ${i} is ${ck.weights[i]}`;
  if (ck.vocab && ck.vocab.length !== ck.config.vocabSize) return 'a vocabulary of the wrong length';
  for (const v of Object.values(ck.extras)) if (typeof v !== 'string') return 'a non-string metadata value';
  return null;
}

function split(bytes: Uint8Array): { header: string; data: Uint8Array } {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { header: new TextDecoder().decode(bytes.subarray(8, 8 + n)), data: bytes.subarray(8 + n) };
}

function pack(header: string, data: Uint8Array, lengthDelta = 0): Uint8Array {
  const h = new TextEncoder().encode(header);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(Math.max(0, h.length + lengthDelta)), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

const EDGE = '"@@EDGE@@"';
/** One edit of the header's JSON; edge values are spliced in as text (deep nesting included). */
function editHeader(rand: () => number, header: string): string {
  const doc = JSON.parse(header) as Record<string, Record<string, unknown>>;
  const names = Object.keys(doc).filter((k) => k !== '__metadata__');
  const name = pick(rand, names);
  const entry = doc[name];
  const meta = doc.__metadata__ as unknown as Record<string, string>;
  const edge = pick(rand, EDGE_JSON);
  const spliced = (o: unknown) => JSON.stringify(o).replace(EDGE, () => edge);
  switch (int(rand, 12)) {
    case 0: entry[pick(rand, ['dtype', 'shape', 'data_offsets'])] = '@@EDGE@@'; return spliced(doc);
    case 1: delete entry[pick(rand, ['dtype', 'shape', 'data_offsets'])]; return JSON.stringify(doc);
    case 2: delete doc[name]; return JSON.stringify(doc);
    case 3: { // a prototype name or a stray key, at the top or in an entry
      const key = JSON.stringify(rand() < 0.7 ? pick(rand, PROTO_KEYS) : 'x'.repeat(int(rand, 300)));
      const text = JSON.stringify(doc);
      if (rand() < 0.5) return `{${key}:${edge},${text.slice(1)}`;
      const at = text.indexOf(`${JSON.stringify(name)}:{`) + JSON.stringify(name).length + 2;
      return `${text.slice(0, at)}${key}:${edge},${text.slice(at)}`;
    }
    case 4: { // a duplicate key (JSON.parse keeps the last one silently)
      const text = JSON.stringify(doc);
      const dupe = rand() < 0.5 ? `${JSON.stringify(name)}:${JSON.stringify(entry)}` : `"__metadata__":${JSON.stringify(meta)}`;
      return `{${dupe},${text.slice(1)}`;
    }
    case 5: { // offsets off by a little, or swapped
      const o = entry.data_offsets as number[];
      entry.data_offsets = rand() < 0.3 ? [o[1], o[0]] : [o[0] + int(rand, 9) - 4, o[1] + int(rand, 9) - 4];
      return JSON.stringify(doc);
    }
    case 6: { // another shape
      const s = entry.shape as number[];
      entry.shape = rand() < 0.5 ? s.slice().reverse() : [...s, pick(rand, [0, 1, 2, 2 ** 31, -1])];
      return JSON.stringify(doc);
    }
    case 7: { // the config: edge values, or the largest model in this small file
      const c = JSON.parse(meta.config) as Record<string, unknown>;
      if (rand() < 0.3) meta.config = JSON.stringify({ n_layer: 12, n_head: 16, n_embd: 512, block_size: 256, vocab_size: 4096 });
      else { c[pick(rand, ['n_layer', 'n_head', 'n_embd', 'block_size', 'vocab_size', ...PROTO_KEYS])] = JSON.parse(edge.length < 1000 ? edge : '0'); meta.config = JSON.stringify(c); }
      return JSON.stringify(doc);
    }
    case 8: meta[pick(rand, ['config', 'vocab', 'env_options', 'which', ...PROTO_KEYS])] = rand() < 0.5 ? edge : '@@EDGE@@'; return spliced(doc);
    case 9: entry.dtype = pick(rand, ['F16', 'BF16', 'f32', 'F64', 'I32', '', 'F32 ', 'x'.repeat(100_000)]); return JSON.stringify(doc);
    case 10: return `${JSON.stringify(doc)}${' '.repeat(int(rand, 16))}${pick(rand, ['', ',', '}', ' x'])}`;
    default: (doc as Record<string, unknown>).__metadata__ = '@@EDGE@@'; return spliced(doc);
  }
}

describe('fuzz: checkpoint parser', () => {
  it('every mutation is rejected with the project\'s error or accepted with shapes that fit and finite weights', () => {
    const rand = seeded(11);
    const base = baseFile();
    const { header, data } = split(base);
    const tally = new Tally('checkpoint', named);
    const parse = (bytes: Uint8Array, kind: string, label: () => string) => tally.run(kind, label, () => readCheckpoint(bytes), invariants);
    parse(base, 'control', () => 'the unmutated file');

    // truncation at every byte of the length and header, and a sample of the data section
    const headerEnd = base.length - data.length;
    for (let n = 0; n < headerEnd; n++) parse(base.subarray(0, n), 'truncate-header', () => `the first ${n} bytes`);
    for (let k = 0; k < 300; k++) { const n = headerEnd + int(rand, data.length); parse(base.subarray(0, n), 'truncate-data', () => `the first ${n} bytes`); }

    // bit flips, mostly in the length and header
    for (let k = 0; k < 4000; k++) {
      const b = base.slice();
      const flips = 1 + int(rand, 3);
      const where: number[] = [];
      for (let f = 0; f < flips; f++) { const i = rand() < 0.8 ? int(rand, headerEnd) : int(rand, b.length); b[i] ^= 1 << int(rand, 8); where.push(i); }
      parse(b, 'bit-flip', () => `bits flipped at bytes ${where.join(', ')}`);
    }

    // header JSON edits, the length field off by a little now and then
    for (let k = 0; k < 4500; k++) {
      const r = seeded(1000 + k);
      const text = editHeader(r, header);
      const delta = r() < 0.15 ? int(r, 9) - 4 : 0;
      parse(pack(text, data, delta), 'header-edit', () => `header edit #${k} (seed ${1000 + k}), length delta ${delta}`);
    }

    // the data section: NaN / Infinity bit patterns, extra or missing bytes
    const patterns = [0x7fc00000, 0x7f800000, 0xff800000, 0x7f800001, 0xffffffff];
    for (let k = 0; k < 800; k++) {
      let d = data.slice();
      const kind = int(rand, 3);
      if (kind === 0) new DataView(d.buffer).setUint32(4 * int(rand, d.length / 4), pick(rand, patterns), true);
      else if (kind === 1) { const e = new Uint8Array(d.length + 1 + int(rand, 8)); e.set(d); d = e; } else d = d.subarray(0, d.length - 1 - int(rand, 8));
      parse(pack(header, d), 'data-edit', () => `data edit #${k} (kind ${kind})`);
    }

    // the run-file import's check of the same kinds of files against a run's config
    for (let k = 0; k < 500; k++) {
      const r = seeded(9000 + k);
      const bytes = r() < 0.5 ? pack(editHeader(r, header), data) : base.slice().map((x, i) => (i < headerEnd && r() < 0.01 ? x ^ 0x20 : x));
      tally.run('run-import', () => `import #${k}`, () => checkRunCheckpoint(bytes, config, 'f.safetensors'),
        (v) => (v.which === 'last' || v.which === 'best' ? null : `which is ${String(v.which)}`));
    }
    tally.report(10_000);
  });
});
