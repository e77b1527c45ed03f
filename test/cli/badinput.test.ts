// Bad input to the CLI: exit code 2, one line on stderr naming the problem, no stack trace.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../../src/model/checkpoint';
import { initParams, type GPTConfig } from '../../src/model/params';
import { gspo, tempDir } from './run';
import { LOSS_IDS } from '../../src/contract/losses';

const config: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 8, blockSize: 6, vocabSize: 5 };
let dir = '';
let good = '';

/** Assembles a safetensors file by hand (independent of the project's writer). */
function rawFile(header: Record<string, unknown>, data: Uint8Array, headerLen?: bigint): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, headerLen ?? BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

function expectBadInput(args: string[], pattern: RegExp): void {
  const r = gspo(args);
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines.length, r.stderr).toBe(1);
  expect(lines[0]).toMatch(/^gspo: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe('');
}

function withFile(name: string, bytes: Uint8Array | string): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

beforeAll(() => {
  dir = tempDir();
  good = withFile('good.safetensors', writeCheckpoint({ config, weights: initParams(config, 1), vocab: null, extras: {} }));
});

describe('malformed checkpoints are rejected whole, naming the problem', () => {
  const lp = (p: string) => ['logprobs', '--checkpoint', p, '--tokens', '1,2', '--backend', 'cpu'];
  it('a good file works (the control)', () => {
    const r = gspo(lp(good));
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.logprobs).toHaveLength(1);
  });
  it('truncated', async () => {
    const bytes = (await import('node:fs')).readFileSync(good);
    expectBadInput(lp(withFile('trunc.safetensors', bytes.subarray(0, bytes.length - 100))), /outside|truncat|beyond|past the end/i);
  });
  it('absurd header length', () => {
    expectBadInput(lp(withFile('hdr.safetensors', rawFile({}, new Uint8Array(0), 1n << 40n))), /header/i);
  });
  it('wrong dtype', () => {
    const cfg = JSON.stringify({ n_layer: 1, n_head: 2, n_embd: 8, block_size: 6, vocab_size: 5 });
    expectBadInput(lp(withFile('dtype.safetensors', rawFile({ __metadata__: { config: cfg }, 'transformer.wte.weight': { dtype: 'F16', shape: [5, 8], data_offsets: [0, 80] } }, new Uint8Array(80)))), /F16/);
  });
  it('missing tensor', () => {
    const cfg = JSON.stringify({ n_layer: 1, n_head: 2, n_embd: 8, block_size: 6, vocab_size: 5 });
    expectBadInput(lp(withFile('missing.safetensors', rawFile({ __metadata__: { config: cfg }, 'transformer.wte.weight': { dtype: 'F32', shape: [5, 8], data_offsets: [0, 160] } }, new Uint8Array(160)))), /transformer\.wpe\.weight.*missing/);
  });
  it('wrong shape', () => {
    const cfg = JSON.stringify({ n_layer: 1, n_head: 2, n_embd: 8, block_size: 6, vocab_size: 5 });
    expectBadInput(lp(withFile('shape.safetensors', rawFile({ __metadata__: { config: cfg }, 'transformer.wte.weight': { dtype: 'F32', shape: [8, 5], data_offsets: [0, 160] } }, new Uint8Array(160)))), /wte\.weight.*shape \[8,5\].*expected \[5,8\]/);
  });
  it('offsets outside the file', () => {
    expectBadInput(lp(withFile('offsets.safetensors', rawFile({ 'transformer.wte.weight': { dtype: 'F32', shape: [5, 8], data_offsets: [0, 160] } }, new Uint8Array(40)))), /outside|beyond|past/i);
  });
  it('bad config', () => {
    const cfg = JSON.stringify({ n_layer: 1, n_head: 3, n_embd: 8, block_size: 6, vocab_size: 5 });
    expectBadInput(lp(withFile('config.safetensors', rawFile({ __metadata__: { config: cfg } }, new Uint8Array(0)))), /divisible by nHead/);
    expectBadInput(lp(withFile('noconfig.safetensors', rawFile({}, new Uint8Array(0)))), /config is missing/);
  });
  it('a file that does not exist', () => {
    expectBadInput(lp(join(dir, 'nope.safetensors')), /does not exist/);
  });
});

describe('bad tokens and flags', () => {
  const base = () => ['logprobs', '--checkpoint', good, '--backend', 'cpu'];
  it('out of the vocabulary', () => expectBadInput([...base(), '--tokens', '1,5'], /entry 1 \(5\) is outside the vocabulary \[0, 5\)/));
  it('longer than block_size', () => expectBadInput([...base(), '--tokens', '1,1,1,1,1,1,1'], /7 tokens is more than block_size 6/));
  it('not numbers', () => expectBadInput([...base(), '--tokens', '1,x'], /"x".*not an integer/));
  it('unknown flag, missing value, unknown command, unknown backend', () => {
    expectBadInput([...base(), '--tokens', '1', '--frobnicate', '3'], /unknown flag --frobnicate/);
    expectBadInput(['logprobs', '--checkpoint'], /--checkpoint needs a value/);
    expectBadInput(['fly'], /unknown command "fly"/);
    expectBadInput(['logprobs', '--checkpoint', good, '--tokens', '1', '--backend', 'tpu'], /--backend must be webgpu, cpu \(the CPU engine: WebAssembly SIMD on every core; wasm is the same\) or reference/);
  });
  it('bad batch files name the field', () => {
    const b = (o: unknown) => ['grad', '--checkpoint', good, '--backend', 'cpu', '--batch', withFile('b.json', JSON.stringify(o))];
    const seq = { tokens: [1, 2, 3], mask: [0, 1, 1], old_logprobs: [0, -1, -1], episode: 0, group: 0, reward: 1 };
    expectBadInput(b({ algorithm: 'ppo', sequences: [seq] }), new RegExp(`algorithm must be one of ${LOSS_IDS.join(', ')}; got "ppo"`));
    expectBadInput(b({ sequences: [{ ...seq, mask: [0, 1] }] }), /sequences\[0\]\.mask has 2 entries, expected 3/);
    expectBadInput(b({ sequences: [{ ...seq, tokens: [1, 9, 3] }] }), /sequences\[0\]\.tokens\[1\] = 9/);
    expectBadInput(b({ beta: 0.1, sequences: [seq] }), /ref_logprobs is required when beta > 0/);
    expectBadInput(b({ sequences: [seq], lr: 3 }), /unknown key "lr"/);
    expectBadInput(['grad', '--checkpoint', good, '--backend', 'cpu', '--batch', withFile('c.json', '{not json')], /not valid JSON/);
  });
  it('robustness and study name what is wrong before anything runs', () => {
    expectBadInput(['robustness', '--grid', 'clean,loud', '--out', join(dir, 'r')], /--grid must be clean, noisy, length or a comma list of them; got "clean,loud"/);
    expectBadInput(['study', 'weather', '--out', join(dir, 's')], /unknown study "weather"; studies: dual-static, scouts, philosophers/);
    expectBadInput(['study', 'dual-static', '--budgets', '1,-2', '--out', join(dir, 's')], /--budgets: entry 2 \("-2"\)/);
    expectBadInput(['study', 'scouts', '--scouts', '1,9', '--out', join(dir, 's')], /--scouts: entry 2 \("9"\)/);
  });
});
