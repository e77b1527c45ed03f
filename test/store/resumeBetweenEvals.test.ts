// A reload resumes within a few steps of where the run was, not from its last eval: between
// evals the store keeps the last checkpoint and its resume state every resumeIntervalMs of the
// page's clock, for the lone run and for each population member alike.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { FakeTrainer, fakeClient, fakeLane, settle } from './fakeClient';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(storage: MemoryRunStorage, clock: { t: number }, members: FakeTrainer[] = [], resumeIntervalMs = 1_000) {
  const fake = new FakeTrainer();
  const store = createAppStore({
    client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv(),
    now: () => clock.t, checkpointIntervalMs: 10_000, resumeIntervalMs,
    spawnTrainer: () => fakeLane(() => { const m = new FakeTrainer(); members.push(m); return m; }),
  });
  stores.push(store);
  return { store, fake };
}

const until = async (cond: () => boolean) => { for (let i = 0; i < 300 && !cond(); i++) await new Promise((r) => setTimeout(r, 10)); };

describe('resume state between evals', () => {
  it('a reload at step 9 resumes at step 9, not at the eval of step 2', async () => {
    const storage = new MemoryRunStorage(), clock = { t: 0 };
    const a = world(storage, clock);
    await a.store.getState().boot('?preset=relay-silence');
    const id = a.store.getState().runId!;
    a.fake.state.status = 'running';
    a.fake.emitSteps(0, 2);
    a.fake.emitEval(2, 0.9, 2); // stored at the eval: step 2
    await settle();
    clock.t = 500;
    a.fake.emitSteps(2, 5); // 0.5 s after the first step: too soon
    await settle();
    await a.store.ctx.recorder.flush();
    expect((await storage.getResumeState(id))?.step).toBe(2);
    clock.t = 1_500;
    a.fake.emitSteps(5, 9); // 1.5 s: stored, with its optimizer moments
    await settle();
    await a.store.ctx.recorder.flush();
    const state = await storage.getResumeState(id);
    expect(state?.step).toBe(9);
    expect(Array.from(state!.optimizer!.m)).toEqual([9]);
    // the page dies here (no Pause, nothing stored at a stop); the next load offers step 9
    const b = world(storage, clock);
    await b.store.getState().boot('?preset=relay-silence');
    expect(b.store.getState().resumable).toMatchObject({ id, step: 9 });
  });

  it('a fast run is stored every few steps (not more than once a second), a slow one at least every resumeIntervalMs', async () => {
    const storage = new MemoryRunStorage(), clock = { t: 0 };
    const a = world(storage, clock, [], 8_000);
    await a.store.getState().boot('?preset=relay-silence');
    const id = a.store.getState().runId!;
    const at = async (t: number, from: number, to: number) => { clock.t = t; a.fake.emitSteps(from, to); await settle(); return (await storage.getResumeState(id))?.step ?? null; };
    expect(await at(0, 0, 2)).toBeNull(); // the first step starts the clock
    expect(await at(400, 2, 8)).toBeNull(); // 6 steps, but 0.4 s after the last save: too soon
    expect(await at(1_100, 8, 9)).toBe(9); // 7 steps and 1.1 s
    expect(await at(1_500, 9, 11)).toBe(9); // 2 steps
    expect(await at(9_000, 11, 12)).toBe(9); // 7.9 s: a slow run waits for the interval
    expect(await at(9_200, 12, 13)).toBe(13); // 8.1 s and it moved
  });

  it('a population member is stored between its evals too, through its own lane', async () => {
    const storage = new MemoryRunStorage(), clock = { t: 0 }, members: FakeTrainer[] = [];
    const a = world(storage, clock, members);
    await a.store.getState().boot('?v=1&preset=relay-noisy-dr&steps=40');
    a.store.getState().setSweepDraft('0, 0.3');
    const sweeping = a.store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.state.status === 'running'));
    for (const m of members) m.emitSteps(0, 3);
    clock.t = 2_000;
    for (const m of members) m.emitSteps(3, 7);
    await settle();
    const steps = async () => Promise.all(members.map(async (m) => (await storage.getResumeState(m.state.runId!))?.step ?? null));
    for (let i = 0; i < 100 && (await steps()).some((s) => s !== 7); i++) await new Promise((r) => setTimeout(r, 10)); // the saves go through the lanes' workers
    expect(await steps()).toEqual([7, 7]);
    await a.store.getState().stopSweep();
    await sweeping;
  });
});
