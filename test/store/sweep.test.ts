// The page's sweep against fake lane workers whose runs finish by themselves: one
// member per value with the right overrides, final evals recorded, the frontier by
// hand, a reload that marks the interrupted members, resume, stop, and bad values.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { afterReload, parseSweepRecord, SWEEP_KEY, type KeyValueStore, type SweepRecord } from '../../src/store/sweepSlice';
import { sweepPoints } from '../../src/ui/SweepPanel';
import { paretoFrontier as sweepFrontier } from '../../src/rl/pareto';
import { FakeTrainer, fakeClient, fakeLane } from './fakeClient';

/** A fake whose started run finishes after a moment, with a final eval that depends on lambda_tok. */
class FinishingTrainer extends FakeTrainer {
  finishAfterMs = 20;
  final = (lambda: number) => ({ accuracy: 1 - lambda, tokens: 4 - 10 * lambda });
  constructor(private readonly hold: (lambda: number) => boolean) { super(); } // true: the run never finishes (a sweep to stop or reload)
  override async start() {
    const snap = await super.start();
    const runId = this.state.runId!;
    if (!this.hold(this.state.lambdaTok)) {
      setTimeout(() => {
        if (this.state.runId !== runId || this.state.status !== 'running') return;
        this.finishRun(runId, this.final(this.state.lambdaTok));
      }, this.finishAfterMs);
    }
    return snap;
  }
}

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(kv: KeyValueStore = memoryKv(), hold: (lambda: number) => boolean = () => false, storage = new MemoryRunStorage()) {
  const members: FinishingTrainer[] = [];
  const main = new FakeTrainer();
  const store = createAppStore({
    client: fakeClient(main), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv,
    spawnTrainer: () => fakeLane(() => { const m = new FinishingTrainer(hold); members.push(m); return m; }),
  });
  stores.push(store);
  return { store, main, members, kv };
}
const inits = (members: FakeTrainer[]) => members.flatMap((m) => m.callsOf('init'));
const until = async (cond: () => boolean) => { for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10)); };

