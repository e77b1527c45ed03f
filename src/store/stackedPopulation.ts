// The page's sweep as one stacked population on WebGPU: every member in one population
// worker (src/worker/populationApi.ts), stepping in lock step in one set of dispatches.
// To the page each member is still a run of its own (its record, trail, live changes,
// checkpoints), as with one worker per member (sweepPopulation.ts), which is where a sweep
// goes when its members cannot stack (the reason is shown).
import { presetConfig, findPreset } from '../envs/presets';
import { createEnv } from '../envs/registry';
import { stackRefusal } from '../rl/populationPlan';
import type { TrainerState } from '../worker/protocol';
import { errorText, type StoreContext } from './context';
import { EXAMPLE_EVERY, exampleMember, memberEnded, memberStarted, showExample, type MemberPort, type Members, type PopulationHooks } from './sweepPopulation';
import type { PopulationClient } from './types';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Trained as a stacked population (`problem`: the first member's early stop), or not stacked and why. */
export type StackedOutcome = { ran: true; problem: string | null } | { ran: false; why: string };

/** Why these sweep runs cannot stack, before any worker is spawned (null: they can, as far as the page can tell). */
export function stackingRefusal(h: PopulationHooks, todo: number[]): string | null {
  const s = h.sweep()!;
  try {
    const configs = todo.map((i) => presetConfig(findPreset(s.preset), h.overridesFor(s, s.runs[i].value)));
    return stackRefusal(configs, createEnv(configs[0]));
  } catch (e) {
    return errorText(e);
  }
}

/** Trains the sweep's runs `todo` as one stacked population until each finishes or the sweep stops. */
export async function runStacked(ctx: StoreContext, spawn: () => PopulationClient, members: Members, h: PopulationHooks, todo: number[]): Promise<StackedOutcome> {
  const refusal = stackingRefusal(h, todo);
  if (refusal) return { ran: false, why: refusal };
  const s = h.sweep()!, stillRunning = () => h.sweep()?.status === 'running';
  const client = spawn();
  const off = client.onTelemetry((e) => ctx.telemetry(e));
  const before = todo.map((i) => s.runs[i].status);
  let states: TrainerState[] = [];
  try {
    const backend = await client.api.backend();
    if (backend.name !== 'webgpu') return { ran: false, why: `the population worker computes on the CPU${backend.note ? ` (${backend.note})` : ''}` };
    todo.forEach((i) => h.patchRun(i, { status: 'running', runId: null, accuracy: null, tokens: null, startedAt: ctx.deps.now(), finishedAt: null }));
    try {
      states = await client.api.init(s.preset, todo.map((i) => h.overridesFor(s, s.runs[i].value)));
    } catch (e) {
      todo.forEach((i, k) => h.patchRun(i, { status: before[k], startedAt: null })); // as they were: the lone workers take them
      return { ran: false, why: errorText(e) };
    }
    const ports: MemberPort[] = states.map((_, k) => ({
      setHyperparams: async (p, all) => (await client.api.setHyperparams(all ? null : k, p))[k],
      lastTranscripts: (n) => client.api.lastTranscripts(k, n),
      exportResume: () => client.api.exportResume(k),
      exportBest: () => client.api.exportCheckpoint('best', k),
    }));
    states.forEach((snap, k) => memberStarted(ctx, h, todo[k], snap, ports[k], members));
    ctx.set({ sweepLayout: `${todo.length} members stacked in one worker on WebGPU: one set of dispatches per step for all of them` });
    if (!stillRunning()) { todo.forEach((i) => h.patchRun(i, { status: 'interrupted' })); return { ran: true, problem: null }; } // stopped while it loaded
    states = await client.api.start();
    for (let polls = 1; stillRunning() && states[0].status === 'running'; polls++) {
      await sleep(h.pollMs);
      states = await client.api.getStates();
      const shown = polls % EXAMPLE_EVERY === 0 ? exampleMember(h.sweep(), ctx.get().hoveredRun) : null;
      const k = states.findIndex((st) => st.runId === shown);
      if (k >= 0) await showExample(ctx, ports[k], shown!, h.sweep()!.runs[todo[k]].label);
    }
    if (states[0].status === 'running') states = await client.api.pause(); // the sweep was stopped
    let problem: string | null = null;
    for (const [k, state] of states.entries()) problem ??= await memberEnded(ctx, h, todo[k], state, ports[k]);
    return { ran: true, problem };
  } catch (e) {
    todo.forEach((i) => { if (h.sweep()?.runs[i].status === 'running') h.patchRun(i, { status: 'interrupted', finishedAt: ctx.deps.now() }); });
    return { ran: true, problem: `the stacked population stopped: ${errorText(e)}` };
  } finally {
    for (const st of states) if (st.runId) members.delete(st.runId);
    off();
    client.dispose?.();
  }
}
