// The page's sweep as a population: each member's run in a trainer worker of its
// own, all of them training at once (as many as fit in memory), the main worker
// left alone. Each member is today's Trainer, so it is the run it would be alone.
// Its telemetry goes where the main run's goes (metrics hub, recorder, run record),
// so its trail shows on the charts while it trains; its checkpoints are stored when
// it ends, so it can be resumed and exported like any run.
import type { RunConfig } from '../config';
import { findPreset, presetConfig } from '../envs/presets';
import { createEnv } from '../envs/registry';
import { inLanes, memberBytes, membersAtOnce } from '../rl/population';
import { modelConfigFor } from '../rl/pretrain';
import { slotNames } from '../rl/slots';
import type { ResumeExport, TrainerState, Transcripts } from '../worker/protocol';
import { errorText, type StoreContext } from './context';
import type { RunMeta } from './runTypes';
import type { SweepRecord, SweepRunRecord } from './sweepSlice';
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

/** Loads a member's run in a new worker ahead of Start: its backend, the warm start, and the warm start's eval. */
export function prepareMember(spawn: () => TrainerClient, preset: string, overrides: Partial<RunConfig>, cpu: boolean): PreparedMember {
  const client = spawn();
  const ready = (async () => {
    if (cpu) await client.api.useBackend('cpu');
    await client.api.init(preset, overrides);
    await client.api.evaluate(); // the point every member starts from: done now, not after Start
    return client.api.getState();
  })();
  ready.catch(() => {}); // a member that failed to load starts its own at Start
  return { key: memberKey(preset, overrides), client, ready };
}

/** How many members train at once: all the sweep's runs left, within the memory and member limits (throws when not one fits). */
export function populationSize(s: SweepRecord, left: number, limits: PopulationLimits, overridesFor: PopulationHooks['overridesFor']): number {
  const preset = findPreset(s.preset);
  const perMember = Math.max(...s.runs.map((r) => {
    const config = presetConfig(preset, overridesFor(s, r.value));
    const env = createEnv(config);
    return memberBytes(config, modelConfigFor(env, config), slotNames(env).length);
  }));
  return Math.min(limits.maxMembers, membersAtOnce(left, perMember, limits.memoryBytes));
}

/** A running member as the sweep's live changes and its end reach it: in a worker of its own, or one of a stacked population. */
export interface MemberPort {
  /** `all`: the change goes to every member of the sweep (a stacked population applies a shared field only so). */
  setHyperparams(partial: Partial<RunConfig>, all: boolean): Promise<TrainerState>;
  lastTranscripts(count: number): Promise<Transcripts>;
  /** Its last checkpoint and resume state, and its best checkpoint. */
  exportResume(): Promise<ResumeExport>;
  exportBest(): Promise<Uint8Array>;
}

/** The running members, by run id (live changes reach them here). */
export type Members = Map<string, MemberPort>;

/** A lone worker's run as a member. */
export const lonePort = (client: TrainerClient, runId: string): MemberPort => ({
  setHyperparams: (p) => client.api.setHyperparams(p), lastTranscripts: (n) => client.api.lastTranscripts(n),
  exportResume: () => client.api.exportResume(runId), exportBest: () => client.api.exportCheckpoint('best', runId),
});

/** The indices of the sweep's runs left to train (pending, or interrupted by a stop or a reload). */
export const pendingRuns = (s: SweepRecord): number[] =>
  s.runs.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 'pending' || r.status === 'interrupted').map(({ i }) => i);

/**
 * Trains the sweep's pending and interrupted runs side by side until each finishes or the sweep stops.
 * Returns the message of the first member that could not start or stopped early (null when all finished).
 */
export async function runPopulation(ctx: StoreContext, spawn: () => TrainerClient, members: Members, h: PopulationHooks): Promise<string | null> {
  const { get, deps } = ctx;
  const s0 = h.sweep()!;
  const todo = pendingRuns(s0);
  const limits = { ...POPULATION_DEFAULTS, ...deps.population };
  const atOnce = populationSize(s0, todo.length, limits, h.overridesFor);
  let problem: string | null = null;
  const stillRunning = () => h.sweep()?.status === 'running';

  const member = async (i: number): Promise<void> => {
    const s = h.sweep()!, run = s.runs[i];
    h.patchRun(i, { status: 'running', runId: null, accuracy: null, tokens: null, startedAt: deps.now(), finishedAt: null });
    const overrides = h.overridesFor(s, run.value);
    let pre = h.take?.(s.preset, overrides) ?? null;
    let loaded: TrainerState | null = null;
    if (pre) {
      try { loaded = await pre.ready; } catch { pre.client.dispose?.(); pre = null; } // it failed to load: a fresh worker instead
    }
    const client = pre?.client ?? spawn();
    const off = client.onTelemetry((e) => ctx.telemetry(e));
    let runId: string | null = null;
    try {
      let snap = loaded;
      if (!snap) {
        if (get().backendChoice === 'cpu') await client.api.useBackend('cpu');
        snap = await client.api.init(s.preset, overrides);
      }
      runId = snap.runId!;
      const port = lonePort(client, runId);
      memberStarted(ctx, h, i, snap, port, members);
      if (!stillRunning()) { h.patchRun(i, { status: 'interrupted' }); return; } // stopped while it loaded
      let state = await client.api.start();
      let polls = 0;
      while (stillRunning() && state.status === 'running') {
        await sleep(h.pollMs);
        state = await client.api.getState();
        if (++polls % EXAMPLE_EVERY === 0 && exampleMember(h.sweep(), get().hoveredRun) === runId) await showExample(ctx, port, runId, run.label);
      }
      if (state.status === 'running') state = await client.api.pause(); // the sweep was stopped
      problem ??= await memberEnded(ctx, h, i, state, port);
    } catch (e) {
      h.patchRun(i, { status: 'interrupted', finishedAt: deps.now() });
      problem ??= `${run.label} could not ${runId ? 'finish' : 'start'}: ${errorText(e)}`;
    } finally {
      if (runId) members.delete(runId);
      off();
      client.dispose?.();
    }
  };

  await inLanes(todo.length, atOnce, (k) => member(todo[k]), stillRunning);
  await ctx.recorder.flush();
  return problem;
}

/** Polls between two fetches of a member's live episode for the task card. */
export const EXAMPLE_EVERY = 3;

/** A member loaded: its run record, its port for live changes, its run id in the sweep, its trail on the charts. */
export function memberStarted(ctx: StoreContext, h: PopulationHooks, i: number, snap: TrainerState, port: MemberPort, members: Members): void {
  const s = h.sweep()!, run = s.runs[i], runId = snap.runId!;
  addMemberRun(ctx, snap, `${s.preset} sweep ${run.label}`, { sweep: s.id, axis: s.axis, value: run.value });
  members.set(runId, port);
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

/** Whose episode the task card shows while a population trains: the hovered member when it trains, else the first training one. */
export function exampleMember(s: SweepRecord | null, hovered: string | null): string | null {
  const running = (s?.runs ?? []).filter((r) => r.status === 'running' && r.runId !== null);
  return running.find((r) => r.runId === hovered)?.runId ?? running[0]?.runId ?? null;
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
