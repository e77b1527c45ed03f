// The controls: every control has an accessible name equal to its visible
// label; the names the issue fixes ("lambda_tok", "Group size", Start, ...)
// are there; the parameter count matches the model's parameter layout.
import { describe, expect, it } from 'vitest';
import { presetConfig, findPreset } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { MetricsHub } from '../../src/store/metricsHub';
import { Controls } from '../../src/ui/Controls';
import { METRIC_INDEX, METRIC_NAMES } from '../../src/worker/protocol';
import { buttons, controls, render, text } from './render';

describe('controls', () => {
  const html = render(Controls);
  const cs = controls(html);

  it('every input and select has an accessible name', () => {
    expect(cs.length).toBeGreaterThan(15);
    expect(cs.filter((c) => !c.name)).toEqual([]);
  });

  it('names the controls as the issue and docs/page.md do', () => {
    const by = (n: string) => cs.filter((c) => c.name === n);
    expect(by('lambda_tok')).toEqual([{ tag: 'input', type: 'range', name: 'lambda_tok' }]);
    expect(by('Group size')).toEqual([{ tag: 'input', type: 'number', name: 'Group size' }]);
    for (const n of ['Preset', 'Environment', 'Algorithm', 'Prompts per step', 'Minibatches', 'Learning rate', 'eps_low', 'eps_high', 'beta (KL)', 'Temperature',
      'Advantage mode', 'Layers', 'Heads', 'Width', 'lambda_turn', 'lambda_rep', 'lambda mode']) expect(by(n), n).toHaveLength(1);
    const bs = buttons(html);
    for (const b of ['Start', 'Pause', 'Step', 'Reset', 'Warm start']) expect(bs.filter((x) => x === b), b).toHaveLength(1);
    expect(cs.filter((c) => c.type === 'radio').map((c) => c.name)).toEqual(['normal', 'fast (charts redraw once a second)']);
  });

  it('budget mode shows B and eta, and says the slider moves by itself', () => {
    const cfg = presetConfig(findPreset('relay-budget'));
    const h = render(Controls, { config: cfg, preset: 'relay-budget' });
    const names = controls(h).map((c) => c.name);
    expect(names).toContain('Budget B');
    expect(names).toContain('eta');
    expect(text(h)).toMatch(/set by the dual update toward the budget \(it moves by itself\)/);
    expect(controls(html).map((c) => c.name)).not.toContain('Budget B'); // manual mode hides them
  });

  it('in budget mode the lambda_tok slider shows the value the dual update reached (the last step), not the configured one', () => {
    const cfg = presetConfig(findPreset('relay-budget')); // lambdaTok starts at 0
    const hub = new MetricsHub();
    const C = METRIC_NAMES.length, rows = new Float64Array(2 * C);
    rows[METRIC_INDEX.step] = 0; rows[METRIC_INDEX.lambda_tok] = 0.035;
    rows[C + METRIC_INDEX.step] = 1; rows[C + METRIC_INDEX.lambda_tok] = 0.0725;
    hub.append('r', rows, 2);
    const h = render(Controls, { config: cfg, preset: 'relay-budget', runId: 'r' }, hub);
    expect(h).toMatch(/<input[^>]*type="range"[^>]*value="0.0725"/);
    expect(h).toMatch(/data-testid="lambda-tok-value">0\.0725</);
    // manual mode: the configured value, whatever the metrics say
    const m = render(Controls, { config: { ...cfg, lambdaMode: 'manual', lambdaTok: 0.2 }, preset: 'relay-budget', runId: 'r' }, hub);
    expect(m).toMatch(/<input[^>]*type="range"[^>]*value="0.2"/);
  });

  it('shows the parameter count of the model (2 layers, width 64, the relay vocabulary)', () => {
    const cfg = presetConfig(findPreset('relay-silence'));
    const env = createEnv(cfg);
    const V = env.vocab.length, T = env.blockSize, C = cfg.nEmbd, L = cfg.nLayer;
    // nanoGPT: wte + wpe + per layer (2 LN, qkv, proj, 2 LN, fc, fc proj) + final LN, head tied
    const expected = V * C + T * C + L * (4 * C + 3 * C * C + 3 * C + C * C + C + 4 * C * C + 4 * C + 4 * C * C + C) + 2 * C;
    expect(text(html)).toContain(`(${expected.toLocaleString('en-US')}) per policy`);
  });

  it('an out-of-range value is shown with its message', () => {
    const h = render(Controls, { fieldErrors: { groupSize: 'groupSize must be in [1, 64]; got 0; not applied' } });
    expect(h).toMatch(/role="alert"[^>]*>groupSize must be in \[1, 64\]; got 0; not applied/);
    expect(h).toMatch(/aria-invalid="true"/);
  });
});
