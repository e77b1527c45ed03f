// The page's sweep as a population: its members in lanes (src/rl/placement.ts), each
// lane a trainer worker holding one run of its members (on WebGPU one lane with every
// member that stacks; else one worker per member), the main worker left alone. Each
// member computes what its lone run computes. Its telemetry goes where the main run's
// goes (metrics hub, recorder, run record), so its trail shows on the charts while it
// trains; its last checkpoint and resume state are stored at its evals (and its best
// when it improves), so a reload's Resume continues it where it was, under its run id.
import type { RunConfig } from '../config';
import { findPreset, presetConfig } from '../envs/presets';
import { createEnv } from '../envs/registry';
import { inLanes } from '../rl/population';
import { placeMembers } from '../rl/placement';
import type { ResumeEntry, TrainerState } from '../worker/protocol';
import { errorText, type StoreContext } from './context';
import type { Lane, MemberPort } from './ports';
import type { RunMeta } from './runTypes';
import { chosenMember } from './currentRun';
import type { SweepRecord, SweepRunRecord } from './sweepRecord';
import type { PopulationLimits, TrainerClient } from './types';

export const POPULATION_DEFAULTS: PopulationLimits = { cores: 2, memoryBytes: 2 ** 30, maxMembers: 16 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PopulationHooks {
  /** The sweep record now (null when cleared). */
  sweep(): SweepRecord | null;
  patchRun(i: number, patch: Partial<SweepRunRecord>): void;
  overridesFor(s: SweepRecord, value: number): Partial<RunConfig>;
  pollMs: number;
  /** A member worker loaded ahead of Start for this preset and overrides, if one was (Prepared). */
  take?(preset: string, overrides: Partial<RunConfig>): PreparedMember | null;
}

/**
 * A member's worker loaded before Start (the warm start and the step-0 eval done), so that a population
 * steps at once when Start is pressed. `ready` is its state then (it rejects when loading failed).
 */
export interface PreparedMember { key: string; client: TrainerClient; ready: Promise<TrainerState> }

/** What tells prepared members apart: the preset and the member's overrides (the order startSweep writes them in). */
export const memberKey = (preset: string, overrides: Partial<RunConfig>): string => JSON.stringify([preset, overrides]);

/**
 * Loads a member's run in a new worker ahead of Start: its backend, the warm start, and the warm start's eval.
 * lanes: the members that will train at once (the CPU engine's threads are the cores divided among them).
 */
export function prepareMember(spawn: () => TrainerClient, preset: string, overrides: Partial<RunConfig>, cpu: boolean, lanes = 1): PreparedMember {
  const client = spawn();
  const ready = (async () => {
    if (cpu) await client.api.useBackend('cpu', lanes);
    await client.api.init(preset, overrides);
    await client.api.evaluate(); // the point every member starts from: done now, not after Start
    return client.api.getState();
  })();
  ready.catch(() => {}); // a member that failed to load starts its own at Start
  return { key: memberKey(preset, overrides), client, ready };
}

/** A member in a lane's worker: every call names its run id, so a lane of one and a stacked lane answer alike. */
export const lanePort = (client: TrainerClient, runId: string): MemberPort => ({
  lane: client, setHyperparams: (p, all) => client.api.setHyperparams(p, all ? null : runId), lastTranscripts: (n) => client.api.lastTranscripts(n, runId),
  exportResume: () => client.api.exportResume(runId), exportBest: () => client.api.exportCheckpoint('best', runId),
  stepAnatomy: (group) => client.api.stepAnatomy(group, runId),
  restore: (step) => (step === undefined ? client.api.restoreBest(runId) : client.api.restoreEval(step, runId)),
  state: async () => (await client.api.getStates()).find((st) => st.runId === runId) ?? client.api.getState(),
});

/** The indices of the sweep's runs left to train (pending, or interrupted by a stop or a reload). */
export const pendingRuns = (s: SweepRecord): number[] =>
  s.runs.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 'pending' || r.status === 'interrupted').map(({ i }) => i);

/** What an interrupted member resumes from: its stored last checkpoint, best checkpoint and resume state (null: it starts anew). */
async function storedMember(ctx: StoreContext, s: SweepRecord, i: number): Promise<ResumeEntry | null> {
  const run = s.runs[i];
  if (run.status !== 'interrupted' || !run.runId || !ctx.meta(run.runId)) return null;
  const [last, state] = await Promise.all([ctx.deps.storage.getCheckpoint(run.runId, 'last'), ctx.deps.storage.getResumeState(run.runId)]);
  if (!last || !state) return null;
  return { runId: run.runId, last, best: await ctx.deps.storage.getCheckpoint(run.runId, 'best'), state };
}

