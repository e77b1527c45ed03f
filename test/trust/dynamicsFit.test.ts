// Task options against dynamics: relay's channel noise changes only how many message
// tokens are erased, not what the policy reads or writes, so a warm start made on
// demonstrations across a range of eps fits a run at any eps in that range (and
// only there), while every option that changes contexts or messages must match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig, presetSlots } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { createRelay, RELAY_ID } from '../../src/envs/relay';
import { readCheckpoint, writeCheckpoint } from '../../src/model/checkpoint';
import { initParams, type GPTConfig } from '../../src/model/params';
import { envRecord } from '../../src/rl/checkpointFit';
import { fitCheckpoint } from '../../src/rl/warmStart';
import { ROOT } from '../cli/run';

const noisy = (over: Record<string, unknown> = {}) => { const c = presetConfig(findPreset('relay-noisy-dr'), over); return { c, env: createEnv(c) }; };
const demo = presetSlots(findPreset('relay-noisy-dr')).policy.warmStart.demo;

/** A tiny checkpoint recorded as made at `eps` on demos across [lo, hi]. */
function recorded(eps: number, range: [number, number] | null, over: Record<string, unknown> = {}) {
  const { c, env } = noisy({ channelNoise: eps, nLayer: 1, nHead: 2, nEmbd: 16, ...over });
  const tiny: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: env.blockSize, vocabSize: env.vocab.length };
  const d = range ? { ...demo, demoNoise: range } : { ...demo, demoNoise: undefined };
  return writeCheckpoint({ config: tiny, weights: initParams(tiny, 1), vocab: [...env.vocab], extras: envRecord(c, 'policy', d) });
}

describe('dynamics options fit across their recorded range', () => {
  const at = (eps: number, over: Record<string, unknown> = {}) => { const { c, env } = noisy({ channelNoise: eps, nLayer: 1, nHead: 2, nEmbd: 16, ...over }); return { c, env }; };

  it('a warm start made across eps 0 to 0.5 fits 0.1, 0.3 and 0.5, and not 0.6 (saying why)', () => {
    const ck = recorded(0.3, [0, 0.5]);
    expect(readCheckpoint(ck).extras.dynamics).toBe('{"channelNoise":[0,0.5]}');
    for (const eps of [0, 0.1, 0.3, 0.5]) {
      const { c, env } = at(eps);
      expect(fitCheckpoint(ck, 'w', c, env, { slot: 'policy', demo: { ...demo } }), `eps ${eps}`).toHaveProperty('weights');
    }
    const { c, env } = at(0.6);
    expect(fitCheckpoint(ck, 'w', c, env, { slot: 'policy' })).toEqual({ why: 'w: it was made for channelNoise 0 to 0.5; the run has channelNoise 0.6' });
  });

  it('without a range the recorded eps must match exactly; options that change contexts must match in any case', () => {
    const ck = recorded(0.3, null);
    const { c, env } = at(0.2);
    expect(fitCheckpoint(ck, 'w', c, env, { slot: 'policy' })).toEqual({ why: 'w: it was made for channelNoise 0.3; the run has channelNoise 0.2' });
    const ranged = recorded(0.3, [0, 0.5]);
    const four = at(0.3, { digits: 4 });
    expect(fitCheckpoint(ranged, 'w', four.c, four.env, { slot: 'policy' })).toMatchObject({ why: expect.stringMatching(/digits 3; the run has digits 4/) });
  });

  it('a malformed dynamics record is refused', () => {
    const { c, env } = at(0.3);
    const tiny: GPTConfig = { nLayer: 1, nHead: 2, nEmbd: 16, blockSize: env.blockSize, vocabSize: env.vocab.length };
    const bad = writeCheckpoint({ config: tiny, weights: initParams(tiny, 1), vocab: [...env.vocab], extras: { ...envRecord(c, 'policy'), dynamics: '[1,2]' } });
    expect(fitCheckpoint(bad, 'w', c, env, { slot: 'policy' })).toEqual({ why: 'w: its __metadata__.dynamics is not a JSON object' });
  });

  it('the shipped noisy warm start fits the noisy presets at any eps in [0.1, 0.5] as shipped (no pretraining)', () => {
    const bytes = new Uint8Array(readFileSync(join(ROOT, 'public/checkpoints/relay-noisy-warm.safetensors')));
    for (const eps of [0.1, 0.25, 0.3, 0.42, 0.5]) {
      const { c, env } = noisy({ channelNoise: eps });
      expect(fitCheckpoint(bytes, 'w', c, env, { slot: 'policy', demo }), `eps ${eps}`).toHaveProperty('weights');
    }
  });
});

describe('demonstrations across a range of channels', () => {
  /** The share of erased tokens the Solver demos read. */
  function erasedShare(env: ReturnType<typeof createRelay>): number {
    let masked = 0, tokens = 0;
    for (const d of env.demonstrations(4000, 1)) {
      const first = d.target.indexOf(1);
      const ctx = d.tokens.slice(0, first);
      const sep = ctx.indexOf(RELAY_ID.SEP);
      if (sep < 0) continue;
      const msg = ctx.slice(sep + 1, -1);
      masked += msg.filter((x) => x === RELAY_ID.MASK).length;
      tokens += msg.length;
    }
    return masked / tokens;
  }
  const base = { demoCopies: 6, demoSilence: 0.1, flagAwareDemos: true };
  it('erase near the middle of the range on average (eps uniform in [0, 0.5]: 0.25; fewer where total erasure drops a demo)', () => {
    const share = erasedShare(createRelay({ ...base, channelNoise: 0.3, demoNoise: [0, 0.5] }));
    expect(share).toBeGreaterThan(0.19);
    expect(share).toBeLessThan(0.27);
    const fixed = erasedShare(createRelay({ ...base, channelNoise: 0.3, demoNoise: [0.1, 0.1] }));
    expect(fixed).toBeGreaterThan(0.08);
    expect(fixed).toBeLessThan(0.12);
  });
  it('a bad range is refused', () => {
    expect(() => createRelay({ demoNoise: [0.5, 0.1] })).toThrow(/demoNoise must be \[lo, hi\]/);
    expect(() => createRelay({ demoNoise: [0, 0.95] })).toThrow(/demoNoise/);
  });
});
