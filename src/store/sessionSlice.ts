// The session with the worker: boot (URL, stored runs, WebGPU probe, the
// first run), the run buttons, telemetry routing, transcripts and anatomy.
// Metrics go to the MetricsHub and the recorder, never through a React set;
// rare events (eval, status, flag) update the store.
import { findPreset, presetConfig } from '../envs/presets';
import { betterEval } from '../rl/pareto';
import { applyRecipeAtStart } from './recipeAtStart';
import { taskCodeOf } from '../config';
import { presetOfTask } from './taskSlice';
import { dispatchTelemetry, type TelemetryEvent } from '../worker/protocol';
import { errorText, runStatusOf, type StoreContext } from './context';
import { MAX_STEPS } from './sweepPopulation';
import { populationRun, shortLabel, chosenMember } from './currentRun';
import { stepsAfter } from './recorder';
import type { RunMeta } from './runTypes';
import type { SessionSlice } from './types';
import { decodeSetup, FIRST_VISIT, isFirstVisit, overridesOf } from './urlState';
import { bestBy } from './bestRule';
import { lessonAtBoot } from './lessonSlice';
import { resumableOf } from './resumable';
export { resumableOf } from './resumable';
import { parsePrefs } from './pagePrefs';
import { softwareRenderer } from './adapter';
import { readStoredRuns } from './storedRun';
import type { SweepRecord as PopRecord } from './sweepRecord';

/** Between evals the resume state is stored every this many steps, but not more often than RESUME_MIN_MS. */
export const RESUME_EVERY_STEPS = 5;
const RESUME_MIN_MS = 1000;

export type SessionState = Pick<SessionSlice, 'stepWithin' | 'gpu' | 'backendChoice' | 'engineChoice' | 'backendPref' | 'trainer' | 'runId' | 'status' | 'message' | 'progress' | 'busy' | 'error' | 'flags' | 'speed' | 'transcripts' | 'anatomy' | 'anatomyGroup' | 'anatomyError' | 'panelMember'>;

export const initialSession = (): SessionState => ({
  stepWithin: null, gpu: { state: 'probing' }, backendChoice: null, engineChoice: null, backendPref: null, trainer: null, runId: null, status: 'idle', message: null, progress: null, busy: 'Looking for WebGPU…',
  error: null, flags: [], speed: 'normal', transcripts: null, anatomy: null, anatomyGroup: 0, anatomyError: null, panelMember: null,
});

