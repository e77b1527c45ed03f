// The setup: preset, config fields and the confirm dialog. Live fields go to
// the worker at once (applied at its next step); the others need a new run,
// which is asked first when the current one has taken steps.
import { isConfigKey, LIVE_FIELDS, parseField, validateConfig, type RunConfig } from '../config';
import { findPreset, presetConfig, PRESETS } from '../envs/presets';
import { quote } from '../contract/errors';
import { recipeFor, withRecipe } from '../rl/recipe';
import { errorText, type StoreContext } from './context';
import type { ConfigField, SetupSlice } from './types';
import { DEFAULT_PRESET, overridesOf } from './urlState';
import { populationRun } from './currentRun';
import { MAX_STEPS } from './sweepPopulation';

export type SetupState = Pick<SetupSlice, 'preset' | 'config' | 'urlProblems' | 'fieldErrors' | 'confirm' | 'population' | 'untilPaused' | 'recipeAtStart'>;

export const initialSetup = (): SetupState => ({
  preset: DEFAULT_PRESET, config: presetConfig(findPreset(DEFAULT_PRESET)), urlProblems: [], fieldErrors: {}, confirm: null, population: null, untilPaused: false, recipeAtStart: true,
});

export function setupActions(ctx: StoreContext): Omit<SetupSlice, keyof SetupState> {
  const { set, get } = ctx;
  const fieldError = (key: ConfigField, message: string | null) => {
    const next = { ...get().fieldErrors };
    if (message === null) delete next[key];
    else next[key] = message;
    set({ fieldErrors: next });
  };
  const newRunNeeded = () => ctx.heldWork().needed;

  return {
    setFieldError(key, message) { fieldError(key, message); },

    async setField(key, raw) {
      if (!isConfigKey(key)) return fieldError(key, `unknown config field ${quote(key)}`);
      let value: RunConfig[typeof key];
      let next: RunConfig;
      try {
        value = parseField(key, raw);
        next = validateConfig({ [key]: value }, get().config);
      } catch (e) {
        return fieldError(key, `${errorText(e)}; not applied`);
      }
      fieldError(key, null);
      if (value === get().config[key]) return;
      const { trainer, preset } = get();
      if (!trainer?.config) { // no run yet (no backend chosen): the setup waits for one
        set({ config: next });
        ctx.syncUrl();
        return;
      }
      // a population with members loaded (training, paused or finished): a live field goes to every member, the
      // setup (and the URL) show it; another field starts a new population at the next Start (the members keep theirs)
      const pop = get().population ? populationRun(get()) : null;
      if (pop && ctx.members.size > 0) {
        if (LIVE_FIELDS.includes(key)) {
          await get().setMemberField(null, key, value);
          if (get().error?.startsWith('the change was not applied')) return fieldError(key, `${get().error}`);
        } else set({ notice: `${key} = ${String(value)} is for a new population: Start trains one (the current members keep theirs).` });
        set({ config: next });
        ctx.syncUrl();
        return;
      }
      if (LIVE_FIELDS.includes(key)) {
        try {
          ctx.applySnapshot(await ctx.api.setHyperparams({ [key]: value }));
        } catch (e) {
          return fieldError(key, `${errorText(e)}; not applied`);
        }
        const id = get().runId;
        const meta = id ? ctx.meta(id) : undefined;
        if (meta) ctx.updateMeta(meta.id, { changes: [...(meta.changes ?? []), { step: ctx.currentSteps(), field: key, value }] }, true);
        return;
      }
      await ctx.askFirst({
        title: 'Start a new run?',
        body: `${key} cannot change while a run trains. ${ctx.heldWork().text} stops and stays in the runs table, and a new run starts from the warm start with ${key} = ${String(value)}.`,
        confirmLabel: 'Start a new run',
      }, async () => { await ctx.endCurrentPopulation(); ctx.overlayForNewRun(); await ctx.initRun(preset, overridesOf(preset, next)); }, newRunNeeded());
    },

    async setUntilPaused(on) {
      set({ untilPaused: on });
      ctx.syncUrl();
      const { trainer, config, population, sweep } = get();
      if (population && sweep && populationRun(get()) === sweep) { await get().sweepUntilPaused(on); return; }
      if (!trainer?.config) return;
      // the lone run: from its next step it trains to MAX_STEPS, or to the setup's count (at least the step it is at)
      await ctx.guard(async () => { ctx.applySnapshot(await ctx.api.setHyperparams({ steps: on ? MAX_STEPS : Math.max(config.steps, trainer.stepCount) })); });
    },

    setRecipeAtStart(on) {
      set({ recipeAtStart: on });
      ctx.syncUrl();
    },

    setPopulation(values) {
      set({ population: values && values.length >= 2 ? [...values] : null });
      ctx.syncUrl();
    },

    async choosePreset(name) {
      let preset;
      try { preset = findPreset(name); } catch (e) { set({ error: errorText(e) }); return; }
      // a preset picked by hand is one run (a population is one click away in the Sweep panel), to the preset's step count;
      // the current population (if any) stops first, asked like any run: nothing trains that the chart does not show
      const held = ctx.heldWork();
      const oneRun = async () => { await ctx.endCurrentPopulation(); set({ population: null, untilPaused: false, fieldErrors: {} }); };
      if (!get().trainer?.config && !held.needed) {
        await oneRun();
        set({ preset: name, config: presetConfig(preset) });
        ctx.syncUrl();
        return;
      }
      await ctx.askFirst({
        title: `Switch to "${preset.title}"?`,
        body: `A preset brings its own settings and warm start, so a new run starts. ${held.text} stops and stays in the runs table.`,
        confirmLabel: 'Switch preset',
      }, async () => { await oneRun(); ctx.overlayForNewRun(); await ctx.initRun(name, {}); }, held.needed);
    },

    async chooseEnv(env) {
      if (env === 'custom') { if (get().taskDraft === null) get().openTaskEditor(); return; } // your own task: the editor, then Use
      if (get().taskDraft !== null) get().closeTaskEditor(); // another environment: the editor of a task not in use goes
      if ((get().config.env ?? 'relay') === env) return; // back to the environment in use: its run is as it was
      const first = PRESETS.find((p) => (p.config.env ?? 'relay') === env);
      if (!first) { set({ error: `no preset for the ${env} environment yet` }); return; }
      await get().choosePreset(first.name);
    },

    async answerConfirm(ok) {
      const c = get().confirm;
      set({ confirm: null });
      if (!ok && ctx.urlHeld) { ctx.urlHeld = false; ctx.syncUrl(); } // a link's task declined: the address follows the page again
      if (ok && c) await ctx.guard(c.onConfirm);
    },

    async applyRecipe() {
      const { preset, config } = get();
      let p;
      try { p = findPreset(preset); } catch (e) { set({ error: errorText(e) }); return; }
      const recipe = recipeFor(p, presetConfig(p), config);
      if (recipe.lines.length === 0) return;
      const next = validateConfig(withRecipe(config, recipe), config);
      if (!get().trainer?.config) { // no run yet: the setup takes the recipe, and the URL with it
        set({ config: next, fieldErrors: {} });
        ctx.syncUrl();
        return;
      }
      await ctx.askFirst({
        title: 'Start a new run with the recipe?',
        body: `The recipe changes ${recipe.lines.map((l) => l.field).join(', ')}, which need a new run. ${ctx.heldWork().text} stops and stays in the runs table.`,
        confirmLabel: 'Start with the recipe',
      }, async () => { await ctx.endCurrentPopulation(); set({ fieldErrors: {} }); ctx.overlayForNewRun(); await ctx.initRun(preset, overridesOf(preset, next)); }, newRunNeeded());
    },

    dismissUrlProblems() { set({ urlProblems: [] }); },
  };
}