/**
 * A lane's members resume together when each has a stored state and all are of one step (they step together);
 * they all start anew when none has. Else (some stored, or at different steps: their checkpoints were taken one
 * by one) null: the lane splits, each member in a worker of its own, so none loses its progress.
 */
async function storedLane(ctx: StoreContext, s: SweepRecord, idx: number[]): Promise<{ entries: ResumeEntry[] | null } | null> {
  const entries = await Promise.all(idx.map((i) => storedMember(ctx, s, i)));
  if (entries.every((e) => e === null)) return { entries: null };
  const got = entries.filter((e): e is ResumeEntry => e !== null);
  if (got.length === idx.length && got.every((e) => e.state!.step === got[0].state!.step)) return { entries: got };
  return idx.length === 1 ? { entries: got } : null;
}

/** The step count of a population that trains until paused (the config's largest: hours at any speed here). */
export const MAX_STEPS = 100_000;

/** A lane's worker with its members, kept loaded while its population is the page's current run (Step, Continue, transcripts). */
export type { Lane, KeptLanes } from './ports';

/** Ends a lane's worker and forgets its members. */
export function closeLane(ctx: StoreContext, lane: Lane): void {
  for (const st of lane.states) if (st.runId && ctx.members.get(st.runId)?.lane === lane.client) ctx.members.delete(st.runId);
  lane.off();
  lane.client.dispose?.();
}

/** Lets go of the kept lanes (another population, or one run, is the current run now). */
export function releaseLanes(ctx: StoreContext): void {
  const kept = ctx.lanes;
  ctx.lanes = null;
  for (const lane of kept?.lanes ?? []) closeLane(ctx, lane);
}

/**
 * The step count a lane trains to from `stepCount`, its members' own count being `own`: MAX_STEPS until paused; the
 * record's count after training until paused, or once it reached its own (Continue raised the record's); else its own
 * (a member's recipe may give it another count than the record's). null: no change.
 */
export function stepsTarget(s: SweepRecord, stepCount: number, own: number): number | null {
  const target = s.untilPaused ? MAX_STEPS : own === MAX_STEPS ? Math.max(s.steps, stepCount) : stepCount >= own ? s.steps : own;
  return target === own ? null : target;
}

/** Sets the lane's step count for the record (stepsTarget), when it changes. */
export async function setLaneSteps(lane: Lane, s: SweepRecord): Promise<void> {
  const st = lane.states[0], own = st?.config?.steps;
  if (own === undefined) return;
  const target = stepsTarget(s, st.stepCount, own);
  if (target !== null) lane.states = (await lane.client.api.setHyperparams({ steps: target }, null), await lane.client.api.getStates());
}

/**
 * Trains the sweep's pending and interrupted runs in lanes (placement.ts: on WebGPU one worker holding every member
 * that stacks; else one worker per member, as many at once as fit) until each finishes or the sweep stops. An
 * interrupted member with a stored checkpoint goes on from it under its own run id. When every lane fits at once
 * the lanes are kept after the sweep pauses or ends (ctx.lanes): Start then continues those same workers, Step
 * steps them, the panels read them. Returns the message of the first member that could not start or stopped early
 * (null when all finished).
 */
export async function runPopulation(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks): Promise<string | null> {
  const s0 = h.sweep()!;
  if (ctx.lanes?.sweepId === s0.id) return trainLanes(ctx, h, ctx.lanes.lanes); // paused or finished: the same workers go on
  releaseLanes(ctx);
  const opened = await openLanes(ctx, spawn, h);
  if ('sequential' in opened) return runSequential(ctx, spawn, h, opened.sequential);
  if (opened.problem !== null && opened.lanes.length === 0) return opened.problem;
  ctx.lanes = { sweepId: s0.id, lanes: opened.lanes };
  const problem = await trainLanes(ctx, h, opened.lanes);
  return opened.problem ?? problem;
}

/** The placement of the sweep's runs left to train: lanes of run indices, and how many train at once. */
function placeRuns(ctx: StoreContext, h: PopulationHooks, todo: number[]): { lanes: number[][]; atOnce: number } {
  const { get, deps } = ctx, s0 = h.sweep()!;
  const limits = { ...POPULATION_DEFAULTS, ...deps.population };
  const configs = todo.map((i) => presetConfig(findPreset(s0.preset), h.overridesFor(s0, s0.runs[i].value)));
  const backend = get().backendChoice !== 'cpu' && get().gpu.state === 'ok' ? 'webgpu' : 'cpu';
  const place = placeMembers(configs, createEnv(configs[0]), { backend, lanesAtOnce: limits.maxMembers, memoryBytes: limits.memoryBytes });
  ctx.set({ sweepLayout: place.layout });
  return { lanes: place.lanes.map((lane) => lane.map((j) => todo[j])), atOnce: place.atOnce };
}