describe('sweep in the store', () => {
  it('runs one run per lambda_tok with that value, records each final eval, and draws the frontier', async () => {
    const { store, members, kv } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5&recipe=off'); // each setting as typed (the recipe: sweepPopulation.test.ts)
    store.getState().setSweepDraft('0, 0.1, 0.3');
    expect(store.getState().sweepDraftError).toBeNull();
    await store.getState().startSweep();
    const s = store.getState().sweep!;
    expect(s.status).toBe('done');
    expect(s.runs.map((r) => r.status)).toEqual(['done', 'done', 'done']);
    // one member per value: manual lambda_tok = the value, the rest of the setup kept (steps=5)
    expect(inits(members).sort((a, b) => (a[1] as { lambdaTok: number }).lambdaTok - (b[1] as { lambdaTok: number }).lambdaTok)).toEqual([0, 0.1, 0.3].map((v) => ['relay-noisy-dr', { steps: 5, lambdaMode: 'manual', lambdaTok: v }]));
    expect(new Set(s.runs.map((r) => r.runId)).size).toBe(3);
    expect(s.runs.map((r) => r.accuracy)).toEqual([1, 0.9, 0.7]);
    expect(s.runs.map((r) => r.tokens)).toEqual([4, 3, 1]);
    // every run has a record named after its value (what the runs table shows)
    const names = s.runs.map((r) => store.getState().runs.find((m) => m.id === r.runId)?.name);
    expect(names).toEqual(['relay-noisy-dr sweep lambda_tok=0', 'relay-noisy-dr sweep lambda_tok=0.1', 'relay-noisy-dr sweep lambda_tok=0.3']);
    // all three trade accuracy for tokens: none dominates another
    expect(sweepFrontier(sweepPoints(s)).map((p) => p.value)).toEqual([0.3, 0.1, 0]);
    expect(JSON.parse(kv.get(SWEEP_KEY)!).status).toBe('done');
  });

  it('a dominated run is left off the frontier', () => {
    const rec = (value: number, accuracy: number, tokens: number) => ({ label: `l=${value}`, value, status: 'done' as const, runId: `r${value}`, accuracy, tokens, startedAt: 0, finishedAt: 1 });
    const s: SweepRecord = { id: 's', preset: 'relay-noisy-dr', axis: 'lambdaTok', base: {}, steps: 1, status: 'done', message: null, createdAt: 0,
      runs: [rec(0, 1, 6), rec(0.01, 1, 4), rec(0.1, 0.95, 1.4), rec(0.3, 0.7, 2)] };
    // (6, 1.00) is beaten by (4, 1.00); (2, 0.70) by (1.4, 0.95)
    expect(sweepFrontier(sweepPoints(s)).map((p) => p.value)).toEqual([0.1, 0.01]);
  });

  it('a reload keeps finished runs, marks the running ones interrupted, and Resume runs the rest', async () => {
    const kv = memoryKv(), storage = new MemoryRunStorage();
    const first = world(kv, (l) => l > 0, storage); // only lambda 0 finishes: the page "closes" while the others train
    await first.store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5&recipe=off');
    first.store.getState().setSweepDraft('0, 0.1, 0.3');
    const sweeping = first.store.getState().startSweep();
    await until(() => { const r = parseSweepRecord(kv.get(SWEEP_KEY)).sweep?.runs; return r?.[0].status === 'done' && r[2].status === 'running'; });
    const stored = parseSweepRecord(kv.get(SWEEP_KEY)).sweep!;
    expect(stored.runs.map((r) => r.status)).toEqual(['done', 'running', 'running']);

    await first.store.ctx.recorder.flush();
    const second = world(kv, () => false, storage); // the reload
    const s = second.store.getState().sweep!;
    expect(s.status).toBe('interrupted');
    expect(s.runs.map((r) => r.status)).toEqual(['done', 'interrupted', 'interrupted']);
    expect(s.runs[0].accuracy).toBe(1);
    await second.store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5&recipe=off');
    // one banner offers the population (not a member alone), named by its preset
    expect(second.store.getState().resumable).toMatchObject({ id: s.id, name: 'relay-noisy-dr population', members: 2, step: 0 });
    await second.store.getState().resume();
    const after = second.store.getState().sweep!;
    expect(after.status).toBe('done');
    expect(after.runs.map((r) => r.status)).toEqual(['done', 'done', 'done']);
    // the finished member is not trained again; the interrupted ones are (no checkpoint was stored: no eval before the reload)
    expect(inits(second.members).map((c) => (c[1] as { lambdaTok: number }).lambdaTok).sort()).toEqual([0.1, 0.3]);
    // they started anew, so their old records went: one row per member in the runs table, no duplicate names
    const rows = second.store.getState().runs.filter((m) => m.member?.sweep === s.id);
    expect(rows.map((m) => m.name).sort()).toEqual(['relay-noisy-dr sweep lambda_tok=0', 'relay-noisy-dr sweep lambda_tok=0.1', 'relay-noisy-dr sweep lambda_tok=0.3']);
    await first.store.getState().stopSweep();
    await sweeping;
  });

  it('Stop pauses every member and marks them interrupted; bad values name the entry and start nothing', async () => {
    const { store, members } = world(memoryKv(), () => true);
    await store.getState().boot('?v=1&preset=relay-noisy-dr');
    store.getState().setSweepDraft('0, x, 0.3');
    expect(store.getState().sweepDraftError).toMatch(/entry 2 \("x"\)/);
    await store.getState().startSweep();
    expect(store.getState().sweep).toBeNull();
    store.getState().setSweepDraft('0, 11');
    expect(store.getState().sweepDraftError).toMatch(/lambdaTok must be in \[0, 10\]/);
    store.getState().setSweepDraft('0.05, 0.2');
    const sweeping = store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.state.status === 'running'));
    await store.getState().stopSweep();
    await sweeping;
    const s = store.getState().sweep!;
    expect(s.status).toBe('stopped');
    expect(s.runs.map((r) => r.status)).toEqual(['interrupted', 'interrupted']);
    expect(members.every((m) => m.callsOf('pause').length > 0)).toBe(true);
  });

  it('without a way to start trainer workers the sweep is refused with a reason, and the main run is left alone', async () => {
    const main = new FakeTrainer();
    const store = createAppStore({ client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv() });
    stores.push(store);
    await store.getState().boot('?v=1&preset=relay-noisy-dr');
    store.getState().setSweepDraft('0, 0.1');
    await store.getState().startSweep();
    expect(store.getState().sweep!.status).toBe('stopped');
    expect(store.getState().sweep!.message).toMatch(/cannot start trainer workers/);
    expect(main.callsOf('init')).toHaveLength(1); // the boot's
  });

  it('a stored record that does not check is dropped with a reason; an unfinished one reads as interrupted', () => {
    expect(parseSweepRecord('{"id": 1}').sweep).toBeNull();
    expect(parseSweepRecord('{"id": 1}').problem).toMatch(/dropped/);
    expect(parseSweepRecord('[[[[').problem).toMatch(/dropped/);
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    expect(parseSweepRecord(deep).sweep).toBeNull();
    const s: SweepRecord = { id: 's', preset: 'relay-budget', axis: 'budget', base: {}, steps: 3, status: 'running', message: null, createdAt: 0,
      runs: [{ label: 'B=4', value: 4, status: 'running', runId: 'a', accuracy: null, tokens: null, startedAt: 0, finishedAt: null }] };
    expect(parseSweepRecord(JSON.stringify(s)).sweep).toEqual(s);
    expect(parseSweepRecord(JSON.stringify({ ...s, preset: 'p' })).problem).toMatch(/sweep\.preset "p" is not one of/);
    expect(afterReload(s)!.runs[0].status).toBe('interrupted');
  });
});
