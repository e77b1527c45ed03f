// The first screen: a picture of the task beside the chart (agents, what each
// knows, the channel, the reward, one live episode), per environment from the
// run's config; preset names that fit their dropdown.
import { describe, expect, it } from 'vitest';
import { findPreset, PRESETS, presetConfig } from '../../src/envs/presets';
import type { Transcripts as T } from '../../src/worker/protocol';
import { Inspector } from '../../src/ui/Inspector';
import { PresetPicker, presetOptionLabel } from '../../src/ui/PresetPicker';
import { taskPicture } from '../../src/ui/taskPicture';
import { TaskCard } from '../../src/ui/TaskCard';
import { render, text } from './render';

const cfg = (name: string) => presetConfig(findPreset(name));

describe('the task picture', () => {
  it('noisy relay: the Scout sees the secret, the channel erases each token with probability eps, the Solver answers the digit', () => {
    const t = text(render(Inspector, { preset: 'relay-noisy', config: cfg('relay-noisy') }));
    expect(t).toMatch(/The task: Relay/);
    expect(t).toMatch(/Scout: knows the 3-digit secret, which digit is asked/);
    expect(t).toMatch(/Solver: knows the question .* answers the asked digit/);
    expect(t).toMatch(/each message token is erased with probability eps = 0\.3/);
    expect(t).toMatch(/minus lambda_tok = 0\.1 per message token/);
    expect(t).toMatch(/Press Step or Start to see an episode/);
  });
  it('clean relay: the channel is clean; four Scouts each hold a part', () => {
    expect(taskPicture(cfg('relay-silence')).channel).toMatch(/clean channel/);
    expect(taskPicture(cfg('relay-scouts')).agents[0].name).toBe('4 Scouts');
  });
  it('addition: the frozen Actor and the trainable Collaborator', () => {
    const t = text(render(TaskCard, { preset: 'agentpo-hint', config: cfg('agentpo-hint') }));
    expect(t).toMatch(/Actor: knows the problem a \+ b .* frozen/);
    expect(t).toMatch(/Collaborator \(hint writer\): .* \(trained\)/);
    expect(taskPicture(cfg('agentpo-critic')).agents[1].name).toBe('Collaborator (critic)');
  });
  it('philosophers: the table, the forks, the messages', () => {
    const t = text(render(TaskCard, { preset: 'philosophers-fixed', config: cfg('philosophers-fixed') }));
    expect(t).toMatch(/3 at a round table/);
    expect(t).toMatch(/a fork lies between each pair of neighbours \(3 forks\); messages go to the two neighbours/);
  });
  it('shows the last step\'s first episode with its tokens and reward', () => {
    const transcripts: T = { eval: null, train: { step: 6, total: 256, episodes: [{
      episode: 0, score: { rTask: 1, extras: {} }, reward: { reward: 0.8, rTask: 1, tokens: 2, turns: 1, repetition: 0 }, lines: [],
      turns: [
        { role: 'scout', turn: 0, agent: 0, message: true, ids: [], tokens: ['4', '4', 'EOS'], logp: [-0.1, -0.2, -0.05], silent: false },
        { role: 'solver', turn: 1, agent: 0, message: false, ids: [], tokens: ['4', 'EOS'], logp: [-0.01, -0.01], silent: false },
      ] }] } };
    const t = text(render(TaskCard, { config: cfg('relay-silence'), transcripts }));
    expect(t).toMatch(/Now, one episode of step 7 scout 4 4 EOS solver 4 EOS right \(r_task 1\) · 2 tokens · reward 0\.8/);
  });
});

describe('preset names in the dropdown', () => {
  it('each option names its preset without the environment (chosen above) in at most 34 characters', () => {
    for (const p of PRESETS) {
      const label = presetOptionLabel(p);
      expect(label.length, p.name).toBeLessThanOrEqual(34);
      expect(label, p.name).not.toMatch(/^(Relay|AgentPO|Dining philosophers):/);
    }
    expect(presetOptionLabel(findPreset('relay-silence'))).toBe('strategic silence (GSPO)');
  });
  it('the preset field puts its label above the dropdown, which takes the column\'s width', () => {
    const h = render(PresetPicker);
    expect(h).toMatch(/<div class="field stacked"><label[^>]*>Preset<\/label><select/);
    expect(h).toMatch(/<option value="relay-silence" title="Relay: strategic silence \(GSPO\)"[^>]*>strategic silence \(GSPO\)<\/option>/);
  });
});