/**
 * Loads every lane of the sweep's runs left to train (or of all its runs, when `all`: Step on a stopped population)
 * at once, or, when they do not all fit at once, says so (`sequential`: runPopulation trains them a few at a time).
 * A stacked lane that cannot load (memory, members resuming from different steps) splits, one worker per member.
 */
export async function openLanes(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks): Promise<{ lanes: Lane[]; problem: string | null } | { sequential: { lanes: number[][]; atOnce: number } }> {
  const todo = pendingRuns(h.sweep()!);
  if (todo.length === 0) return { lanes: [], problem: null };
  const place = placeRuns(ctx, h, todo);
  if (place.atOnce < place.lanes.length) return { sequential: place };
  const out: Lane[] = [];
  let problem: string | null = null;
  await Promise.all(place.lanes.map(async (idx) => {
    const got = await openLane(ctx, spawn, h, idx, place.lanes.length);
    if ('lane' in got) { out.push(got.lane); return; }
    if (idx.length === 1) { problem ??= got.problem; return; }
    ctx.set({ sweepLayout: `one worker per member, as the stacked population could not start: ${got.problem}` });
    for (const i of idx) {
      const one = await openLane(ctx, spawn, h, [i], idx.length);
      if ('lane' in one) out.push(one.lane); else problem ??= one.problem;
    }
  }));
  out.sort((a, b) => a.idx[0] - b.idx[0]);
  return { lanes: out, problem };
}

/** More lanes than fit at once: each lane loads, trains to its end and lets go, a few at a time (nothing is kept). */
async function runSequential(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks, place: { lanes: number[][]; atOnce: number }): Promise<string | null> {
  let problem: string | null = null;
  const stillRunning = () => h.sweep()?.status === 'running';
  await inLanes(place.lanes.length, place.atOnce, async (l) => {
    const got = await openLane(ctx, spawn, h, place.lanes[l], place.atOnce);
    if (!('lane' in got)) { problem ??= got.problem; return; }
    try { const p = await trainLanes(ctx, h, [got.lane]); problem ??= p; } finally { closeLane(ctx, got.lane); }
  }, stillRunning);
  await ctx.recorder.flush();
  return problem;
}

/**
 * One lane: the sweep's runs `idx` in one worker, loaded (or resumed from their stored checkpoints) together.
 * lanes: lanes training at once (a CPU engine's threads are the cores divided among them).
 */
async function openLane(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks, idx: number[], lanes: number): Promise<{ lane: Lane } | { problem: string }> {
  const { get, deps } = ctx;
  const s = h.sweep()!;
  const overrides = idx.map((i) => h.overridesFor(s, s.runs[i].value));
  const stored = await storedLane(ctx, s, idx);
  if (!stored) return { problem: 'its members resume from checkpoints of different steps' };
  const entries = stored.entries;
  if (!entries) { // a member interrupted before any checkpoint was stored starts anew: its old record goes, so the table holds one run per member
    for (const i of idx) {
      const old = s.runs[i].runId;
      if (s.runs[i].status === 'interrupted' && old && ctx.meta(old)) { ctx.dropRun(old); void deps.storage.deleteRun(old).catch(() => {}); }
      h.patchRun(i, { runId: null, accuracy: null, tokens: null, startedAt: deps.now(), finishedAt: null });
    }
  }
  let pre = idx.length === 1 && !entries ? h.take?.(s.preset, overrides[0]) ?? null : null;
  let loaded: TrainerState | null = null;
  if (pre) {
    try { loaded = await pre.ready; } catch { pre.client.dispose?.(); pre = null; } // it failed to load: a fresh worker instead
  }
  const client = pre?.client ?? spawn();
  const off = client.onTelemetry((e) => ctx.telemetry(e));
  const label = idx.length > 1 ? `the stacked population (${idx.map((i) => s.runs[i].label).join(', ')})` : s.runs[idx[0]].label;
  try {
    if (!loaded) {
      // 'auto' too: a lane whose worker falls back to the CPU engine (no adapter, a failed check) shares the cores as well
      await client.api.useBackend(get().backendChoice === 'cpu' ? 'cpu' : 'auto', lanes);
      if (entries) {
        // the stored metrics on the charts; the worker's rows from the checkpoint's step on replace any after it
        for (const e of entries) if (!deps.hub.has(e.runId)) deps.hub.set(e.runId, await deps.storage.loadMetrics(e.runId));
        await client.api.resumeMembers(entries);
      } else await client.api.init(s.preset, idx.length === 1 ? overrides[0] : overrides);
    }
    const states = loaded ? [loaded] : await client.api.getStates();
    const ports = states.map((st) => lanePort(client, st.runId!));
    states.forEach((st, k) => memberStarted(ctx, h, idx[k], st, ports[k]));
    return { lane: { client, idx, states, ports, label, off } };
  } catch (e) {
    off();
    client.dispose?.();
    return { problem: `${label} could not start: ${errorText(e)}` };
  }
}

