// One token count per episode (the reward's: message tokens, EOS not
// counted), and a word on why a failed episode can have a positive advantage.
import { describe, expect, it } from 'vitest';
import type { StepAnatomy as Anatomy, Transcripts as T } from '../../src/worker/protocol';
import { StepAnatomy } from '../../src/ui/StepAnatomy';
import { Transcripts } from '../../src/ui/Transcripts';
import { render, text } from './render';

// a group of two: the Scout sent 8 digits then EOS (9 sampled tokens; the reward counts 8) and failed; the other
// episode failed with more tokens, so the group's mean reward (-0.9) is below this one's (-0.8)
const anatomy: Anatomy = {
  step: 0, group: 0, groups: 1, groupSize: 2, algorithm: 'gspo', advantageMode: 'group', epsLow: 0.0003, epsHigh: 0.0004,
  weights: { lambdaTok: 0.1, lambdaTurn: 0, lambdaRep: 0 }, mean: -0.9, std: 0.1414, batchStd: 0.1414, stdEps: 1e-4, zeroStd: false,
  episodes: [
    { episode: 0, lines: [], reward: { reward: -0.8, rTask: 0, tokens: 8, turns: 1, repetition: 0 }, rEnv: 0, rEnvName: 'r_task', advantage: 0.7066, sequences: [
      { role: 'scout', turn: 0, tokens: ['1', '2', '3', '1', '2', '3', '1', '2', 'EOS'], length: 9, logRatio: 0, ratio: 1, tokenRatios: Array(9).fill(1), clipped: false, clippedTokens: 0, loss: -0.7066 }] },
    { episode: 1, lines: [], reward: { reward: -1, rTask: 0, tokens: 10, turns: 1, repetition: 0 }, rEnv: 0, rEnvName: 'r_task', advantage: -0.7066, sequences: [
      { role: 'scout', turn: 0, tokens: [...'1231231231'.split(''), 'EOS'], length: 11, logRatio: 0, ratio: 1, tokenRatios: Array(11).fill(1), clipped: false, clippedTokens: 0, loss: 0.7066 }] },
  ],
  ratioNote: '',
};

describe('the anatomy counts tokens once, as the reward does', () => {
  const t = text(render(StepAnatomy, { anatomy, trainer: null }));
  it('the episode is 8 tokens in the table and nowhere "9 tokens"', () => {
    expect(t).toMatch(/1 0 8 -0\.8 0\.7066 1 no -0\.7066 scout: 1 2 3 1 2 3 1 2 EOS/);
    expect(t).not.toMatch(/9 tokens?/);
    expect(t).toMatch(/\|y i \| = 9: every sampled position, EOS included/); // the length GSPO divides by, named as such
  });
});

describe('the anatomy names the overlong term when the shaping is on', () => {
  // the first episode's 9 sampled tokens under a limit of 9 with L_cache 4: overlong 1, penalty 0.5: -0.8 - 0.5 = -1.3
  const shaped: Anatomy = {
    ...anatomy, weights: { ...anatomy.weights, overlongCache: 4, overlongPenalty: 0.5 },
    episodes: anatomy.episodes.map((e, i) => (i === 0 ? { ...e, reward: { ...e.reward, overlong: 1, reward: -1.3 } } : e)),
  };
  it('in the reward formula and in each episode\'s numbers; absent when off', () => {
    const t = text(render(StepAnatomy, { anatomy: shaped, trainer: null }));
    expect(t).toMatch(/− 0\.5·overlong \(DAPO's soft punishment: per message turn, 0 up to L_max − 4 tokens/);
    expect(t).toMatch(/= 0 − 0\.1 × 8 − 0\.5 × 1 = -1\.3/);
    expect(text(render(StepAnatomy, { anatomy, trainer: null }))).not.toMatch(/overlong/);
  });
});

describe('the anatomy says whether dynamic sampling kept the group', () => {
  it('kept, or left the loss for having no signal', () => {
    expect(text(render(StepAnatomy, { anatomy: { ...anatomy, inLoss: [true] }, trainer: null }))).toMatch(/group 1 \(in the loss: dynamic sampling kept it\)/);
    const flat = { ...anatomy, zeroStd: true, inLoss: [false] };
    expect(text(render(StepAnatomy, { anatomy: flat, trainer: null }))).toMatch(/\(no signal\) \(left the loss: dynamic sampling drops groups whose rewards are all equal\)/);
    expect(text(render(StepAnatomy, { anatomy, trainer: null }))).not.toMatch(/dynamic sampling/);
  });
});

const transcripts = (rTask: number, reward: number, advantage: number): T => ({
  eval: null,
  train: { step: 0, total: 2, episodes: [{
    episode: 0, group: 0, advantage, score: { rTask, extras: {} }, reward: { reward, rTask, tokens: 8, turns: 1, repetition: 0 },
    lines: [{ role: 'scout', text: '1 2 3 1 2 3 1 2', generated: true, tokens: [] }],
    turns: [{ role: 'scout', turn: 0, agent: 0, message: true, ids: [], tokens: ['1', '2', '3', '1', '2', '3', '1', '2', 'EOS'], logp: Array(9).fill(-0.1), silent: false }],
  }] },
});

describe('transcripts', () => {
  it('a failure with a positive advantage says its group did worse', () => {
    const h = render(Transcripts, { transcripts: transcripts(0, -0.8, 0.7066) });
    const t = text(h);
    expect(h).toMatch(/class="episode failure"/);
    expect(t).toMatch(/failure · 8 tokens · reward -0\.8 · advantage 0\.707 \(its group's mean reward was lower\)/);
    expect(t).toMatch(/Failed, yet its advantage is positive: its group's mean reward was lower than this episode's -0\.8/);
    expect(t).toMatch(/tokens 8 /);
    expect(t).not.toMatch(/9 tokens/);
  });
  it('a failure with a negative advantage needs no note', () => {
    const t = text(render(Transcripts, { transcripts: transcripts(0, -1, -0.7) }));
    expect(t).not.toMatch(/Failed, yet|mean reward was lower/);
  });
});
