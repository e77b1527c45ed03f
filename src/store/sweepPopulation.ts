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
import { errorText, type MemberPort, type StoreContext } from './context';
import type { RunMeta } from './runTypes';
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

/**
 * Trains the sweep's pending and interrupted runs in lanes (placement.ts: on WebGPU one worker holding every member
 * that stacks; else one worker per member, as many at once as fit) until each finishes or the sweep stops. An
 * interrupted member with a stored checkpoint goes on from it under its own run id. Returns the message of the
 * first member that could not start or stopped early (null when all finished).
 */
export async function runPopulation(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks): Promise<string | null> {
  const { get, deps } = ctx;
  const s0 = h.sweep()!;
  const todo = pendingRuns(s0);
  if (todo.length === 0) return null;
  const limits = { ...POPULATION_DEFAULTS, ...deps.population };
  const configs = todo.map((i) => presetConfig(findPreset(s0.preset), h.overridesFor(s0, s0.runs[i].value)));
  const backend = get().backendChoice !== 'cpu' && get().gpu.state === 'ok' ? 'webgpu' : 'cpu';
  const place = placeMembers(configs, createEnv(configs[0]), { backend, lanesAtOnce: limits.maxMembers, memoryBytes: limits.memoryBytes });
  ctx.set({ sweepLayout: place.layout });
  let problem: string | null = null;
  const stillRunning = () => h.sweep()?.status === 'running';
  const note = (p: string | null) => { problem ??= p; };
  const lanes = place.lanes.map((lane) => lane.map((j) => todo[j]));
  const atOnce = Math.min(place.atOnce, lanes.length);
  await inLanes(lanes.length, place.atOnce, async (l) => {
    const out = await runLane(ctx, spawn, h, lanes[l], atOnce);
    // a stacked lane that could not start (memory, members resuming from different steps): its members go one worker each
    if (out.notStarted && lanes[l].length > 1) {
      ctx.set({ sweepLayout: `one worker per member, as the stacked population could not start: ${out.problem}` });
      const split = Math.min(limits.maxMembers, lanes[l].length);
      await inLanes(lanes[l].length, split, async (k) => note((await runLane(ctx, spawn, h, [lanes[l][k]], split)).problem), stillRunning);
    } else note(out.problem);
  }, stillRunning);
  await ctx.recorder.flush();
  return problem;
}

/**
 * One lane: the sweep's runs `idx` in one worker, loaded (or resumed) together and stepping together until they end.
 * atOnce: lanes training at once (a CPU engine's threads are the cores divided among them).
 */