/**
 * Trains the lanes' members to the sweep's step count (every member, a finished one too: Continue) until each
 * ends or the sweep stops; their sweep rows follow. Returns why the first member stopped early (null: none did).
 */
async function trainLanes(ctx: StoreContext, h: PopulationHooks, lanes: Lane[]): Promise<string | null> {
  let problem: string | null = null;
  await Promise.all(lanes.map(async (lane) => { const p = await trainLane(ctx, h, lane); problem ??= p; }));
  await ctx.recorder.flush();
  return problem;
}

async function trainLane(ctx: StoreContext, h: PopulationHooks, lane: Lane): Promise<string | null> {
  const { get, deps } = ctx, { client, idx, ports } = lane;
  const stillRunning = () => h.sweep()?.status === 'running';
  try {
    if (!stillRunning()) { idx.forEach((i) => h.patchRun(i, { status: 'interrupted' })); return null; } // stopped while it loaded
    await setLaneSteps(lane, h.sweep()!); // the count it trains to (until paused, or Continue raised it)
    idx.forEach((i) => h.patchRun(i, { status: 'running', finishedAt: null }));
    await client.api.start();
    lane.states = await client.api.getStates();
    const anyRunning = () => lane.states.some((st) => st.status === 'running'); // a tripped member pauses while the rest go on
    let problem: string | null = null;
    const ended = new Set<number>();
    const endMembers = async (all: boolean) => { // a member that stopped is recorded at once, not when its lane ends
      for (const [k, state] of lane.states.entries()) {
        if (ended.has(k) || (!all && state.status === 'running')) continue;
        ended.add(k);
        problem ??= await memberEnded(ctx, h, idx[k], state, ports[k]);
      }
    };
    for (let polls = 1; stillRunning() && anyRunning(); polls++) {
      await sleep(h.pollMs);
      lane.states = await client.api.getStates();
      await endMembers(false);
      const shown = polls % EXAMPLE_EVERY === 0 ? chosenMember(get())?.runId ?? null : null;
      const k = lane.states.findIndex((st) => st.runId === shown);
      if (k >= 0) await showExample(ctx, ports[k], shown!, h.sweep()!.runs[idx[k]].label);
    }
    if (anyRunning()) { await client.api.pause(); lane.states = await client.api.getStates(); } // the sweep was stopped
    await endMembers(true);
    return problem;
  } catch (e) {
    idx.forEach((i) => { if (h.sweep()?.runs[i].status === 'running') h.patchRun(i, { status: 'interrupted', finishedAt: deps.now() }); });
    return `${lane.label} could not finish: ${errorText(e)}`;
  }
}

/**
 * Step on a paused (or finished) population: every member steps once in its kept lane (loaded from its stored
 * checkpoints first when the page was reloaded), its checkpoints are stored, and its row says where it is.
 */
export async function stepPopulation(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks): Promise<string | null> {
  const s0 = h.sweep()!;
  if (ctx.lanes?.sweepId !== s0.id) {
    releaseLanes(ctx);
    const opened = await openLanes(ctx, spawn, h);
    if ('sequential' in opened) return `its ${s0.runs.length} members do not all fit at once here, so it cannot step together: press Start`;
    if (opened.lanes.length === 0) return opened.problem ?? 'no member could be loaded';
    ctx.lanes = { sweepId: s0.id, lanes: opened.lanes };
  }
  const lanes = ctx.lanes!.lanes;
  await Promise.all(lanes.map(async (lane) => {
    await setLaneSteps(lane, h.sweep()!); // a finished member's count is raised first (reopen raised the sweep's)
    await lane.client.api.step(1);
    lane.states = await lane.client.api.getStates();
    for (const [k, st] of lane.states.entries()) {
      await storeCheckpoints(ctx, lane.ports[k], st.runId!);
      h.patchRun(lane.idx[k], { status: 'interrupted' }); // paused: Start goes on from here
    }
  }));
  await ctx.recorder.flush();
  return null;
}

