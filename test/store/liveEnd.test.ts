// What the store keeps and passes on about a run's end: the recipe export
// written with the values in force at the end (live changes applied) and the
// changes listed beside it; the CSV's step column counting as the page does;
// a paused run offered after a reload as paused, not as interrupted.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { METRIC_NAMES } from '../../src/worker/protocol';
import { FakeTrainer, fakeClient, settle } from './fakeClient';

/** A link naming the default preset: a bare first visit opens on the first screen's population instead (test/store/firstVisit.test.ts). */
const DEFAULT_LINK = '?preset=relay-silence';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(storage = new MemoryRunStorage(), fake = new FakeTrainer()) {
  const downloads: { name: string; blob: Blob }[] = [];
  const store = createAppStore({ client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: (name, blob) => downloads.push({ name, blob }), persistIntervalMs: 60_000 });
  stores.push(store);
  return { store, fake, storage, downloads };
}

describe('the recipe export after live changes', () => {
  it('writes the values in force at the end and lists the changes, each from the step it applied', async () => {
    const { store, fake, downloads } = world();
    await store.getState().boot(DEFAULT_LINK); // relay-silence: lambda_tok 0.1
    const id = store.getState().runId!;
    fake.emitSteps(0, 3);
    await settle();
    await store.getState().setField('lambdaTok', '0.3'); // after 3 steps: the 4th step is the first with 0.3
    fake.emitSteps(3, 6);
    await settle();
    await store.getState().setField('lambdaTok', '0.45');
    await store.getState().exportRun(id, 'trl');
    await store.getState().exportRun(id, 'verl');
    // read as text, not parsed: how the bundle quotes its files is the exporter's business
    const trl = await downloads[0].blob.text(), verl = await downloads[1].blob.text();
    expect(trl).toContain('reward_weights=[1, -0.45, 0, 0],');
    expect(trl).not.toContain('reward_weights=[1, -0.1, 0, 0],');
    expect(verl).toContain('LAMBDA_TOK = 0.45');
    for (const bundle of [trl, verl]) {
      expect(bundle).toMatch(/["']LIVE_CHANGES\.md["']: /);
      expect(bundle).toContain('| 4 | lambdaTok | 0.1 | 0.3 |');
      expect(bundle).toContain('| 7 | lambdaTok | 0.3 | 0.45 |');
    }
  });

  it('a run without live changes exports as before: no list of changes', async () => {
    const { store, fake, downloads } = world();
    await store.getState().boot(DEFAULT_LINK);
    fake.emitSteps(0, 2);
    await settle();
    await store.getState().exportRun(store.getState().runId!, 'trl');
    const trl = await downloads[0].blob.text();
    expect(trl).not.toContain('LIVE_CHANGES.md');
    expect(trl).toContain('reward_weights=[1, -0.1, 0, 0],');
  });
});

describe('the metrics CSV counts steps as the page does', () => {
  it('the row of the k-th step says step k', async () => {
    const { store, fake, downloads } = world();
    await store.getState().boot(DEFAULT_LINK);
    fake.emitSteps(0, 3); // the worker's step indices 0, 1, 2
    await settle();
    await store.getState().exportRun(store.getState().runId!, 'csv');
    const [head, ...rows] = (await downloads[0].blob.text()).trim().split('\n');
    const col = head.split(',').indexOf('step');
    expect(col).toBe(METRIC_NAMES.indexOf('step'));
    expect(rows.map((r) => Number(r.split(',')[col]))).toEqual([1, 2, 3]);
  });
});

describe('a reload after Pause', () => {
  it('offers the paused run as paused; an interrupted one as interrupted', async () => {
    for (const status of ['paused', 'running'] as const) {
      const storage = new MemoryRunStorage();
      const a = world(storage);
      await a.store.getState().boot(DEFAULT_LINK);
      const id = a.store.getState().runId!;
      a.fake.emitSteps(0, 4);
      a.fake.emitEval(4, 0.9, 2);
      a.fake.state.status = status;
      a.fake.emit({ kind: 'status', runId: id, status });
      await settle();
      await a.store.ctx.saveStaleCheckpoints(id);
      await a.store.ctx.recorder.flush();
      await settle();
      const b = world(storage);
      await b.store.getState().boot(DEFAULT_LINK);
      expect(b.store.getState().resumable).toEqual({ id, name: 'relay-silence #1', step: 4, status: status === 'paused' ? 'paused' : 'interrupted' });
    }
  });
});
