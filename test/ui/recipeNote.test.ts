// The recipe on the page: off the calibrated point the reward panel says how many steps the
// setting needs (and, with a run's speed, about how long here), lists what the recipe changes,
// and "Use the recipe" sets exactly those fields; at the calibrated point nothing is shown.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { recipeFor, withRecipe } from '../../src/rl/recipe';
import { createAppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { aboutDuration, RecipeNote } from '../../src/ui/RecipeNote';
import { SweepMembers } from '../../src/ui/SweepMembers';
import type { SweepRecord } from '../../src/store/sweepSlice';
import type { RunMeta } from '../../src/store/runTypes';
import { createElement } from 'react';
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
    expect(t).toMatch(/This setting needs about 240 steps ?; the preset's calibrated point takes 80\./); // 200 at 0.026, 40 at 0.01 (its settle margin 0.0019 is thin)
    expect(t).toMatch(/lambda at start 0\.026 ?: start at lambda_tok 0\.026/);
    expect(t).toMatch(/Steps 240 ?: 200 steps at the start penalty and 40 more at 0\.01, half the calibrated 80/);
    expect(h).toContain('data-testid="recipe-apply"');
  });

  it('with a population over lambda_tok: each member\'s own recipe, before and after it is in use', () => {
    const at003 = presetConfig(preset, { channelNoise: 0.5, lambdaTok: 0.03 });
    const before = text(render(RecipeNote, { preset: 'relay-noisy-dr', config: at003, population: [0.03, 0.3], recipeAtStart: false }));
    expect(before).toMatch(/With the recipe, each member of the population gets its own: /);
    // by hand (test/rl/recipe.test.ts): 0.03 starts from below at 0.08 for 130 of 170 steps at temperature 0.7; 0.3 at 0.248 for 80 of 160
    expect(before).toMatch(/lambda_tok 0\.03 ?: start 0\.08 for 130 steps, 170 steps, temperature 0\.7; lambda_tok 0\.3 ?: start 0\.248 for 80 steps, 160 steps\./);
    const inUse = withRecipe(at003, recipeFor(preset, presetConfig(preset), at003));
    expect(text(render(RecipeNote, { preset: 'relay-noisy-dr', config: inUse, population: [0.03, 0.3] }))).toMatch(/Each member of the population trains with its own recipe: /);
    expect(render(RecipeNote, { preset: 'relay-noisy-dr', config: at003 })).not.toContain('recipe-members'); // no population: no list
    // by default Start applies them: the note says so, and its box is ticked
    const byDefault = render(RecipeNote, { preset: 'relay-noisy-dr', config: at003, population: [0.03, 0.3] });
    expect(text(byDefault)).toMatch(/Start applies the recipe to a run that has not trained yet\..*Each member of the population trains with its own recipe: lambda_tok 0\.03 ?: start 0\.08 /);
    expect(byDefault).toMatch(/data-testid="recipe-at-start" checked=""/);
  });

  it('with a run\'s speed, about how long here: 240 steps at 4 steps/s is about 60 s', () => {
    const hub = new MetricsHub(), C = METRIC_NAMES.length, rows = new Float64Array(3 * C);
    for (let r = 0; r < 3; r++) { rows[r * C + METRIC_INDEX.step] = r; rows[r * C + METRIC_INDEX.step_time_ms] = 250; }
    hub.append('r', rows, 3);
    expect(text(render(RecipeNote, { preset: 'relay-noisy-dr', config: offPoint, runId: 'r' }, hub))).toMatch(/about 240 steps ?: about 60 s here/);
    // eps 0.3, lambda 0.01: 290 steps at twice the prompts a step, so twice the run's 250 ms: 290 x 0.5 s = 145 s
    const thin = presetConfig(preset, { channelNoise: 0.3, lambdaTok: 0.01 });
    expect(text(render(RecipeNote, { preset: 'relay-noisy-dr', config: thin, runId: 'r' }, hub))).toMatch(/about 290 steps ?: about 2 min here/);
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

  it('Start on an untrained run off the point applies the recipe by default and says so; recipe=off and fields typed by hand are kept', async () => {
    const boot = async (query: string) => {
      const main = new FakeTrainer();
      const store = createAppStore({ client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {} });
      await store.getState().boot(query);
      await store.getState().start();
      return { store, inits: main.callsOf('init') };
    };
    // by hand (the note's test above): eps 0.1 at lambda 0.01 starts at 0.026, held 200 steps, 240 in all
    const d = await boot('?v=1&preset=relay-noisy-dr&channelNoise=0.1&lambdaTok=0.01');
    expect(d.inits.at(-1)).toEqual(['relay-noisy-dr', expect.objectContaining({ channelNoise: 0.1, lambdaTok: 0.01, lambdaStart: 0.026, lambdaHold: 200, steps: 240 })]);
    expect(d.store.getState().notice).toMatch(/^Recipe: off relay-noisy-dr's calibrated point, so its recipe applies .*: lambdaStart = 0\.026, lambdaHold = 200, steps = 240\.$/);
    expect(d.store.getState().config.lambdaStart).toBe(0.026); // the setup on screen shows it
    // recipe=off: the setting as typed, one init (the boot's)
    const off = await boot('?v=1&preset=relay-noisy-dr&channelNoise=0.1&lambdaTok=0.01&recipe=off');
    expect(off.inits).toHaveLength(1);
    expect(off.inits[0][1]).not.toHaveProperty('lambdaHold');
    // steps typed by hand stay: the start penalty and hold still apply
    const typed = await boot('?v=1&preset=relay-noisy-dr&channelNoise=0.1&lambdaTok=0.01&steps=7');
    expect(typed.inits.at(-1)).toEqual(['relay-noisy-dr', expect.objectContaining({ lambdaStart: 0.026, lambdaHold: 200, steps: 7 })]);
    // at the calibrated point nothing changes
    expect((await boot('?v=1&preset=relay-noisy-dr')).inits).toHaveLength(1);
  });

  it('while the members train, each one\'s step is given of its own length (members with their own recipes differ)', () => {
    const hub = new MetricsHub(), C = METRIC_NAMES.length;
    const meta = (id: string, steps: number) => ({ id, config: presetConfig(preset, { steps }) }) as unknown as RunMeta;
    for (const [id, step] of [['a', 11], ['b', 4]] as const) {
      const row = new Float64Array(C);
      row[METRIC_INDEX.step] = step;
      hub.append(id, row, 1);
    }
    const run = (label: string, value: number, runId: string) => ({ label, value, status: 'running' as const, runId, accuracy: null, tokens: null, startedAt: 0, finishedAt: null });
    const sweep: SweepRecord = { id: 's', preset: 'relay-noisy-dr', axis: 'lambdaTok', base: {}, steps: 200, status: 'running', message: null, createdAt: 0, recipe: true,
      runs: [run('lambda_tok=0.03', 0.03, 'a'), run('lambda_tok=0.3', 0.3, 'b')] };
    const t = text(render(() => createElement(SweepMembers, { sweep }), { runs: [meta('a', 200), meta('b', 160)] }, hub));
    expect(t).toMatch(/lambda_tok=0\.03 at step 12 of 200 · lambda_tok=0\.3 at step 5 of 160\./);
  });
});
