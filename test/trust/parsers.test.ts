// Findings 2, 3, 4, 6: parsers give the project's own error for deep nesting and
// never echo unbounded input; prototype names are unknown keys like any other;
// every batch sequence is checked; safetensors tensors tile the data section,
// duplicate keys are errors, and a tiny file cannot make the reader allocate a model.
import { describe, expect, it } from 'vitest';
import { checkLiveChange, parseField, validateConfig } from '../../src/config';
import { InputError } from '../../src/contract/errors';
import { parseFlags } from '../../src/cli/args';
import { parseSets } from '../../src/cli/commands/runSetup';
import { trainFlags } from '../../src/cli/commands/train';
import { readCheckpoint } from '../../src/model/checkpoint';
import { parseSafetensors, SafetensorsError } from '../../src/model/safetensors';
import { parseBatchFile } from '../../src/rl/batch';
import { parseRunFile, RunFileError } from '../../src/store/runFile';
import { decodeSetup } from '../../src/store/urlState';
import { gspo } from '../cli/run';
import { LOSS_IDS } from '../../src/contract/losses';

const deep = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown;
const errorOf = (fn: () => unknown): Error => { try { fn(); } catch (e) { return e as Error; } throw new Error('expected a throw'); };

/** A safetensors file assembled by hand from header text (independent of the project's writer). */
function raw(header: string, data: Uint8Array, headerLen?: number): Uint8Array {
  const json = new TextEncoder().encode(header);
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerLen ?? json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}
const f32 = (...xs: number[]) => new Uint8Array(Float32Array.from(xs).buffer);

describe('finding 2: deep nesting and long input give the project\'s error with a bounded message', () => {
  it('safetensors: a deeply nested dtype', () => {
    const e = errorOf(() => parseSafetensors(raw(`{"t":{"dtype":${'['.repeat(5000)}${']'.repeat(5000)},"shape":[1],"data_offsets":[0,4]}}`, f32(1))));
    expect(e).toBeInstanceOf(SafetensorsError);
    expect(e.message).toBe('tensor t: dtype must be a string, got an array of 1');
  });
  it('safetensors: a 5 MB dtype is not echoed', () => {
    const e = errorOf(() => parseSafetensors(raw(`{"t":{"dtype":"${'x'.repeat(5_000_000)}","shape":[1],"data_offsets":[0,4]}}`, f32(1)), { maxHeaderBytes: 8 << 20 }));
    expect(e).toBeInstanceOf(SafetensorsError);
    expect(e.message.length).toBeLessThan(200);
  });
  it('run file: a deeply nested or huge format', () => {
    const doc = (format: string) => `{"format":${format},"version":1}`;
    for (const text of [doc('['.repeat(5000) + ']'.repeat(5000)), doc(JSON.stringify('y'.repeat(5_000_000)))]) {
      const e = errorOf(() => parseRunFile(text, 'r.json'));
      expect(e).toBeInstanceOf(RunFileError);
      expect(e.message.length).toBeLessThan(250);
    }
  });
  it('batch file and config fields', () => {
    const b = errorOf(() => parseBatchFile({ eps_low: deep(5000), sequences: [] }, 5, 6));
    expect(b).toBeInstanceOf(InputError);
    expect(b.message).toBe('eps_low must be a finite number, got an array of 1');
    const c = errorOf(() => parseField('lr', deep(5000)));
    expect(c).toBeInstanceOf(InputError);
    expect(c.message).toBe('lr must be a number in [0, 0.1]; got an array of 1');
    const s = errorOf(() => parseField('algorithm', 'z'.repeat(5_000_000)));
    expect(s.message).toBe(`algorithm must be one of ${LOSS_IDS.join(', ')}; got "${'z'.repeat(80)}..." (5000000 characters)`);
  });
});

describe('finding 3: Object.prototype names are unknown keys', () => {
  it('config, live changes, --set and flags', () => {
    for (const k of ['constructor', 'hasOwnProperty', 'toString', '__proto__']) {
      const partial = JSON.parse(`{${JSON.stringify(k)}: 1}`) as Record<string, unknown>; // as a file holds it: an own key
      expect(errorOf(() => validateConfig(partial)).message).toMatch(new RegExp(`^unknown config key "${k}"`));
      expect(errorOf(() => checkLiveChange([k]))).toBeInstanceOf(InputError);
      expect(errorOf(() => parseSets([`${k}=1`])).message).toMatch(new RegExp(`^--set: unknown config key "${k}"`));
      expect(errorOf(() => parseFlags([`--${k}`, 'x'], trainFlags, 'train')).message).toMatch(new RegExp(`^train: unknown flag --${k} `));
    }
  });
  it('a URL parameter named constructor is reported and not applied', () => {
    const d = decodeSetup('?v=1&preset=relay-silence&constructor=-1&__proto__=1&toString=2');
    expect(d.overrides).toEqual({});
    expect(d.problems).toEqual(['unknown parameter "constructor" (not a config field)', 'unknown parameter "__proto__" (not a config field)', 'unknown parameter "toString" (not a config field)']);
  });
  it('a run file whose config has a prototype key is rejected', () => {
    const text = `{"format":"gspo-playground-run","version":1,"run":{"name":"n","preset":"relay-silence","config":{"hasOwnProperty":1},"steps":0},"metrics":{"columns":["step"],"rows":[]},"evals":[]}`;
    expect(errorOf(() => parseRunFile(text, 'r.json')).message).toMatch(/^r\.json was not imported: run\.config: unknown config key "hasOwnProperty"/);
  });
  it('the CLI exits 2 for --set hasOwnProperty=1', () => {
    const r = gspo(['train', '--preset', 'relay-silence', '--set', 'hasOwnProperty=1', '--backend', 'cpu']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^gspo: --set: unknown config key "hasOwnProperty"/);
  });
});

