// The recipe on the page: off the calibrated point the reward panel says how many steps the
// setting needs (and, with a run's speed, about how long here), lists what the recipe changes,
// and "Use the recipe" sets exactly those fields; at the calibrated point nothing is shown.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { recipeFor } from '../../src/rl/recipe';
import { createAppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { aboutDuration, RecipeNote } from '../../src/ui/RecipeNote';
import { METRIC_INDEX, METRIC_NAMES } from '../../src/worker/protocol';
import { FakeTrainer, fakeClient } from '../store/fakeClient';
import { render, text } from './render';

const preset = findPreset('relay-noisy-dr');
const offPoint = presetConfig(preset, { channelNoise: 0.1, lambdaTok: 0.01 });

describe('the recipe note', () => {
  it('is absent at the calibrated point', () => {
    expect(render(RecipeNote, { preset: 'relay-noisy-dr', config: presetConfig(preset) })).toBe('');
  });

  it('off the point: the steps the setting needs, each change with why, and the button', () => {
    const h = render(RecipeNote, { preset: 'relay-noisy-dr', config: offPoint });
    const t = text(h);
    expect(t).toMatch(/This setting needs about 180 steps ?; the preset's calibrated point takes 80\./); // 100 at 0.073, 80 at 0.01
    expect(t).toMatch(/lambda at start 0\.073 ?: start at lambda_tok 0\.073/);
    expect(t).toMatch(/Steps 180 ?: 100 steps at the start penalty and 80 more at 0\.01/);
    expect(h).toContain('data-testid="recipe-apply"');
  });

  it('with a run\'s speed, about how long here: 180 steps at 4 steps/s is about 45 s', () => {
    const hub = new MetricsHub(), C = METRIC_NAMES.length, rows = new Float64Array(3 * C);
    for (let r = 0; r < 3; r++) { rows[r * C + METRIC_INDEX.step] = r; rows[r * C + METRIC_INDEX.step_time_ms] = 250; }
    hub.append('r', rows, 3);
    expect(text(render(RecipeNote, { preset: 'relay-noisy-dr', config: offPoint, runId: 'r' }, hub))).toMatch(/about 180 steps ?: about 45 s here/);
    expect(aboutDuration(600)).toBe('about 10 min');
  });

  it('"Use the recipe" before a run sets exactly the recipe\'s fields; the note then says it is in use', async () => {
    const store = createAppStore({ client: fakeClient(new FakeTrainer()), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {} },
      { preset: 'relay-noisy-dr', config: offPoint });
    await store.getState().applyRecipe();
    const next = store.getState().config, recipe = recipeFor(preset, presetConfig(preset), offPoint);
    for (const l of recipe.lines) expect(next[l.field], l.field).toBe(l.value);
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== offPoint[k]);
    expect(changed.sort()).toEqual(recipe.lines.map((l) => l.field).sort());
    const h = render(RecipeNote, { preset: 'relay-noisy-dr', config: next });
    expect(text(h)).toMatch(/its recipe is in use/);
    expect(h).not.toContain('data-testid="recipe-apply"');
  });
});
