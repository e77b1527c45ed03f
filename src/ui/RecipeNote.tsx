// The setting's recipe (src/rl/recipe.ts) beside the reward controls: when a slider moves off the
// preset's calibrated point, how many steps the setting needs and about how long that takes on this
// engine, what the recipe changes and why, and one click to use it.
import { findPreset, presetConfig } from '../envs/presets';
import { memberRecipe, recipeFor, typedRecipeFields, withRecipe } from '../rl/recipe';
import { fmt, labelOf } from './labels';
import { runSpeed } from './runSpeed';
import { useApp, useHub, useHubFrame } from './storeContext';

/** "about 40 s" / "about 3 min" from seconds. */
export function aboutDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '';
  return seconds < 90 ? `about ${Math.max(1, Math.round(seconds))} s` : `about ${Math.round(seconds / 60)} min`;
}

export function RecipeNote() {
  const presetName = useApp((s) => s.preset);
  const config = useApp((s) => s.config);
  const runId = useApp((s) => s.runId);
  const applyRecipe = useApp((s) => s.applyRecipe);
  const population = useApp((s) => s.population);
  const atStart = useApp((s) => s.recipeAtStart);
  const setAtStart = useApp((s) => s.setRecipeAtStart);
  const hub = useHub();
  useHubFrame(); // the speed follows the run
  let preset;
  try { preset = findPreset(presetName); } catch { return null; }
  const recipe = recipeFor(preset, presetConfig(preset), config);
  const cal = presetConfig(preset);
  // a population over lambda_tok: each member gets its own recipe (the store's sweep applies memberRecipe); fields typed by hand stay
  const typed = typedRecipeFields(preset, cal, config);
  const members = population && population.length > 1 && config.lambdaMode === 'manual'
    ? population.map((v) => ({ v, c: memberRecipe(preset, cal, { ...config, lambdaTok: v }, typed) })) : [];
  const membersOff = members.some(({ v }) => recipeFor(preset, cal, { ...config, lambdaTok: v }).lines.length > 0);
  if (recipe.lines.length === 0 && !membersOff) return null;
  const applied = recipe.lines.every((l) => config[l.field] === l.value);
  const speed = runSpeed(runId ? hub.get(runId) : undefined);
  // a step's time grows with its episodes: the recipe may double the prompts a step of the run that sets the speed
  const perStep = withRecipe(config, recipe).promptsPerStep / config.promptsPerStep;
  const time = speed ? aboutDuration((recipe.steps * perStep) / speed.stepsPerSec) : '';
  return (
    <div className="recipe-note" data-testid="recipe-note" role="note">
      {recipe.lines.length > 0 && <>
        <p>
          <strong>This setting needs about {recipe.steps} steps</strong>
          {time ? `: ${time} here, at this run's speed` : ''}
          {applied ? ' (its recipe is in use).' : `; the preset's calibrated point takes ${presetConfig(preset).steps}.`}
          {!applied && atStart ? ' Start applies the recipe to a run that has not trained yet.' : ''}
        </p>
        <ul className="small">
          {recipe.lines.map((l) => <li key={l.field}><b>{labelOf(l.field)} {fmt(l.value, 4)}</b>: {l.why}</li>)}
        </ul>
      </>}
      {members.length > 0 && (
        <p className="small" data-testid="recipe-members">
          {applied || atStart ? 'Each member of the population trains with its own recipe: ' : 'With the recipe, each member of the population gets its own: '}
          {members.map(({ v, c }) => `lambda_tok ${fmt(v, 4)}: ${c.lambdaHold > 0 ? `start ${fmt(c.lambdaStart, 4)} for ${c.lambdaHold} steps, ` : ''}${c.steps} steps${c.temperature !== cal.temperature ? `, temperature ${fmt(c.temperature, 4)}` : ''}${c.promptsPerStep !== cal.promptsPerStep ? `, ${c.promptsPerStep} prompts a step` : ''}`).join('; ')}.
        </p>
      )}
      <label className="small" title="Off the preset's calibrated point, Start applies the setting's recipe to a run that has not trained yet (fields you set by hand stay). Untick to train the setting as typed.">
        <input type="checkbox" data-testid="recipe-at-start" checked={atStart} onChange={(e) => setAtStart(e.target.checked)} /> Recipe at Start
      </label>
      {!applied && recipe.lines.length > 0 && <button type="button" data-testid="recipe-apply" onClick={() => void applyRecipe()}>Use the recipe</button>}
    </div>
  );
}
