// The recipe at Start (docs/recipe.md): off a preset's calibrated point, a run that has not trained yet
// takes its setting's recipe before it begins (fields typed by hand stay, as the CLI keeps a --set),
// said in one line; `recipe=off` trains the setting as typed. A run that has trained is never restarted.
import { findPreset, presetConfig } from '../envs/presets';
import { recipeAtStart, withRecipe } from '../rl/recipe';
import type { StoreContext } from './context';
import { overridesOf } from './urlState';

export async function applyRecipeAtStart(ctx: StoreContext): Promise<void> {
  const { preset, config, recipeAtStart: on, trainer } = ctx.get();
  if (!on || !trainer?.config || ctx.currentSteps() > 0) return;
  let p;
  try { p = findPreset(preset); } catch { return; }
  const lines = recipeAtStart(p, presetConfig(p), config);
  if (lines.length === 0) return;
  const next = withRecipe(config, { lines, steps: config.steps });
  ctx.set({ config: next });
  ctx.syncUrl();
  await ctx.initRun(preset, overridesOf(preset, next));
  ctx.set({ notice: `Recipe: off ${preset}'s calibrated point, so its recipe applies (untick "Recipe at Start" to train the setting as typed): ${lines.map((l) => `${l.field} = ${l.value}`).join(', ')}.` });
}
