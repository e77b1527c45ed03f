// Finite inputs whose magnitude overflows float32 arithmetic
// are refused at the boundary naming the tensor or field, and no command prints a non-finite
// result (JSON's null) with exit 0.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint, writeCheckpoint } from '../../src/model/checkpoint';
import { initParams, paramSpecs, type GPTConfig } from '../../src/model/params';
import { parseBatchFile } from '../../src/rl/batch';
import { SafetensorsError } from '../../src/model/safetensors';
import { InputError } from '../../src/contract/errors';
import { gspo, tempDir } from '../cli/run';

const config: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 8, blockSize: 6, vocabSize: 5 };
const seq = (tokens: number[], episode: number, reward: number) => ({ tokens, mask: tokens.map((_, i) => (i === 0 ? 0 : 1)), old_logprobs: tokens.map(() => -1), episode, group: 0, reward });
const batch = (rewards: number[]) => ({ sequences: rewards.map((r, i) => seq([1, 2, 3], i, r)) });
let dir = '';
beforeAll(() => { dir = tempDir(); });

function checkpointWith(edit: (w: Float32Array) => void): Uint8Array {
  const weights = initParams(config, 1);
  edit(weights);
  return writeCheckpoint({ config, weights, vocab: null, extras: {} });
}
const wte = paramSpecs(config).specs.find((s) => s.name === 'transformer.wte.weight')!;

describe('weights too large for float32 arithmetic are refused, naming the tensor', () => {
  it('an embedding of 3e38 everywhere', () => {
    const bytes = checkpointWith((w) => w.fill(3e38, wte.offset, wte.offset + wte.size));
    expect(() => readCheckpoint(bytes)).toThrow(SafetensorsError);
    expect(() => readCheckpoint(bytes)).toThrow(/tensor "transformer\.wte\.weight" holds 3\.\d+e\+38 at index 0: beyond \+-10000/);
  });
  it('every weight times 1e18: the first tensor with one is named', () => {
    const bytes = checkpointWith((w) => { for (let i = 0; i < w.length; i++) w[i] *= 1e18; });
    expect(() => readCheckpoint(bytes)).toThrow(/beyond \+-10000/);
  });
  it('the shipped scale reads (the control)', () => {
    expect(readCheckpoint(checkpointWith(() => {})).config).toEqual(config);
  });
});

describe('batch values too large are refused, naming the field', () => {
  it('rewards of 1e308', () => {
    expect(() => parseBatchFile(batch([1e308, 0]), 5, 6)).toThrow(InputError);
    expect(() => parseBatchFile(batch([0, 1e308]), 5, 6)).toThrow(/sequences\[1\]\.reward is 1e\+308, beyond \+-1000000/);
  });
  it('a log-prob of -1e30', () => {
    const b = batch([0, 1]);
    b.sequences[0].old_logprobs[2] = -1e30;
    expect(() => parseBatchFile(b, 5, 6)).toThrow(/sequences\[0\]\.old_logprobs\[2\] is -1e\+30, beyond/);
  });
});

describe('grad: exit 2 naming the tensor, never null with exit 0', () => {
  const run = (ck: Uint8Array, b: object) => {
    const c = join(dir, `ck-${Math.random()}.safetensors`), f = join(dir, `b-${Math.random()}.json`);
    writeFileSync(c, ck);
    writeFileSync(f, JSON.stringify(b));
    return gspo(['grad', '--checkpoint', c, '--batch', f, '--backend', 'cpu']);
  };
  it('3e38 embeddings', () => {
    const r = run(checkpointWith((w) => w.fill(3e38, wte.offset, wte.offset + wte.size)), batch([0, 1]));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/transformer\.wte\.weight/);
    expect(r.stdout).toBe('');
  }, 60_000);
  it('rewards of 1e308', () => {
    const r = run(checkpointWith(() => {}), batch([1e308, 0]));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/sequences\[0\]\.reward/);
  }, 60_000);
  it('random weights scaled to the bound: whatever grad prints is finite', () => {
    const r = run(checkpointWith((w) => {
      let m = 0;
      for (const x of w) m = Math.max(m, Math.abs(x));
      for (let i = 0; i < w.length; i++) w[i] = Math.fround((w[i] / m) * 9999);
    }), batch([0, 1]));
    if (r.code === 0) {
      for (const [k, v] of Object.entries(r.json)) if (k !== 'backend') expect(Number.isFinite(v), `${k} = ${v}`).toBe(true);
    } else {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^gspo: grad: \w+ is (NaN|-?Infinity) .*overflow float32/);
    }
    expect(r.stdout).not.toMatch(/null/);
  }, 60_000);
});