describe('finding 4: the batch file checks every sequence', () => {
  const seq = (tokens: number[], episode: number) => ({ tokens, mask: tokens.map((_, i) => (i === 0 ? 0 : 1)), old_logprobs: tokens.map(() => -1), episode, group: 0, reward: episode });
  it('a short sequence between longer ones is an error naming it (it used to overwrite the previous row)', () => {
    for (const short of [[], [3]]) {
      const e = errorOf(() => parseBatchFile({ sequences: [seq([1, 2, 3], 0), seq(short, 1), seq([1, 4], 2)] }, 5, 6));
      expect(e).toBeInstanceOf(InputError);
      expect(e.message).toBe(`sequences[1].tokens has ${short.length} tokens; every sequence needs at least 2 (a context token and a generated one)`);
    }
  });
  it('130,000 sequences parse (no RangeError from a spread)', () => {
    const seqs = Array.from({ length: 130_000 }, (_, i) => seq([1, 2], i));
    const { batch } = parseBatchFile({ sequences: seqs }, 5, 6);
    expect(batch.S).toBe(130_000);
    expect(batch.T).toBe(1);
    expect(batch.targets[129_999]).toBe(2);
  });
});

describe('finding 6: safetensors as the reference implementation reads it', () => {
  const entry = (name: string, b: number, e: number) => `"${name}":{"dtype":"F32","shape":[${(e - b) / 4}],"data_offsets":[${b},${e}]}`;
  it('a gap between tensors, or bytes after the last, is an error', () => {
    expect(errorOf(() => parseSafetensors(raw(`{${entry('a', 0, 4)},${entry('b', 8, 12)}}`, f32(1, 2, 3)))).message)
      .toBe('data section bytes 4..8 belong to no tensor (before tensor b): the tensors must cover the data section without gaps');
    expect(errorOf(() => parseSafetensors(raw(`{${entry('a', 0, 4)}}`, f32(1, 2)))).message)
      .toBe('the data section is 8 bytes but the tensors cover 4: bytes 4..8 belong to no tensor (header length wrong, or extra bytes at the end)');
  });
  it('a header length one short (a padding space read as data) is an error, not misaligned weights', () => {
    const header = `{${entry('a', 0, 8)}} `; // padded with one space
    expect(parseSafetensors(raw(header, f32(1, 2))).tensors.get('a')!.data).toEqual(Float32Array.from([1, 2])); // the control
    const e = errorOf(() => parseSafetensors(raw(header, f32(1, 2), header.length - 1)));
    expect(e).toBeInstanceOf(SafetensorsError);
    expect(e.message).toMatch(/data section is 9 bytes but the tensors cover 8/);
  });
  it('duplicate keys are an error (JSON.parse would keep the last silently)', () => {
    expect(errorOf(() => parseSafetensors(raw(`{${entry('a', 0, 4)},${entry('a', 0, 4)}}`, f32(1)))).message).toMatch(/^header names "a" twice/);
    expect(errorOf(() => parseSafetensors(raw(`{"__metadata__":{"k":"1","k":"2"},${entry('a', 0, 4)}}`, f32(1)))).message).toMatch(/^header names "k" twice/);
    expect(errorOf(() => parseSafetensors(raw(`{"\\u0061":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},${entry('a', 0, 4)}}`, f32(1)))).message).toMatch(/^header names "a" twice/);
  });
  it('a 122-byte file declaring the largest model does not allocate it', () => {
    const config = JSON.stringify({ n_layer: 12, n_head: 16, n_embd: 512, block_size: 256, vocab_size: 4096 });
    const file = raw(JSON.stringify({ __metadata__: { config } }), new Uint8Array(0));
    expect(file.length).toBeLessThan(130);
    const Real = globalThis.Float32Array;
    let biggest = 0;
    globalThis.Float32Array = new Proxy(Real, { construct(t, args) { if (typeof args[0] === 'number') biggest = Math.max(biggest, args[0]); return Reflect.construct(t, args); } });
    let e: unknown;
    try { readCheckpoint(file); } catch (x) { e = x; } finally { globalThis.Float32Array = Real; }
    expect(e).toBeInstanceOf(SafetensorsError);
    expect((e as Error).message).toBe('tensor "transformer.wte.weight" is missing');
    expect(biggest).toBeLessThan(1024);
  });
});