async function runLane(ctx: StoreContext, spawn: () => TrainerClient, h: PopulationHooks, idx: number[], atOnce: number): Promise<{ problem: string | null; notStarted: boolean }> {
  const { get, deps } = ctx, members = ctx.members;
  const s = h.sweep()!, stillRunning = () => h.sweep()?.status === 'running';
  const overrides = idx.map((i) => h.overridesFor(s, s.runs[i].value));
  const lane = await storedLane(ctx, s, idx);
  if (!lane) return { problem: 'its members resume from checkpoints of different steps', notStarted: true };
  const stored = lane.entries;
  if (!stored) { // a member interrupted before any checkpoint was stored starts anew: its old record goes, so the table holds one run per member
    for (const i of idx) {
      const old = s.runs[i].runId;
      if (s.runs[i].status === 'interrupted' && old && ctx.meta(old)) { ctx.dropRun(old); void deps.storage.deleteRun(old).catch(() => {}); }
    }
  }
  const before = idx.map((i) => s.runs[i].status);
  idx.forEach((i) => h.patchRun(i, stored ? { status: 'running', finishedAt: null } : { status: 'running', runId: null, accuracy: null, tokens: null, startedAt: deps.now(), finishedAt: null }));
  let pre = idx.length === 1 && !stored ? h.take?.(s.preset, overrides[0]) ?? null : null;
  let loaded: TrainerState | null = null;
  if (pre) {
    try { loaded = await pre.ready; } catch { pre.client.dispose?.(); pre = null; } // it failed to load: a fresh worker instead
  }
  const client = pre?.client ?? spawn();
  const off = client.onTelemetry((e) => ctx.telemetry(e));
  let states: TrainerState[] = [];
  const label = idx.length > 1 ? `the stacked population (${idx.map((i) => s.runs[i].label).join(', ')})` : s.runs[idx[0]].label;
  try {
    if (!loaded) {
      try {
        // 'auto' too: a lane whose worker falls back to the CPU engine (no adapter, a failed check) shares the cores as well
        await client.api.useBackend(get().backendChoice === 'cpu' ? 'cpu' : 'auto', atOnce);
        if (stored) {
          // the stored metrics on the charts; the worker's rows from the checkpoint's step on replace any after it
          for (const e of stored) if (!deps.hub.has(e.runId)) deps.hub.set(e.runId, await deps.storage.loadMetrics(e.runId));
          await client.api.resumeMembers(stored);
        } else await client.api.init(s.preset, idx.length === 1 ? overrides[0] : overrides);
      } catch (e) {
        idx.forEach((i, k) => h.patchRun(i, { status: before[k], ...(stored ? {} : { startedAt: null }) })); // as they were
        return { problem: `${label} could not start: ${errorText(e)}`, notStarted: true };
      }
    }
    states = loaded ? [loaded] : await client.api.getStates();
    const ports = states.map((st) => lanePort(client, st.runId!));
    states.forEach((st, k) => memberStarted(ctx, h, idx[k], st, ports[k]));
    if (!stillRunning()) { idx.forEach((i) => h.patchRun(i, { status: 'interrupted' })); return { problem: null, notStarted: false }; } // stopped while it loaded
    await client.api.start();
    states = await client.api.getStates();
    const anyRunning = () => states.some((st) => st.status === 'running'); // a tripped member pauses while the rest go on
    let problem: string | null = null;
    const ended = new Set<number>();
    const endMembers = async (all: boolean) => { // a member that stopped is recorded at once, not when its lane ends
      for (const [k, state] of states.entries()) {
        if (ended.has(k) || (!all && state.status === 'running')) continue;
        ended.add(k);
        problem ??= await memberEnded(ctx, h, idx[k], state, ports[k]);
      }
    };
    for (let polls = 1; stillRunning() && anyRunning(); polls++) {
      await sleep(h.pollMs);
      states = await client.api.getStates();
      await endMembers(false);
      const shown = polls % EXAMPLE_EVERY === 0 ? exampleMember(h.sweep(), get().hoveredRun, get().sweepSelected) : null;
      const k = states.findIndex((st) => st.runId === shown);
      if (k >= 0) await showExample(ctx, ports[k], shown!, h.sweep()!.runs[idx[k]].label);
    }
    if (anyRunning()) { await client.api.pause(); states = await client.api.getStates(); } // the sweep was stopped
    await endMembers(true);
    return { problem, notStarted: false };
  } catch (e) {
    idx.forEach((i) => { if (h.sweep()?.runs[i].status === 'running') h.patchRun(i, { status: 'interrupted', finishedAt: deps.now() }); });
    return { problem: `${label} could not finish: ${errorText(e)}`, notStarted: false };
  } finally {
    for (const st of states) if (st.runId) members.delete(st.runId);
    off();
    client.dispose?.();
  }
}

/** Polls between two fetches of a member's live episode for the task card. */
export const EXAMPLE_EVERY = 3;

/** A member loaded (or resumed): its run record, its port for live changes and checkpoints, its run id in the sweep, its trail. */
export function memberStarted(ctx: StoreContext, h: PopulationHooks, i: number, snap: TrainerState, port: MemberPort): void {
  const s = h.sweep()!, run = s.runs[i], runId = snap.runId!;
  if (ctx.meta(runId)) ctx.updateMeta(runId, { steps: snap.stepCount, status: 'ready' }, true); // resumed: the same run goes on
  else addMemberRun(ctx, snap, `${s.preset} sweep ${run.label}`, { sweep: s.id, axis: s.axis, value: run.value });
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

/**
 * The member the page shows while a population trains (task card, transcripts, anatomy, the live lambda_tok):
 * the hovered member when it trains, else the one picked (a trail or a row clicked), else the first training one.
 */
export function exampleMember(s: SweepRecord | null, hovered: string | null, picked: string | null = null): string | null {
  const running = (s?.runs ?? []).filter((r) => r.status === 'running' && r.runId !== null);
  return running.find((r) => r.runId === hovered)?.runId ?? running.find((r) => r.runId === picked)?.runId ?? running[0]?.runId ?? null;
}

/** The shown member of a running population with its sweep label (null: no population trains; the panels show the lone run). */
export function shownMember(st: { sweep: SweepRecord | null; hoveredRun: string | null; sweepSelected: string | null }, hover = true): { runId: string; label: string } | null {
  if (st.sweep?.status !== 'running') return null;
  const runId = exampleMember(st.sweep, hover ? st.hoveredRun : null, st.sweepSelected);
  const run = st.sweep.runs.find((r) => r.runId === runId);
  return run && runId ? { runId, label: run.label } : null;
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