/**
 * " 2", " 3"... for the second and later populations of a preset in the runs table ("" for the first), so a
 * population trained again has new names and never two legend entries of one name.
 */
function populationNumber(ctx: StoreContext, s: SweepRecord): string {
  const ids: string[] = [];
  for (const r of [...ctx.get().runs].reverse()) if (r.preset === s.preset && r.member && !ids.includes(r.member.sweep)) ids.push(r.member.sweep);
  const k = ids.includes(s.id) ? ids.indexOf(s.id) : ids.length;
  return k === 0 ? '' : ` ${k + 1}`;
}

/** Polls between two fetches of a member's live episode for the task card. */
export const EXAMPLE_EVERY = 3;

/** A member loaded (or resumed): its run record, its port for live changes and checkpoints, its run id in the sweep, its trail. */
export function memberStarted(ctx: StoreContext, h: PopulationHooks, i: number, snap: TrainerState, port: MemberPort): void {
  const s = h.sweep()!, run = s.runs[i], runId = snap.runId!;
  if (ctx.meta(runId)) ctx.updateMeta(runId, { steps: snap.stepCount, status: 'ready' }, true); // resumed: the same run goes on
  else addMemberRun(ctx, snap, `${s.preset} sweep${populationNumber(ctx, s)} ${run.label}`, { sweep: s.id, axis: s.axis, value: run.value });
  ctx.members.set(runId, port);
  h.patchRun(i, { runId });
  if (!ctx.get().overlay.includes(runId)) ctx.set({ overlay: [...ctx.get().overlay, runId] }); // its trail on the charts
}

/**
 * A member's end: its checkpoints stored, its sweep row done (or interrupted). Returns why it stopped early
 * while the sweep ran (null: it finished, or the sweep was stopped).
 */
export async function memberEnded(ctx: StoreContext, h: PopulationHooks, i: number, state: TrainerState, port: MemberPort): Promise<string | null> {
  const last = state.evals[state.evals.length - 1], label = h.sweep()!.runs[i].label;
  const finished = state.status === 'idle' && (state.message ?? '').startsWith('finished') && last !== undefined;
  await storeCheckpoints(ctx, port, state.runId!);
  if (finished) { h.patchRun(i, { status: 'done', accuracy: last.accuracy, tokens: last.tokens, finishedAt: ctx.deps.now() }); return null; }
  h.patchRun(i, { status: 'interrupted', finishedAt: ctx.deps.now() });
  return h.sweep()?.status === 'running' ? `${label} stopped before its last step (${state.message ?? state.status})` : null;
}

export async function showExample(ctx: StoreContext, port: MemberPort, runId: string, label: string): Promise<void> {
  try {
    const transcripts = await port.lastTranscripts(1);
    if (transcripts.train) ctx.set({ sweepExample: { runId, label, transcripts } });
  } catch { /* a member between steps or ending: the next poll tries again */ }
}

/** The run record of a member (what ensureMeta makes for the main run), shown in the runs table. */
function addMemberRun(ctx: StoreContext, snap: TrainerState, name: string, member: NonNullable<RunMeta['member']>): void {
  const { deps } = ctx;
  const meta: RunMeta = {
    id: snap.runId!, name, preset: snap.preset!, config: snap.config!, createdAt: deps.now(), updatedAt: deps.now(), status: 'ready', steps: 0,
    evals: [...snap.evals], bestEval: snap.bestEval ?? null, flags: [], warmStart: snap.warmStart ?? null, backend: snap.backend ?? null, checkpoints: {},
    colorIndex: ctx.nextColor(), source: 'trained', member,
    ...(snap.baselines ? { baselines: snap.baselines } : {}), ...(snap.curriculum ? { curriculum: snap.curriculum } : {}),
  };
  ctx.addRun(meta);
  void deps.storage.putRun(meta).catch((e) => ctx.set({ error: `saving the run failed: ${errorText(e)}` }));
}

/** A member's last (with its resume state) and best checkpoints, stored when it ends. */
async function storeCheckpoints(ctx: StoreContext, port: MemberPort, runId: string): Promise<void> {
  try {
    const last = await port.exportResume();
    await ctx.deps.storage.putCheckpoint(runId, 'last', last.checkpoint, last.state);
    const best = await port.exportBest();
    await ctx.deps.storage.putCheckpoint(runId, 'best', best);
    const m = ctx.meta(runId);
    if (m) ctx.updateMeta(runId, { checkpoints: { last: last.state.step, best: m.bestEval?.step ?? 0 } }, true);
  } catch (e) {
    ctx.set({ error: `the checkpoints of a sweep member could not be stored: ${errorText(e)}` });
  }
}
