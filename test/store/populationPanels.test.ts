// The Transcripts and Anatomy panels follow the current population, training or paused: the store
// asks the chosen member's own worker (the first until one is chosen; hovering changes nothing),
// says whose answer it holds, and goes back to the lone run when the setup is one run again.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { FakeTrainer, fakeClient, fakeLane } from './fakeClient';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });
const until = async (cond: () => boolean) => { for (let i = 0; i < 300 && !cond(); i++) await new Promise((r) => setTimeout(r, 10)); };

describe('panels during a population', () => {
  it('transcripts and anatomy come from the shown member, named; the lone run is left alone', async () => {
    const main = new FakeTrainer(), members: FakeTrainer[] = [];
    const store = createAppStore({
      client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv(),
      spawnTrainer: () => fakeLane(() => { const m = new FakeTrainer(); members.push(m); return m; }),
    });
    stores.push(store);
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=40');
    store.getState().setSweepDraft('0, 0.3');
    const sweeping = store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.state.status === 'running') && store.getState().sweep!.runs.every((r) => r.runId !== null));
    const [a, b] = store.getState().sweep!.runs.map((r) => r.runId!);
    const of = (id: string) => members.find((m) => m.state.runId === id)!;

    await store.getState().loadTranscripts(); // nothing chosen: the first member
    expect(of(a).callsOf('lastTranscripts')).toHaveLength(1);
    expect(store.getState().panelMember).toEqual({ runId: a, label: 'lambda_tok=0' });
    store.getState().setHoveredRun(b); // hovering a trail only highlights it: the panels stay on the chosen member
    await store.getState().loadTranscripts();
    expect(of(a).callsOf('lastTranscripts')).toHaveLength(2);
    expect(of(b).callsOf('lastTranscripts')).toHaveLength(0);
    await store.getState().selectSweepRun(b); // choosing it does
    await store.getState().loadTranscripts();
    await store.getState().loadAnatomy(1);
    expect(of(b).callsOf('lastTranscripts').length).toBeGreaterThanOrEqual(1);
    expect(of(b).callsOf('stepAnatomy')).toEqual([[1, b]]);
    expect(store.getState().panelMember).toEqual({ runId: b, label: 'lambda_tok=0.3' });
    expect(main.callsOf('lastTranscripts')).toHaveLength(0);
    expect(main.callsOf('stepAnatomy')).toHaveLength(0);

    await store.getState().stopSweep();
    await sweeping;
    const before = of(b).callsOf('lastTranscripts').length;
    await store.getState().loadTranscripts(); // paused, the population is still the current run: its chosen member's worker answers
    expect(of(b).callsOf('lastTranscripts')).toHaveLength(before + 1);
    expect(store.getState().panelMember).toEqual({ runId: b, label: 'lambda_tok=0.3' });
    expect(main.callsOf('lastTranscripts')).toHaveLength(0);
    store.getState().setPopulation(null); // one run again: the lone run's worker, and the members' workers let go
    await store.getState().loadTranscripts();
    expect(main.callsOf('lastTranscripts')).toHaveLength(1);
    expect(store.getState().panelMember).toBeNull();
    expect(store.ctx.lanes).toBeNull();
    expect(store.ctx.members.size).toBe(0);
  });
});
