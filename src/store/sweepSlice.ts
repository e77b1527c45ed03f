// The page's sweep: one run per value of lambda_tok (or the budget B), trained side
// by side as a population (sweepPopulation.ts); every run lands in the runs table
// like any other, and the sweep's record (which runs, which finished, their final
// evals) is kept in the browser so a reload keeps the finished runs and marks
// the interrupted ones.
import { checkLiveChange, parseField, type RunConfig } from '../config';
import { findPreset, presetConfig } from '../envs/presets';
import { sisterOverrides } from './pageSlice';
import { clip, InputError } from '../contract/errors';
import { defaultSweep, parseValues, planSweep, type SweepAxis } from '../rl/sweep';
import { errorText, type StoreContext } from './context';
import { RunFileError, sweepRecord } from './runSchema';
import type { KeyValueStore, SweepRecord, SweepRunRecord } from './sweepRecord';
import type { SweepSlice } from './types';
import { overridesOf } from './urlState';
import { memberKey, POPULATION_DEFAULTS, prepareMember, releaseLanes, runPopulation, showExample, stepPopulation, setLaneSteps, type PreparedMember } from './sweepPopulation';
import { STOPPED_BY_YOU, chosenMember } from './currentRun';
import { placeMembers } from '../rl/placement';
import { memberRecipe, recipeFor, recipeInUse, typedRecipeFields } from '../rl/recipe';
import { createEnv } from '../envs/registry';

export type { KeyValueStore, SweepRecord, SweepRunRecord, SweepRunStatus, SweepStatus } from './sweepRecord';
export const SWEEP_KEY = 'gspo.sweep.v1';
const POLL_MS = 400;

export type SweepState = Pick<SweepSlice, 'sweep' | 'sweepDraft' | 'sweepDraftError' | 'sweepSelected' | 'sweepExample' | 'populationLoaded' | 'sweepLayout'>;

/** The axis a preset's sweep moves: the budget in budget mode, else lambda_tok. */
export const sweepAxisOf = (c: RunConfig): 'lambdaTok' | 'budget' => (defaultSweep(c).axis === 'budget' ? 'budget' : 'lambdaTok');
export const defaultDraft = (c: RunConfig): string => defaultSweep(c).values.join(', ');

/** The setup on screen carries its setting's recipe (so a population of it gives each member its own). */
export function carriesRecipe(preset: string, config: RunConfig): boolean {
  try {
    const p = findPreset(preset);
    return recipeInUse(p, presetConfig(p), config);
  } catch { return false; }
}

/**
 * What a population of `values` shares: the setup's overrides less the axis, and whether each member trains
 * with its own setting's recipe (the setup carries one, or the recipe applies by default and some member is
 * off the calibrated point). The recipe fields in `base` are the ones typed by hand: they are kept.
 */
export function populationBase(preset: string, config: RunConfig, values: readonly number[], recipeAtStart: boolean): { base: Partial<RunConfig>; recipe: boolean; recipeKept: (keyof RunConfig)[] } {
  const base = { ...overridesOf(preset, config) };
  delete base.lambdaTok; delete base.budget; delete base.lambdaMode;
  let p;
  try { p = findPreset(preset); } catch { return { base, recipe: false, recipeKept: [] }; }
  const cal = presetConfig(p), typed = typedRecipeFields(p, cal, config);
  const axis = sweepAxisOf(config);
  const offPoint = values.some((v) => recipeFor(p, cal, presetConfig(p, { ...base, ...(axis === 'lambdaTok' ? { lambdaMode: 'manual', lambdaTok: v } : { lambdaMode: 'budget', budget: v }) })).lines.some((l) => !typed.includes(l.field)));
  const recipe = carriesRecipe(preset, config) || (recipeAtStart && offPoint);
  return { base, recipe, recipeKept: recipe ? typed : [] };
}

/**
 * A stored record back, checked by the same schema as run files (runSchema.ts); a record that
 * fails is dropped, and `problem` says why (the page shows it).
 */
