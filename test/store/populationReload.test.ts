// A page population survives a reload: the store with the real worker API (TrainerApi on the CPU
// backend, in process) as each lane's worker, the GPU "ok" so the two members stack in one lane.
// Their last checkpoints and resume states are stored at their evals; then the page dies (its
// workers stop answering), a new store boots on the same storage, and Resume continues each member
// from its stored step under its own run id: no new run records, no restart from step 0.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { TrainerClient } from '../../src/store/types';
import { isTelemetryEvent, type TelemetryEvent, type TrainerWorkerApi } from '../../src/worker/protocol';
import { TrainerApi } from '../../src/worker/trainerApi';
import { FakeTrainer, fakeClient } from './fakeClient';

const dir = new URL('../../public/checkpoints/', import.meta.url);
const load = async (file: string) => new Uint8Array(await readFile(new URL(file, dir)));
const URL_QUERY = '?v=1&preset=relay-noisy-quick&steps=200&evalEvery=1&promptsPerStep=2&groupSize=4&minibatches=1&evalEpisodes=8';

/** A lane's worker: the real TrainerApi in process, which can die as a closed page's workers do (every call then hangs). */
function lane(apis: TrainerApi[], dead: { now: boolean }): TrainerClient {
  const api = new TrainerApi(async () => new CpuBackend(), load);
  apis.push(api);
  const listeners = new Set<(e: TelemetryEvent) => void>();
  void api.telemetryPort({ postMessage: (m: unknown) => { if (!dead.now && isTelemetryEvent(m)) for (const fn of listeners) fn(m); } });
  const hung = new Proxy(api, {
    get: (t, p) => {
      const v = Reflect.get(t, p);
      return typeof v === 'function' ? (...a: unknown[]) => (dead.now ? new Promise(() => {}) : v.apply(t, a)) : v;
    },
  }) as unknown as TrainerWorkerApi;
  return { api: hung, onTelemetry(fn) { listeners.add(fn); return () => { listeners.delete(fn); }; }, dispose: () => { void api.destroy(); } };
}

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

const until = async (cond: () => Promise<boolean> | boolean, ms = 120_000) => {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('a page population and a reload', () => {
  it('Resume continues every member from its stored step under its own run id', async () => {
    const storage = new MemoryRunStorage(), kv = memoryKv();
    const page = (dead: { now: boolean }, apis: TrainerApi[]) => {
      const store = createAppStore({
        client: fakeClient(new FakeTrainer()), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 50, kv,
        spawnTrainer: () => lane(apis, dead),
      });
      stores.push(store);
      return store;
    };
    // the first page: two members stacked in one lane (the fake main worker's probe says the GPU is ok)
    const dead1 = { now: false }, apis1: TrainerApi[] = [];
    const one = page(dead1, apis1);
    await one.getState().boot(URL_QUERY);
    one.getState().setSweepDraft('0, 0.3');
    void one.getState().startSweep();
    await until(() => (one.getState().sweep?.runs ?? []).every((r) => r.runId !== null));
    expect(apis1).toHaveLength(1); // one worker holds both members
    expect(one.getState().sweepLayout).toMatch(/2 members stacked in one worker/);
    const ids = one.getState().sweep!.runs.map((r) => r.runId!);
    await until(async () => (await Promise.all(ids.map((id) => storage.getResumeState(id)))).every((s) => s !== null && s.step >= 2));
    // the page closes: its worker stops answering and telemetry stops
    dead1.now = true;
    await apis1[0].pause();
    const stored = await Promise.all(ids.map(async (id) => (await storage.getResumeState(id))!.step));
    const runsBefore = (await storage.listRuns()).length;
    await apis1[0].destroy();
    one.ctx.recorder.stop();

    // the reload: a new page on the same storage; the sweep reads as interrupted, and Start goes on with it
    const apis2: TrainerApi[] = [];
    const two = page({ now: false }, apis2);
    await two.getState().boot(URL_QUERY);
    expect(two.getState().sweep!.status).toBe('interrupted');
    void two.getState().resumeSweep();
    await until(() => apis2.length > 0 && (two.getState().sweep?.runs ?? []).every((r) => r.status === 'running'));
    await until(async () => (await Promise.all(apis2.map((a) => a.getStates()))).flat().every((s) => s.runId !== null && s.status === 'running'));
    const states = (await Promise.all(apis2.map((a) => a.getStates()))).flat();
    expect(states.map((s) => s.runId).sort()).toEqual([...ids].sort()); // the same runs, not new ones
    for (const s of states) {
      const k = ids.indexOf(s.runId!);
      expect(s.stepCount, `member ${k}`).toBeGreaterThanOrEqual(stored[k]); // from its stored step on, not from 0
      expect(s.evals[0].step).toBe(0); // its history came back with it
    }
    expect(two.getState().sweep!.runs.map((r) => r.runId)).toEqual(ids);
    await two.getState().stopSweep();
    await until(() => two.getState().sweep!.runs.every((r) => r.status !== 'running'));
    expect((await storage.listRuns()).length).toBe(runsBefore); // no run was added
    for (const a of apis2) await a.destroy();
  }, 300_000);
});