export function sessionActions(ctx: StoreContext): Omit<SessionSlice, keyof SessionState> {
  const { set, get, deps } = ctx;
  const api = () => ctx.api;

  /** The record of the current run, made when its first metrics or eval arrive. */
  const ensureMeta = (runId: string): RunMeta | undefined => {
    const have = ctx.meta(runId);
    if (have || runId !== get().runId) return have;
    const { preset, config, trainer, runs } = get();
    const n = runs.filter((r) => r.preset === preset).length + 1;
    const name = `${preset} #${n}`;
    const meta: RunMeta = {
      id: runId, name, preset, config, createdAt: deps.now(), updatedAt: deps.now(), status: 'running', steps: 0,
      evals: [], bestEval: null, flags: [], warmStart: trainer?.warmStart ?? null, backend: trainer?.backend ?? null, checkpoints: {},
      colorIndex: ctx.nextColor(), source: 'trained',
      ...(trainer?.baselines ? { baselines: trainer.baselines } : {}), ...(trainer?.curriculum ? { curriculum: trainer.curriculum } : {}),
    };
    ctx.addRun(meta);
    void deps.storage.putRun(meta).catch((e) => set({ error: `saving the run failed: ${errorText(e)}` }));
    return meta;
  };

  // the worker's state after rare events, asked for once per publish interval however many events arrive
  let refreshQueued = false;
  const refreshSnapshot = async (runId: string): Promise<void> => {
    if (refreshQueued) return;
    refreshQueued = true;
    await new Promise((r) => setTimeout(r, ctx.deps.publishDelayMs));
    refreshQueued = false;
    try {
      const s = await api().getState();
      if (s.runId === runId) ctx.applySnapshot(s);
    } catch { /* the worker is busy restarting; the next event refreshes */ }
  };

  // a reload resumes within a few steps, not from the last eval: the last checkpoint and resume state every
  // RESUME_EVERY_STEPS steps (at most once a second: a fast run would write all the time), and at least every
  // resumeIntervalMs while the run moves (a slow run's steps are far apart)
  const lastResumeSave = new Map<string, { at: number; step: number }>();
  const saveBetweenEvals = (runId: string, step: number) => {
    const every = deps.resumeIntervalMs;
    if (!(every > 0)) return;
    const last = lastResumeSave.get(runId);
    if (!last || step < last.step) { lastResumeSave.set(runId, { at: deps.now(), step }); return; } // the clock starts at the run's first step here
    const ms = deps.now() - last.at, steps = step - last.step;
    if (!((steps >= RESUME_EVERY_STEPS && ms >= Math.min(RESUME_MIN_MS, every)) || (steps > 0 && ms >= every))) return;
    lastResumeSave.set(runId, { at: deps.now(), step });
    void ctx.saveCheckpoint(runId, 'last', true);
  };

  const onEvent = (e: TelemetryEvent) => dispatchTelemetry(e, {
    metrics(m) {
      if (!ctx.meta(m.runId) && m.runId !== get().runId) return; // a run already forgotten
      deps.hub.append(m.runId, m.data, m.rows);
      if (get().stepWithin !== null) set({ stepWithin: null }); // the step it was inside is done
      const meta = ensureMeta(m.runId);
      if (!meta) return;
      ctx.recorder.queueMetrics(m.runId, m.data, m.rows);
      const steps = stepsAfter(m.data, m.rows);
      ctx.updateMeta(m.runId, { steps }, false);
      saveBetweenEvals(m.runId, steps);
    },
    eval(ev) {
      const meta = ensureMeta(ev.runId);
      if (!meta) return;
      const evals = [...meta.evals.filter((x) => x.step < ev.record.step), ev.record]; // a resumed run rewinds
      let best = null;
      for (const x of evals) if (betterEval(x, best)) best = x;
      const newBest = best === ev.record;
      ctx.updateMeta(ev.runId, { evals, bestEval: best }, true);
      if (newBest) void ctx.saveCheckpoint(ev.runId, 'best');
      void ctx.saveCheckpoint(ev.runId, 'last');
      void refreshSnapshot(ev.runId);
    },
    status(st) {
      // a run being born: its stage (and warm-start progress) on the busy line while the page waits on init
      if (st.starting) { if (get().busy !== null && st.runId !== get().runId) set({ busy: st.message ?? get().busy, progress: st.progress ?? null }); return; }
      const current = st.runId === get().runId;
      if (st.within) { if (current) set({ stepWithin: st.within }); return; } // inside a long step: progress only
      if (current) set({ status: st.status, message: st.message ?? null, progress: st.progress ?? null });
      if (st.progress !== undefined) return; // warm start progress: no record changes
      const meta = ctx.meta(st.runId);
      if (meta) {
        const diverged = meta.flags.some((f) => f.kind === 'diverged');
        const steps = current ? ctx.currentSteps() : meta.steps;
        ctx.updateMeta(st.runId, { status: runStatusOf(st.status, st.message, steps, diverged), steps }, true);
        if (st.status !== 'running' && current) {
          void ctx.saveStaleCheckpoints(st.runId);
          void ctx.recorder.flush();
        }
      }
      if (current) void refreshSnapshot(st.runId);
    },
    flag(f) {
      if (f.runId === get().runId) set({ flags: [...get().flags, f.flag] });
      const meta = ctx.meta(f.runId);
      if (meta) ctx.updateMeta(f.runId, { flags: [...meta.flags, f.flag] }, true);
    },
  });

  ctx.telemetry = onEvent;

  /** The person's choice: switches the worker's backend, remembers it, and starts the shown setup there. */
  const useBackend = (prefer: 'auto' | 'cpu') => ctx.guard(async () => {
    await api().useBackend(prefer);
    set({ backendChoice: prefer, backendPref: prefer === 'cpu' ? 'cpu' : 'webgpu' });
    const { preset, config } = get();
    await ctx.initRun(preset, overridesOf(preset, config));
  });

  /** The population record was made from the setup on screen (its fixed fields; steps and the axis may differ). */
  const sameBase = (pop: PopRecord): boolean => {
    const { preset, config } = get();
    const now: Partial<Record<string, unknown>> = { ...overridesOf(preset, config) }, then: Partial<Record<string, unknown>> = { ...pop.base };
    for (const o of [now, then]) { delete o.lambdaTok; delete o.budget; delete o.lambdaMode; delete o.steps; }
    return pop.preset === preset && JSON.stringify(Object.entries(now).sort()) === JSON.stringify(Object.entries(then).sort());
  };

  const heldWork = () => ctx.heldWork();
  const endPopulation = () => ctx.endCurrentPopulation();
  /**
   * Before the lone run goes on (Start, Step): `until` (MAX_STEPS: until paused) becomes its count; a run at or past its
   * count (finished) gets the setup's count more. Either way no status ever reads a step past the total.
   */
  const raiseTarget = async (until: number | null) => {
    const { trainer, config } = get();
    if (!trainer?.config) return;
    const done = ctx.currentSteps();
    const steps = until ?? (done >= trainer.config.steps ? done + config.steps : null);
    if (steps !== null && steps !== trainer.config.steps) ctx.applySnapshot(await api().setHyperparams({ steps }));
  };

  return {
    async boot(search) {
      search = lessonAtBoot(ctx, search); // a lesson's link boots on its step's setting
      set({ storageKind: deps.storage.kind, storageWhy: deps.storage.why ?? null });
      const savedPrefs = deps.prefs.load();
      const prefs = parsePrefs(savedPrefs);
      let storedRuns = 0;
      set({ backendPref: prefs.backend, guideDismissed: prefs.guideDismissed, bestRule: prefs.bestRule, bestTarget: prefs.bestTarget, accuracyAxis: prefs.accuracyAxis });
      try {
        // through the run file's schema and migration: a run of an earlier version gets the defaults it lacked
        const stored = readStoredRuns(await deps.storage.listRuns());
        const runs = stored.runs.map((r) => (r.status === 'running' ? { ...r, status: 'interrupted' as const } : r));
        for (const [i, r] of runs.entries()) if (r !== stored.runs[i] || stored.migrated.includes(r)) await deps.storage.putRun(r);
        if (stored.notice) set({ notice: [get().notice, stored.notice].filter(Boolean).join(' ') });
        runs.sort((a, b) => b.createdAt - a.createdAt);
        storedRuns = runs.length;
        // the person's own tasks that stored runs train (confirmed when first used): registered, so those runs open, resume and load
        for (const code of new Set(runs.map((r) => taskCodeOf(r.config)).filter((c) => c !== undefined))) {
          await presetOfTask(ctx, null, code).catch((e: unknown) => set({ notice: `a stored task could not be loaded: ${errorText(e)}` }));
        }
        set({ runs, resumable: resumableOf(runs, get().sweep) });
        // a population resumes from its members' stored resume states: their step is the truth (a record's
        // checkpoints field is written a moment after the checkpoint, and a reload can fall between the two)
        const r = get().resumable, sw = get().sweep;
        if (r?.members !== undefined && sw) {
          const left = sw.runs.filter((x) => (x.status === 'interrupted' || x.status === 'pending') && x.runId);
          const steps = await Promise.all(left.map(async (x) => (await deps.storage.getResumeState(x.runId!).catch(() => null))?.step ?? null));
          const known = steps.filter((x): x is number => x !== null);
          if (known.length === left.length && known.length > 0) set({ resumable: { ...r, step: Math.min(...known) } });
        }
        // the overlaid runs of the last visit that still exist, with their metrics
        const pinned = prefs.pinned.filter((id) => runs.some((r) => r.id === id));
        const overlay = [...new Set([...prefs.overlay, ...pinned])].filter((id) => runs.some((r) => r.id === id));
        for (const id of overlay) if (!deps.hub.has(id)) deps.hub.set(id, await deps.storage.loadMetrics(id));
        set({ overlay, pinned });
      } catch (e) {
        set({ error: `the stored runs could not be read: ${errorText(e)}` });
      }
      ctx.booted = true;
      // a first visit opens on the lesson: a population over lambda_tok that Start trains side by side
      const linked = isFirstVisit(search, savedPrefs, storedRuns, get().sweep !== null)
        ? { preset: FIRST_VISIT.preset, overrides: {}, population: FIRST_VISIT.population, untilPaused: FIRST_VISIT.untilPaused, recipeAtStart: true, problems: [] }
        : decodeSetup(search);
      // a link with a task's code: the page opens on the default preset, shows the code and runs it only when confirmed
      const pendingTask = 'taskCode' in linked ? linked.taskCode : undefined;
      const d = pendingTask !== undefined ? { ...decodeSetup(''), problems: linked.problems } : linked;
      set({ preset: d.preset, config: presetConfig(findPreset(d.preset), d.overrides), population: d.population, untilPaused: d.untilPaused, recipeAtStart: d.recipeAtStart, urlProblems: d.problems });
      ctx.urlHeld = pendingTask !== undefined; // the address keeps the task's link until the person answers
      ctx.setQueryKnown(search.replace(/^\?/, ''));
      ctx.syncUrl();
      deps.client.onTelemetry(onEvent);
      let probe;
      try { probe = await deps.probeGpu(); } catch (e) { probe = { ok: false as const, reason: errorText(e) }; }
      set({ gpu: probe.ok ? { state: 'ok', adapter: probe.adapter, ...(probe.fallback ? { fallback: true } : {}) } : { state: 'none', reason: probe.reason } });
      // the person's choice, else WebGPU only on a hardware adapter: a software one (SwiftShader, llvmpipe, WARP) is slower
      // than the CPU engine and would hold Start while its pipelines build, and no WebGPU leaves the CPU engine anyway
      const soft = probe.ok ? softwareRenderer(probe.adapter, probe.fallback) : null;
      const want = prefs.backend === 'cpu' ? 'cpu' : prefs.backend === 'webgpu' || (probe.ok && soft === null) ? 'auto' : 'cpu';
      if (want === 'cpu') {
        await ctx.guard(async () => {
          await api().useBackend('cpu');
          set({ backendChoice: 'cpu' });
          await ctx.initRun(d.preset, d.overrides);
        });
        set({ busy: null });
      } else {
        set({ backendChoice: 'auto' });
        // WebGPU by default on a hardware adapter: a warm step of each engine at this run's shapes picks the faster
        // (a person's choice of WebGPU is kept as it is); the line with both figures is the device panel's
        if (prefs.backend !== 'webgpu') {
          const choice = await api().chooseEngine(d.preset, d.overrides).catch(() => null);
          if (choice) set({ engineChoice: choice, ...(choice.chosen !== 'webgpu' ? { backendChoice: 'cpu' as const } : {}) });
        }
        await ctx.initRun(d.preset, d.overrides);
      }
      if (pendingTask !== undefined) {
        set({ taskDraft: pendingTask, taskCheck: null });
        await ctx.askFirst({
          title: 'Run the task in this link?',
          body: 'This link carries a task\'s code (shown below and in the task editor). It runs in a sandbox, without the network, your stored runs or this page; read it before you run it.',
          confirmLabel: 'Run this task', code: pendingTask,
        }, async () => { ctx.urlHeld = false; await get().useTask(pendingTask, search); }, true);
      }
    },

    async useCpu() { await useBackend('cpu'); },

    async useGpu() { await useBackend('auto'); },

    async start() {
      const { population, sweep } = get();
      if (population) { // the current run is a population: Start trains it, and a paused or finished one goes on (Continue)
        const pop = populationRun(get());
        // not awaited: the population trains until it ends or Pause stops it (the record says it is running at once)
        if (pop && pop.status !== 'running' && sameBase(pop)) void get().resumeSweep();
        else if (sweep?.status !== 'running') {
          if (sweep) ctx.overlayForNewRun(); // a new population's trails replace the last one's (a pinned run stays)
          get().setSweepDraft(population.join(', '));
          void get().startSweep();
        }
        return;
      }
      await applyRecipeAtStart(ctx);
      await ctx.guard(async () => {
        await raiseTarget(get().untilPaused ? MAX_STEPS : null);
        ctx.applySnapshot(await api().start());
      });
    },

    async pause() {
      if (get().sweep?.status === 'running') { await get().stopSweep(); return; } // Pause stops the population Start started
      await ctx.guard(async () => ctx.applySnapshot(await api().pause()));
    },

    async stepOnce() {
      if (get().population) { // every member of the population steps once (a population not started yet begins paused)
        const pop = populationRun(get());
        if (pop && sameBase(pop)) await get().stepSweep();
        else if (get().sweep?.status !== 'running') { get().setSweepDraft(get().population!.join(', ')); await get().startSweep('step'); }
        return;
      }
      await applyRecipeAtStart(ctx); // the first step begins the run as Start would
      await ctx.guard(async () => {
        await raiseTarget(null); // a finished run steps past its count: the count moves first, so no status reads "41 of 40"
        await api().step(1);
        ctx.applySnapshot(await api().getState());
      });
    },

    async reset() {
      const held = heldWork();
      await ctx.askFirst({
        title: 'Reset the run?',
        body: `The weights go back to the warm start and a new run begins. ${held.text} stops and stays in the runs table.`,
        confirmLabel: 'Reset',
      }, async () => ctx.guard(async () => {
        await endPopulation();
        await ctx.finishCurrent();
        ctx.overlayForNewRun();
        ctx.applySnapshot(await api().reset());
        set({ transcripts: null, anatomy: null });
      }), held.needed);
    },

    async warmStart() {
      const { preset, config } = get();
      const held = heldWork();
      await ctx.askFirst({
        title: 'Start again from the warm start?',
        body: `A new run starts from the preset's warm-start weights with the settings shown. ${held.text} stops and stays in the runs table.`,
        confirmLabel: 'Warm start',
      }, async () => { await endPopulation(); ctx.overlayForNewRun(); await ctx.initRun(preset, overridesOf(preset, config)); }, held.needed);
    },

    async restoreBest() {
      await ctx.guard(async () => {
        const { bestRule, bestTarget } = get();
        const m = get().population ? chosenMember(get()) : null, port = m ? ctx.members.get(m.runId) : undefined;
        if (m && !port) throw new Error(`member ${m.label} is not loaded: press Step or Continue first`);
        const trainer = port ? await port.state() : get().trainer;
        const pick = bestBy(bestRule, bestTarget, trainer?.evals ?? []);
        const byAccuracy = bestRule === 'accuracy' || !pick || pick.step === trainer?.bestEval?.step;
        if (port && m) { // the chosen member's weights, in its own worker
          const st = await port.restore(byAccuracy ? undefined : pick.step);
          set({ notice: `${shortLabel(m.label)}: ${st.message ?? 'restored the best weights'}` });
          return;
        }
        ctx.applySnapshot(await (byAccuracy ? api().restoreBest() : api().restoreEval(pick.step)));
        set({ notice: get().trainer?.message ?? 'restored the best weights' });
      });
    },

    async compare() {
      await ctx.guard(async () => {
        set({ busy: 'Comparing on the held-out problems…' });
        try {
          await api().compare();
          ctx.applySnapshot(await api().getState());
        } finally {
          set({ busy: null });
        }
      });
    },

    setSpeed(speed) { set({ speed }); },

    async loadTranscripts() {
      // while a population trains, its shown member's (the panels say whose); else the lone run's
      const m = get().population ? chosenMember(get()) : null, port = m ? ctx.members.get(m.runId) : undefined;
      if (m && !port) { set({ transcripts: null, panelMember: m }); return; } // not loaded (after a reload): the panel says so
      if (get().population && !m) { set({ transcripts: null, panelMember: null }); return; } // a population not started yet
      await ctx.guard(async () => { set({ transcripts: port ? await port.lastTranscripts(12) : await api().lastTranscripts(12), panelMember: port ? m : null }); });
    },

    async loadAnatomy(group, auto = false) {
      set({ anatomyGroup: group });
      const m = get().population ? chosenMember(get()) : null, port = m ? ctx.members.get(m.runId) : undefined;
      if (get().population && !port) { set({ anatomy: null, anatomyError: m ? `member ${shortLabel(m.label)} is not loaded: press Step or Continue` : 'Start or Step the population first', panelMember: m }); return; }
      const anatomyOf = (g: number) => (port ? port.stepAnatomy(g) : api().stepAnatomy(g));
      try {
        let a = await anatomyOf(group);
        // following the run (not the person's pick): a group without signal teaches little, so open one that has it
        const withSignal = a.signal?.findIndex((x) => x) ?? -1;
        if (auto && a.zeroStd && withSignal >= 0 && withSignal !== group) {
          set({ anatomyGroup: withSignal });
          a = await anatomyOf(withSignal);
        }
        set({ anatomy: a, anatomyError: null, panelMember: port ? m : null });
      } catch (e) {
        set({ anatomy: null, anatomyError: errorText(e), panelMember: port ? m : null });
      }
    },

    dismissError() { set({ error: null }); },

    currentSteps() { return ctx.currentSteps(); },
  };
}