export function parseSweepRecord(text: string | null): { sweep: SweepRecord | null; problem: string | null } {
  if (text === null) return { sweep: null, problem: null };
  try {
    if (typeof text !== 'string') throw new RunFileError('it is not text');
    if (text.length > 200_000) throw new RunFileError(`it is ${text.length} characters, more than 200,000`);
    let doc: unknown;
    try { doc = JSON.parse(text); } catch (e) { throw new RunFileError(`it is not valid JSON (${clip(errorText(e), 200)})`); }
    return { sweep: sweepRecord(doc), problem: null };
  } catch (e) {
    return { sweep: null, problem: `The stored sweep was dropped: ${e instanceof RunFileError ? e.message : clip(errorText(e), 300)}.` };
  }
}

/** The record after a page load: a sweep that was running is interrupted, and so is its running run. */
export function afterReload(s: SweepRecord | null): SweepRecord | null {
  if (!s || s.status !== 'running') return s;
  return {
    ...s, status: 'interrupted', message: 'the page was closed or reloaded while the sweep ran',
    runs: s.runs.map((r) => (r.status === 'running' ? { ...r, status: 'interrupted' } : r)),
  };
}

/** The sweep state at page load; `notice` says why a stored record was dropped (null: none was). */
export function initialSweep(kv: KeyValueStore): SweepState & { notice: string | null } {
  const { sweep, problem } = parseSweepRecord(kv.get(SWEEP_KEY));
  const restored = afterReload(sweep);
  if (restored !== sweep && restored) kv.set(SWEEP_KEY, JSON.stringify(restored));
  return { sweep: restored, sweepDraft: null, sweepDraftError: null, sweepSelected: null, sweepExample: null, populationLoaded: 0, sweepLayout: null, notice: problem };
}

