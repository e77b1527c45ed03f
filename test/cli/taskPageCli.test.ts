// The same task, seed and settings give the same run on the page and in the CLI, on the CPU engine:
// the page's trainer worker (TrainerApi, as the page drives it: init with the run's taskCode, then steps)
// against `train --task FILE --backend cpu`, one thread each. The CLI is the independent path here: its own
// process, its own file reading, its own preset registration and warm start. One kernel build on both sides: the CLI
// runs the fused build (as the page does in Chromium), this test's Node only the plain one, so the CLI is told
// GSPO_KERNELS=simd (fused multiply-adds round differently, and a run's bits follow).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/model/checkpoint';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { TrainerApi } from '../../src/worker/trainerApi';
import { copyTask } from '../fixtures/copyTask';
import { gspo, tempDir } from './run';

const CODE = copyTask({ settings: '{ steps: 3, evalEvery: 1, evalEpisodes: 16, groupSize: 4, promptsPerStep: 4, minibatches: 2, nEmbd: 32 }', pretrainSteps: 12 });

let api: TrainerApi | null = null;
afterEach(async () => { await api?.destroy(); api = null; });

describe('a task of your own: the page and the CLI', () => {
  it('give the same run bit for bit on the CPU engine: evals and final weights', async () => {
    const path = join(tempDir(), 'copy.js');
    writeFileSync(path, CODE);
    const out = join(tempDir(), 'cli');
    const r = gspo(['train', '--task', path, '--backend', 'cpu', '--threads', '1', '--no-recipe', '--out', out], { GSPO_THREADS: '1', GSPO_KERNELS: 'simd' });
    expect(r.code, r.stderr).toBe(0);
    const cliEvals = readFileSync(join(out, 'evals.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { step: number; accuracy: number; tokens: number });
    const cliWeights = readCheckpoint(readFileSync(join(out, 'last.safetensors'))).weights;

    api = new TrainerApi(async () => new WasmBackend(), async () => null, async () => ({ ok: false, reason: 'test: no adapter' }));
    await api.init('task-copy', { taskCode: CODE } as never);
    await api.step(3);
    const s = await api.getState();
    expect(s.stepCount).toBe(3);
    expect(s.evals.map((e) => [e.step, e.accuracy, e.tokens])).toEqual(cliEvals.map((e) => [e.step, e.accuracy, e.tokens]));
    const pageWeights = readCheckpoint(await api.exportCheckpoint('last')).weights;
    expect(pageWeights.length).toBe(cliWeights.length);
    expect(Buffer.from(pageWeights.buffer).equals(Buffer.from(cliWeights.buffer))).toBe(true); // bit for bit
    expect(cliEvals.length).toBeGreaterThan(1);
  }, 240_000);
});
