// The page's sweep on WebGPU as one stacked population, against a fake population worker
// (K fake trainers behind the population API): one population worker and no member workers,
// every member a run of its own (record, trail, checkpoints), live changes addressed to a
// member or to all, Stop pausing the population; and the lone workers taking over, with the
// reason shown, when the members cannot stack or the worker is on the CPU.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/config';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { PopulationClient } from '../../src/store/types';
import type { PopulationWorkerApi } from '../../src/worker/protocol';
import { FakeTrainer, fakeClient, settle } from './fakeClient';

/** The population worker as K fake trainers: it records its calls; `release` ends every member's run. */
class FakePopulation implements PopulationWorkerApi {
  members: FakeTrainer[] = [];
  calls: { method: string; args: unknown[] }[] = [];
  disposed = false;
  constructor(private readonly on: 'webgpu' | 'cpu', private readonly gate: Promise<void>) {}
  callsOf(method: string) { return this.calls.filter((c) => c.method === method).map((c) => c.args); }
  private all = async <T>(fn: (m: FakeTrainer) => Promise<T>) => Promise.all(this.members.map(fn));
  async backend() { return { name: this.on, note: this.on === 'cpu' ? 'the self-check found wrong results from matmulForward' : null }; }
  async init(preset: string, overrides: Partial<RunConfig>[]) {
    this.calls.push({ method: 'init', args: [preset, overrides] });
    this.members = overrides.map(() => new FakeTrainer());
    return Promise.all(this.members.map((m, k) => m.init(preset, overrides[k])));
  }
  async start() {
    const states = await this.all((m) => m.start());
    this.members.forEach((m) => m.emitSteps(0, 1));
    void this.gate.then(() => this.members.forEach((m) => { if (m.state.status === 'running') m.finishRun(m.state.runId!); }));
    return states;
  }
  async pause() { this.calls.push({ method: 'pause', args: [] }); return this.all((m) => m.pause()); }
  async getStates() { return this.all((m) => m.getState()); }
  async setHyperparams(member: number | null, partial: Partial<RunConfig>) {
    this.calls.push({ method: 'setHyperparams', args: [member, partial] });
    for (const [k, m] of this.members.entries()) if (member === null || member === k) await m.setHyperparams(partial);
    return this.all((m) => m.getState());
  }
  async exportCheckpoint(which: 'last' | 'best', member: number) { return this.members[member].exportCheckpoint(which); }
  async exportResume(member: number) { return this.members[member].exportResume(this.members[member].state.runId!); }
  async lastTranscripts() { return { train: null, eval: null }; }
  async telemetryPort() { /* emit() delivers */ }
}

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(on: 'webgpu' | 'cpu' = 'webgpu') {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const populations: FakePopulation[] = [];
  const lone: FakeTrainer[] = [];
  const storage = new MemoryRunStorage();
  const store = createAppStore({
    client: fakeClient(new FakeTrainer()), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv(),
    spawnTrainer: () => {
      const m = new FakeTrainer(), start = m.start.bind(m);
      lone.push(m);
      m.start = async () => {
        const snap = await start();
        void gate.then(() => { if (m.state.status === 'running') m.finishRun(m.state.runId!); });
        return snap;
      };
      return fakeClient(m);
    },
    spawnPopulation: (): PopulationClient => {
      const p = new FakePopulation(on, gate);
      populations.push(p);
      return {
        api: p,
        onTelemetry(fn) {
          // every member's telemetry comes through the population's one port
          const add = () => p.members.forEach((m) => m.listeners.add(fn));
          const orig = p.init.bind(p);
          p.init = async (...a) => { const s = await orig(...a); add(); return s; };
          return () => p.members.forEach((m) => m.listeners.delete(fn));
        },
        dispose: () => { p.disposed = true; },
      };
    },
  });
  stores.push(store);
  return { store, populations, lone, release, storage };
}

const until = async (cond: () => boolean) => { for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5)); };
const running = (p: FakePopulation | undefined) => p !== undefined && p.members.length > 0 && p.members.every((m) => m.state.status === 'running');