export function sweepActions(ctx: StoreContext, kv: KeyValueStore): Omit<SweepSlice, keyof SweepState> {
  const { set, get, deps } = ctx;
  let running = false; // one runner loop at a time
  const members = ctx.members; // a population's running members, by run id
  let prepared: PreparedMember[] = []; // members loaded ahead of Start (preparePopulation)
  const loaded = new WeakSet<PreparedMember>();
  const countLoaded = () => { const n = prepared.filter((p) => loaded.has(p)).length; if (get().populationLoaded !== n) set({ populationLoaded: n }); };
  const take = (preset: string, overrides: Partial<RunConfig>): PreparedMember | null => {
    const k = prepared.findIndex((p) => p.key === memberKey(preset, overrides));
    const out = k < 0 ? null : prepared.splice(k, 1)[0];
    countLoaded();
    return out;
  };
  /** The overrides each member of a population of `values` gets (what startSweep and overridesFor write). */
  const plannedOverrides = (): { preset: string; overrides: Partial<RunConfig> }[] => {
    const { preset, config, population, recipeAtStart } = get();
    if (!population) return [];
    const { base, recipe, recipeKept } = populationBase(preset, config, population, recipeAtStart);
    const axis = sweepAxisOf(config);
    return population.map((value) => ({ preset, overrides: overridesFor({ preset, base, axis, recipe, recipeKept } as SweepRecord, value) }));
  };

  const save = (sweep: SweepRecord | null) => {
    set({ sweep });
    try {
      if (sweep) kv.set(SWEEP_KEY, JSON.stringify(sweep)); else kv.remove(SWEEP_KEY);
    } catch (e) { set({ error: `the sweep could not be stored: ${errorText(e)}` }); }
  };
  const patchRun = (i: number, patch: Partial<SweepRunRecord>) => {
    const s = get().sweep;
    if (s) save({ ...s, runs: s.runs.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  };
  const overridesFor = (s: SweepRecord, value: number): Partial<RunConfig> => {
    const o: Partial<RunConfig> = { ...s.base, ...(s.axis === 'lambdaTok' ? { lambdaMode: 'manual', lambdaTok: value } : { lambdaMode: 'budget', budget: value }) };
    if (!s.recipe) return o;
    const p = findPreset(s.preset); // each member its own recipe (a value elsewhere has another optimum); fields typed by hand stay
    return overridesOf(s.preset, memberRecipe(p, presetConfig(p), presetConfig(p, o), s.recipeKept ?? []));
  };

  const hooks = { sweep: () => get().sweep, patchRun, overridesFor, pollMs: POLL_MS, take };
  /** The chosen member's last episode for the task card (between polls: after a Step, or a choice while paused). */
  const showChosen = async () => {
    const m = chosenMember(get()), port = m ? members.get(m.runId) : undefined;
    if (m && port) await showExample(ctx, port, m.runId, m.label);
  };

  /**
   * A finished population goes on (Continue): its members are paused again, and a fixed step count is raised by the
   * setup's count from where they are; a population that trains until paused keeps MAX_STEPS.
   */
  const reopen = (s: SweepRecord): SweepRecord => {
    const { config, untilPaused } = get();
    // where each member is: its kept worker's count, else its record's (stored with its last checkpoint)
    const kept = ctx.lanes?.sweepId === s.id ? ctx.lanes.lanes.flatMap((l) => l.states) : [];
    const steps = s.runs.map((r) => kept.find((st) => st.runId === r.runId)?.stepCount ?? (r.runId ? Math.max(ctx.meta(r.runId)?.steps ?? 0, ctx.meta(r.runId)?.checkpoints.last ?? 0) : 0));
    const done = s.status === 'done';
    return {
      ...s, untilPaused: untilPaused || undefined, status: 'stopped', message: STOPPED_BY_YOU,
      steps: done && !untilPaused ? Math.max(...steps) + config.steps : s.steps,
      runs: s.runs.map((r) => (r.status === 'done' ? { ...r, status: 'interrupted' } : r)),
    };
  };

  /**
   * Runs the sweep's pending and interrupted runs side by side (a population in lanes of trainer workers)
   * until each is done or the sweep stops. The main worker is left alone: its run stays the one it was.
   */
  const runLoop = async () => {
    if (running) return;
    running = true;
    let ended!: () => void;
    loopEnd = new Promise<void>((r) => { ended = r; });
    try { await loopBody(); } finally { running = false; ended(); }
  };
  /** Resolves when the runner loop in flight (if any) has recorded its members: Pause returns before that. */
  let loopEnd: Promise<void> = Promise.resolve();
  const loopBody = async () => {
    let problem: string | null;
    try {
      if (!deps.spawnTrainer) throw new InputError('this page cannot start trainer workers, so it cannot train a population');
      problem = await runPopulation(ctx, deps.spawnTrainer, hooks);
      await showChosen(); // its last state on the task card (a short run can end between two of its polls)
    } catch (e) { problem = errorText(e); } // placement refused (memory, K), or no workers
    const s = get().sweep;
    if (!s || s.status !== 'running') return;
    if (s.runs.every((r) => r.status === 'done')) save({ ...s, status: 'done', message: null });
    else save({ ...s, status: 'stopped', message: problem ?? 'some runs did not finish', runs: s.runs.map((r) => (r.status === 'running' ? { ...r, status: 'interrupted' } : r)) });
  };

  return {
    preparePopulation() {
      const { population, backendChoice, trainer, sweep, busy } = get();
      // a running sweep's members take theirs (what is left goes when it ends); a run loading: wait for it
      if (sweep?.status === 'running' || busy !== null) return;
      // on the CPU backend, before the first sweep: what Start will train, loaded while the person reads the page
      let want = deps.spawnTrainer && population && backendChoice === 'cpu' && trainer?.config && sweep === null ? plannedOverrides() : [];
      if (want.length) { // as many as will train at once (the memory limit), not every value of a long list
        const limits = { ...POPULATION_DEFAULTS, ...deps.population }, configs = want.map((w) => presetConfig(findPreset(w.preset), w.overrides));
        let atOnce = 0; // the rule Start places the members by (placement.ts): as many lanes as fit
        try { atOnce = placeMembers(configs, createEnv(configs[0]), { backend: 'cpu', lanesAtOnce: limits.maxMembers, memoryBytes: limits.memoryBytes }).atOnce; } catch { /* none fits: Start says why */ }
        want = want.slice(0, atOnce);
      }
      const keys = want.map((w) => memberKey(w.preset, w.overrides));
      for (const p of prepared) if (!keys.includes(p.key)) p.client.dispose?.();
      prepared = prepared.filter((p) => keys.includes(p.key));
      for (const [i, w] of want.entries()) {
        if (prepared.some((p) => p.key === keys[i])) continue;
        const p = prepareMember(deps.spawnTrainer!, w.preset, w.overrides, true, want.length); // the members train at once: they share the cores
        prepared.push(p);
        p.ready.then(() => { loaded.add(p); countLoaded(); }, () => {});
      }
      countLoaded();
    },

    setSweepDraft(text) {
      const { config, population } = get();
      try {
        const values = parseValues(text, sweepAxisOf(config), sweepAxisOf(config) === 'budget' ? 'budgets' : 'lambda_tok values');
        set({ sweepDraft: text, sweepDraftError: null });
        if (population && values.length >= 2) get().setPopulation(values); // the population Start trains follows the values typed
      } catch (e) {
        set({ sweepDraft: text, sweepDraftError: errorText(e) });
      }
    },

    async startSweep(mode = 'train') {
      const { preset, config, sweep, sweepDraft } = get();
      if (sweep?.status === 'running') { set({ error: 'a sweep is already running' }); return; }
      if (running) await loopEnd; // a population just paused: its members are recorded before the new one starts
      const axis: SweepAxis = sweepAxisOf(config);
      let values: number[];
      try {
        values = parseValues(sweepDraft ?? defaultDraft(config), axis as keyof RunConfig, axis === 'budget' ? 'budgets' : 'lambda_tok values');
        if (values.length < 2) throw new InputError('a sweep needs at least two values');
      } catch (e) {
        set({ sweepDraftError: errorText(e) });
        return;
      }
      const plan = planSweep({ axis, values, seeds: [] });
      const { base, recipe, recipeKept } = populationBase(preset, config, values, get().recipeAtStart);
      releaseLanes(ctx); // the last population's workers: this one is the current run now
      save({
        id: `sweep-${deps.now()}`, preset, axis: axis as 'lambdaTok' | 'budget', base, steps: config.steps, status: 'running', message: null, createdAt: deps.now(),
        ...(recipe ? { recipe: true } : {}), ...(recipeKept.length > 0 ? { recipeKept } : {}), ...(get().untilPaused ? { untilPaused: true } : {}),
        ...(mode === 'step' ? { status: 'stopped' as const, message: STOPPED_BY_YOU } : {}),
        runs: plan.map((r) => ({ label: r.label, value: r.value, status: 'pending', runId: null, accuracy: null, tokens: null, startedAt: null, finishedAt: null })),
      });
      set({ sweepDraftError: null, sweepSelected: null });
      if (JSON.stringify(get().population) !== JSON.stringify(values)) get().setPopulation(values); // the sweep is the page's current run
      if (mode === 'step') await get().stepSweep(); else await runLoop();
    },

    async sweepUntilPaused(on) {
      const s = get().sweep;
      if (!s) return;
      save({ ...s, untilPaused: on || undefined });
      try {
        for (const lane of ctx.lanes?.sweepId === s.id ? ctx.lanes.lanes : []) await setLaneSteps(lane, get().sweep!);
      } catch (e) { set({ error: `the step count was not changed: ${errorText(e)}` }); }
    },

    async setMemberField(runId, key, raw) {
      try {
        checkLiveChange([key]);
        const value = parseField(key, raw); // the same for every member; each worker checks it against its run's config
        const targets = runId === null ? [...members.entries()] : members.has(runId) ? [[runId, members.get(runId)!] as const] : [];
        if (targets.length === 0) throw new InputError(runId === null ? 'no sweep member is training' : 'that run is not a training member of the sweep');
        const sent = new Set<object>(); // a change for every member goes once to each lane's worker
        for (const [id, port] of targets) {
          if (runId === null && sent.has(port.lane)) continue;
          sent.add(port.lane);
          const state = await port.setHyperparams({ [key]: value }, runId === null);
          const step = state.stepCount; // applies from the member's next step
          const changed = runId === null ? targets.filter(([, p]) => p.lane === port.lane).map(([x]) => x) : [id];
          for (const x of changed) {
            const m = ctx.meta(x);
            if (m) ctx.updateMeta(x, { changes: [...(m.changes ?? []), { step, field: key, value }] }, true);
          }
        }
        set({ error: null });
      } catch (e) {
        set({ error: `the change was not applied: ${errorText(e)}` });
      }
    },

    async stopSweep() {
      const s = get().sweep;
      if (!s || s.status !== 'running') return;
      save({ ...s, status: 'stopped', message: STOPPED_BY_YOU }); // the lanes' polls see it and record their members
      // and the kept workers pause now (each at its next minibatch), not at their next poll
      const lanes = ctx.lanes?.sweepId === s.id ? ctx.lanes.lanes : [];
      await Promise.all(lanes.map((l) => l.client.api.pause().catch(() => {})));
    },

    async resumeSweep() {
      if (running) await loopEnd; // a Pause just pressed: its members are recorded first
      const s = get().sweep;
      if (!s || s.status === 'running') return;
      save({ ...reopen(s), status: 'running', message: null });
      await runLoop();
    },

    async stepSweep() {
      if (running) await loopEnd;
      const s = get().sweep;
      if (!s || s.status === 'running' || running) return;
      if (!deps.spawnTrainer) { set({ error: 'this page cannot start trainer workers, so it cannot step a population' }); return; }
      save(reopen(s));
      running = true;
      try {
        const problem = await stepPopulation(ctx, deps.spawnTrainer, hooks);
        if (problem) set({ error: `the population could not step: ${problem}` });
        else await showChosen();
      } catch (e) {
        set({ error: `the population could not step: ${errorText(e)}` });
      } finally { running = false; }
    },

    clearSweep() {
      if (get().sweep?.status === 'running') { set({ error: 'stop the sweep first' }); return; }
      releaseLanes(ctx);
      save(null);
      set({ sweepSelected: null, sweepLayout: null });
    },

    async runSweep() {
      const held = ctx.heldWork();
      await ctx.askFirst({
        title: 'Train a new population?',
        body: `The values typed start a new population from the warm start. ${held.text} stops and stays in the runs table.`,
        confirmLabel: 'Train the new population',
      }, async () => {
        await ctx.endCurrentPopulation();
        await ctx.finishCurrent(); // a lone run training stops too: one run trains at a time
        ctx.overlayForNewRun();
        void get().startSweep(); // not awaited: it trains until paused or done
      }, held.needed);
    },

    async endPopulation() {
      await get().stopSweep();
      if (running) await loopEnd; // its members are recorded before their workers go
      releaseLanes(ctx);
      save(null);
      set({ sweepSelected: null, sweepLayout: null, sweepExample: null });
    },

    async sweepSister(name) {
      const s = get().sweep;
      if (!s || s.status === 'running') { set({ error: s ? 'stop the sweep first' : 'no sweep to compare with' }); return; }
      let overrides: Partial<RunConfig>;
      try { overrides = sisterOverrides(s.preset, name, presetConfig(findPreset(s.preset), s.base)); } catch (e) { set({ error: `no sister sweep: ${errorText(e)}` }); return; }
      const keep = s.runs.map((r) => r.runId).filter((id): id is string => id !== null && ctx.meta(id) !== undefined);
      const values = s.runs.map((r) => r.value);
      set({ population: null });
      ctx.overlayForNewRun();
      await ctx.initRun(name, overrides);
      if (get().preset !== name || !get().trainer?.config) return; // initRun said why
      for (const id of keep) if (!get().overlay.includes(id)) await get().toggleOverlay(id); // the first population stays on the chart
      get().setPopulation(values);
      get().setSweepDraft(values.join(', '));
      await get().startSweep();
    },

    async selectSweepRun(runId) {
      set({ sweepSelected: runId });
      await showChosen();
      if (runId !== get().runId && !get().overlay.includes(runId) && ctx.meta(runId)) await get().toggleOverlay(runId);
    },
  };
}
