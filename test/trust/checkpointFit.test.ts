// Finding 1: one "does this checkpoint fit" check, by shapes AND by the env settings
// the checkpoint records; used by warm starts, loadCheckpoint, run import and CLI eval.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/config';
import { findPreset, presetConfig, presetSlots, PRESETS } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { readCheckpoint, writeCheckpoint } from '../../src/model/checkpoint';
import { initParams, type GPTConfig } from '../../src/model/params';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { fitCheckpoint, warmStarts } from '../../src/rl/warmStart';
import { checkRunCheckpoint } from '../../src/store/runFile';
import { TrainerApi } from '../../src/worker/trainerApi';
import { gspo, ROOT, tempDir } from '../cli/run';

const shipped = (file: string) => new Uint8Array(readFileSync(join(ROOT, 'public/checkpoints', file)));
const relay = (over: Record<string, unknown> = {}) => { const c = presetConfig(findPreset('relay-silence'), over); return { c, env: createEnv(c) }; };

describe('checkpoint fit (finding 1)', () => {
  it('the shipped relay warm start does not fit relay with 4 digits, and says why', () => {
    const { c, env } = relay({ digits: 4 });
    // the shapes alone fit (the bug: it loaded silently)
    const ck = readCheckpoint(shipped('relay-warm.safetensors'));
    expect([ck.config.blockSize, ck.config.vocabSize]).toEqual([env.blockSize, env.vocab.length]);
    const fit = fitCheckpoint(shipped('relay-warm.safetensors'), 'relay-warm.safetensors', c, env, { slot: 'policy', demo: { demoSilence: 0.1, flagAwareDemos: true } });
    expect(fit).toEqual({ why: 'relay-warm.safetensors: it was made for digits 3; the run has digits 4' });
  });

  it('other task options are recorded too (channelNoise; philosophers; topology; maxMessage changes the shapes as well)', () => {
    const { c: noisy, env: noisyEnv } = relay({ channelNoise: 0.2 });
    expect(fitCheckpoint(shipped('relay-warm.safetensors'), 'f', noisy, noisyEnv, { slot: 'policy' })).toEqual({ why: 'f: it was made for channelNoise 0; the run has channelNoise 0.2' });
    const { c: short, env: shortEnv } = relay({ maxMessage: 5 });
    expect(fitCheckpoint(shipped('relay-warm.safetensors'), 'f', short, shortEnv, { slot: 'policy' })).toMatchObject({ why: expect.stringMatching(/block_size 24/) });
    const phil = presetConfig(findPreset('philosophers-fixed'), { philosophers: 5 });
    expect(fitCheckpoint(shipped('philosophers-warm.safetensors'), 'f', phil, createEnv(phil), { slot: 'policy' })).toEqual({ why: 'f: it was made for philosophers 3; the run has philosophers 5' });
    const critic = presetConfig(findPreset('agentpo-critic'));
    expect(fitCheckpoint(shipped('agentpo-hint-collaborator.safetensors'), 'f', critic, createEnv(critic), { slot: 'collaborator' })).toMatchObject({ why: expect.stringMatching(/topology hint; the run has topology critic/) });
    // the Actor's demonstrations are the same in every topology: its warm start fits both
    expect(fitCheckpoint(shipped('addition-actor.safetensors'), 'f', critic, createEnv(critic), { slot: 'actor' })).toHaveProperty('weights');
    // another slot's warm start, or other demonstrations, do not fit
    expect(fitCheckpoint(shipped('addition-actor.safetensors'), 'f', critic, createEnv(critic), { slot: 'collaborator' })).toMatchObject({ why: expect.stringMatching(/actor/) });
    const { c, env } = relay();
    expect(fitCheckpoint(shipped('relay-warm-never-silent.safetensors'), 'f', c, env, { slot: 'policy', demo: { demoSilence: 0.1, flagAwareDemos: true } })).toMatchObject({ why: expect.stringMatching(/demoSilence 0, wanted 0\.1/) });
  });

  it('every shipped warm start carries the record and fits every preset slot that names it, as shipped', () => {
    for (const p of PRESETS) {
      const config = presetConfig(p), env = createEnv(config);
      for (const [slot, spec] of Object.entries(presetSlots(p))) {
        const bytes = shipped(spec.warmStart.file);
        const extras = readCheckpoint(bytes).extras;
        expect(extras.env, spec.warmStart.file).toBe(config.env);
        expect(typeof extras.env_options, spec.warmStart.file).toBe('string');
        const fit = fitCheckpoint(bytes, spec.warmStart.file, config, env, { slot, demo: spec.warmStart.demo });
        expect(fit, `${p.name} ${slot}`).toHaveProperty('weights');
        expect((fit as { notice: string | null }).notice).toBeNull();
      }
    }
  });

  it('a checkpoint without the record still fits where its shapes do, with a notice', () => {
    const { c, env } = relay();
    const ck = readCheckpoint(shipped('relay-warm.safetensors'));
    const bare = writeCheckpoint({ config: ck.config, weights: ck.weights, vocab: null, extras: {} });
    const fit = fitCheckpoint(bare, 'torch.safetensors', c, env);
    expect(fit).toMatchObject({ notice: expect.stringMatching(/^torch\.safetensors: it has no record of the environment settings/) });
  });

  it('a mismatching warm start is replaced by one pretrained on the spot, with progress', async () => {
    const over = { digits: 4, nLayer: 1, nHead: 2, nEmbd: 16 };
    const { c, env } = relay(over);
    const tiny: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: env.blockSize, vocabSize: env.vocab.length };
    const recorded = writeCheckpoint({ config: tiny, weights: initParams(tiny, 1), vocab: [...env.vocab], extras: { env: 'relay', env_options: JSON.stringify({ digits: 3, maxMessage: 8, channelNoise: 0, scouts: 1 }) } });
    const messages: string[] = [];
    const backend = new CpuBackend();
    try {
      // the 3-digit file for every name: neither it nor a variant fits, so one is made here
      const w = await warmStarts(backend, findPreset('relay-silence'), c, env, async () => recorded, 2, (m) => messages.push(m));
      expect(messages[0]).toBe('warm start: relay-warm.safetensors: it was made for digits 3; the run has digits 4; nor does a shipped variant (relay-warm-digits4.safetensors, relay-warm-digits5.safetensors); pretraining until held-out greedy accuracy reaches 0.95 and, at temperature 1, it samples what its demonstrations hold (checked every 200 steps, at most 2) on the demonstrations');
      expect(messages.some((m) => /pretraining step 2\/2/.test(m))).toBe(true);
      expect(w.source).toMatch(/^2 pretraining steps here/);
    } finally {
      backend.destroy();
    }
  });

  it('the worker, the store and the CLI reject a checkpoint recorded for 3 digits in a 4-digit run', async () => {
    const over: Partial<RunConfig> = { digits: 4, nLayer: 1, nHead: 2, nEmbd: 16, evalEpisodes: 8 };
    const { c, env } = relay(over);
    const tiny: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: env.blockSize, vocabSize: env.vocab.length };
    const bytes = writeCheckpoint({ config: tiny, weights: initParams(tiny, 2), vocab: [...env.vocab], extras: { env: 'relay', env_options: JSON.stringify({ digits: 3, maxMessage: 8 }) } });
    // store: run import
    expect(() => checkRunCheckpoint(bytes, c, 'w.safetensors')).toThrow(/^w\.safetensors was not imported: it was made for digits 3; the run has digits 4$/);
    // worker: loadCheckpoint into a 4-digit run (the checkpoint has no run_config, so the run's is used)
    const api = new TrainerApi(async () => new CpuBackend(), async () => null);
    try {
      await api.init('relay-silence', over, { warmStartSteps: 1 });
      await expect(api.loadCheckpoint(bytes)).rejects.toThrow(/^checkpoint rejected: it was made for digits 3; the run has digits 4$/);
    } finally {
      await api.destroy();
    }
    // CLI: eval exits 2 naming the option
    const path = join(tempDir(), 'three.safetensors');
    (await import('node:fs')).writeFileSync(path, bytes);
    const r = gspo(['eval', '--preset', 'relay-silence', '--checkpoint', path, '--set', 'digits=4', '--backend', 'cpu']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toMatch(/^gspo: checkpoint ".*three\.safetensors" does not fit relay-silence: it was made for digits 3; the run has digits 4$/);
  });
});