describe('the page sweep on WebGPU as one stacked population', () => {
  it('trains every member in one population worker (no member workers) and records each as a run', async () => {
    const { store, populations, lone, release, storage } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1, 0.3');
    const done = store.getState().startSweep();
    await until(() => running(populations[0]));
    expect(populations).toHaveLength(1);
    expect(populations[0].callsOf('init')).toEqual([['relay-noisy-dr', [0, 0.1, 0.3].map((v) => ({ steps: 5, lambdaMode: 'manual', lambdaTok: v }))]]);
    expect(store.getState().sweepLayout).toMatch(/^3 members stacked in one worker on WebGPU/);
    release();
    await done;
    expect(lone).toHaveLength(0);
    const s = store.getState().sweep!;
    expect(s.status).toBe('done');
    expect(s.runs.map((r) => [r.accuracy, r.tokens])).toEqual([[1, 4], [0.9, 3], [0.7, 1]]);
    for (const [k, r] of s.runs.entries()) {
      const m = populations[0].members[k];
      expect(r.runId).toBe(m.state.runId);
      const meta = store.getState().runs.find((x) => x.id === r.runId)!;
      expect(meta.name).toBe(`relay-noisy-dr sweep ${r.label}`);
      expect(meta.status).toBe('finished');
      expect(store.getState().overlay).toContain(r.runId);
      // the member's own checkpoints and resume state (its optimizer counter), not another member's
      expect((await storage.getCheckpoint(r.runId!, 'last'))).toEqual(m.checkpointBytes);
      expect((await storage.getResumeState(r.runId!))?.config.lambdaTok).toBe([0, 0.1, 0.3][k]);
    }
    expect(populations[0].disposed).toBe(true);
  });

  it('a live change goes to one member by its index, or to all (null)', async () => {
    const { store, populations, release } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1, 0.3');
    const done = store.getState().startSweep();
    await until(() => running(populations[0]));
    const ids = store.getState().sweep!.runs.map((r) => r.runId!);
    await store.getState().setMemberField(ids[2], 'lambdaTok', 0.2);
    expect(populations[0].callsOf('setHyperparams')).toEqual([[2, { lambdaTok: 0.2 }]]);
    await store.getState().setMemberField(null, 'temperature', 0.5);
    expect(populations[0].callsOf('setHyperparams').slice(1)).toEqual([[null, { temperature: 0.5 }], [null, { temperature: 0.5 }], [null, { temperature: 0.5 }]]);
    const changes = ids.map((id) => store.getState().runs.find((m) => m.id === id)!.changes);
    expect(changes[2]).toEqual([{ step: 1, field: 'lambdaTok', value: 0.2 }, { step: 1, field: 'temperature', value: 0.5 }]);
    expect(changes[0]).toEqual([{ step: 1, field: 'temperature', value: 0.5 }]);
    release();
    await done;
  });

  it('Stop pauses the population once; every member run is interrupted', async () => {
    const { store, populations } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1');
    const done = store.getState().startSweep();
    await until(() => running(populations[0]));
    await store.getState().stopSweep();
    await done;
    expect(store.getState().sweep!.status).toBe('stopped');
    expect(store.getState().sweep!.runs.map((r) => r.status)).toEqual(['interrupted', 'interrupted']);
    expect(populations[0].callsOf('pause')).toHaveLength(1);
    await settle();
  });

  it('a population worker on the CPU hands the members to workers of their own and says why', async () => {
    const { store, populations, lone, release } = world('cpu');
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1');
    const done = store.getState().startSweep();
    await until(() => lone.length === 2 && lone.every((m) => m.state.status === 'running'));
    expect(populations[0].callsOf('init')).toEqual([]); // nothing loaded there
    expect(populations[0].disposed).toBe(true);
    expect(store.getState().sweepLayout).toBe('one worker per member, as they cannot stack: the population worker computes on the CPU (the self-check found wrong results from matmulForward)');
    release();
    await done;
    expect(store.getState().sweep!.status).toBe('done');
  });

  it('members that cannot stack (a multi-slot environment) go to workers of their own without a population worker', async () => {
    const { store, populations, lone, release } = world();
    await store.getState().boot('?v=1&preset=agentpo-hint&steps=5');
    store.getState().setSweepDraft('0, 0.1');
    const done = store.getState().startSweep();
    await until(() => lone.length >= 1);
    expect(populations).toHaveLength(0);
    expect(store.getState().sweepLayout).toMatch(/^one worker per member, as they cannot stack: .*policy slots/);
    release();
    await done;
    expect(lone).toHaveLength(2);
    expect(store.getState().sweep!.status).toBe('done');
  });

  it('on the CPU backend a sweep never spawns a population worker', async () => {
    const { store, populations, lone, release } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    await store.getState().useCpu();
    store.getState().setSweepDraft('0, 0.1');
    const done = store.getState().startSweep();
    await until(() => lone.length === 2);
    expect(populations).toHaveLength(0);
    release();
    await done;
  });
});

