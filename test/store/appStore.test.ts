// The app store against a fake worker and in-memory storage: boot and the URL,
// live vs reset-needing changes, telemetry outside React state, persistence
// across a "reload", export/import, delete and rename.
import { afterEach, describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { AppDeps, PickedFile } from '../../src/store/types';
import { METRIC_NAMES } from '../../src/worker/protocol';
import { FakeTrainer, fakeClient, settle } from './fakeClient';
import { LOSS_IDS } from '../../src/contract/losses';

/** A link naming the default preset: a bare first visit opens on the first screen's population instead (test/store/firstVisit.test.ts). */
const DEFAULT_LINK = '?preset=relay-silence';

interface World { store: AppStore; fake: FakeTrainer; storage: MemoryRunStorage; urls: string[]; downloads: { name: string; blob: Blob }[] }
const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(storage = new MemoryRunStorage(), fake = new FakeTrainer(), extra: Partial<AppDeps> = {}): World {
  const urls: string[] = [], downloads: { name: string; blob: Blob }[] = [];
  const store = createAppStore({
    client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: (q) => urls.push(q), download: (name, blob) => downloads.push({ name, blob }),
    persistIntervalMs: 60_000, // flushed by hand in these tests
    ...extra,
  });
  stores.push(store);
  return { store, fake, storage, urls, downloads };
}

const file = (name: string, content: string | Uint8Array): PickedFile => {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return { name, size: bytes.length, text: async () => new TextDecoder().decode(bytes), arrayBuffer: async () => bytes.slice().buffer };
};

describe('app store', () => {
  it('boot applies the valid URL parameters, reports the bad ones, and cleans the URL once', async () => {
    const { store, fake, urls } = world();
    await store.getState().boot('?v=1&preset=relay-budget&groupSize=4&lambdaTok=77&nope=1');
    const s = store.getState();
    expect(fake.callsOf('init')).toEqual([['relay-budget', { groupSize: 4 }]]);
    expect(s.urlProblems).toHaveLength(2);
    expect(s.urlProblems.join('\n')).toMatch(/lambdaTok must be in \[0, 10\]; got 77; not applied/);
    expect(s.urlProblems.join('\n')).toMatch(/unknown parameter "nope"/);
    expect(s.config.groupSize).toBe(4);
    expect(s.config.lambdaTok).toBe(presetConfig(findPreset('relay-budget')).lambdaTok);
    expect(urls).toEqual(['v=1&preset=relay-budget&groupSize=4']);
    expect(s.gpu).toEqual({ state: 'ok', adapter: 'fake adapter' });
  });

  it('without WebGPU it starts on the CPU engine at once, no click needed, and remembers no choice of the person', async () => {
    const fake = new FakeTrainer();
    fake.gpu = { ok: false, reason: 'navigator.gpu found no adapter' };
    const { store } = world(undefined, fake);
    await store.getState().boot(DEFAULT_LINK);
    expect(store.getState().gpu).toEqual({ state: 'none', reason: 'navigator.gpu found no adapter' });
    expect(fake.callsOf('useBackend')).toEqual([['cpu']]);
    expect(fake.callsOf('init')).toHaveLength(1);
    expect(store.getState()).toMatchObject({ backendChoice: 'cpu', backendPref: null, busy: null });
  });

  it('live fields go to setHyperparams at once; bad values are reported by name and not sent', async () => {
    const { store, fake, urls } = world();
    await store.getState().boot(DEFAULT_LINK);
    await store.getState().setField('lambdaTok', '0.3');
    expect(fake.callsOf('setHyperparams')).toEqual([[{ lambdaTok: 0.3 }]]);
    expect(store.getState().config.lambdaTok).toBe(0.3);
    expect(urls.at(-1)).toBe('v=1&preset=relay-silence&lambdaTok=0.3');
    await store.getState().setField('groupSize', '0');
    expect(store.getState().fieldErrors.groupSize).toMatch(/groupSize must be in \[1, 64\]; got 0; not applied/);
    await store.getState().setField('nHead', '3'); // 64 % 3 != 0
    expect(store.getState().fieldErrors.nHead).toMatch(/nEmbd \(64\) must be divisible by nHead \(3\)/);
    expect(fake.callsOf('setHyperparams')).toHaveLength(1);
    expect(fake.callsOf('init')).toHaveLength(1);
    expect(store.getState().confirm).toBeNull();
  });

  it('a field that needs a new run asks first once the run has steps; Cancel changes nothing, confirming starts it', async () => {
    const { store, fake } = world();
    await store.getState().boot(DEFAULT_LINK);
    await store.getState().setField('evalEvery', '5'); // no steps yet: nothing to lose, no question
    expect(fake.callsOf('init').at(-1)).toEqual(['relay-silence', { evalEvery: 5 }]);
    fake.emitSteps(0, 3);
    await store.getState().setField('nLayer', '3');
    const ask = store.getState().confirm;
    expect(ask?.title).toBe('Start a new run?');
    expect(ask?.body).toMatch(/nLayer cannot change while a run trains.*3 steps/);
    await store.getState().answerConfirm(false);
    expect(fake.callsOf('init')).toHaveLength(2);
    expect(store.getState().config.nLayer).toBe(2);
    await store.getState().setField('nLayer', '3');
    await store.getState().answerConfirm(true);
    expect(fake.callsOf('init').at(-1)).toEqual(['relay-silence', { evalEvery: 5, nLayer: 3 }]);
    expect(store.getState().config.nLayer).toBe(3);
    // a preset brings its own settings: also asked once there are steps
    fake.emitSteps(0, 1);
    await store.getState().choosePreset('relay-grpo');
    expect(store.getState().confirm?.confirmLabel).toBe('Switch preset');
    await store.getState().answerConfirm(true);
    expect(fake.callsOf('init').at(-1)).toEqual(['relay-grpo', {}]);
  });

  it('metrics go to the hub without a store update per batch; evals and status do update it', async () => {
    const { store, fake, urls } = world();
    await store.getState().boot(DEFAULT_LINK);
    let updates = 0;
    store.subscribe(() => { updates++; });
    fake.emitSteps(0, 1); // the first batch makes the run's record (one update)
    const afterFirst = updates;
    for (let b = 1; b < 200; b++) fake.emitSteps(b, b + 1);
    expect(updates).toBe(afterFirst);
    const hub = store.ctx.deps.hub;
    const series = hub.get(store.getState().runId!)!;
    expect(series.rows).toBe(200);
    expect(Array.from(series.column('step'))).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(urls).toHaveLength(1); // the URL is not touched per step
    fake.emitEval(0, 1, 8);
    expect(updates).toBeGreaterThan(afterFirst);
    expect(store.getState().runs[0].evals).toHaveLength(1);
  });

  it('a run persists: metrics, evals and checkpoints survive a reload, where a running run shows as interrupted', async () => {
    const storage = new MemoryRunStorage();
    const a = world(storage);
    await a.store.getState().boot(DEFAULT_LINK);
    const id = a.store.getState().runId!;
    a.fake.state.status = 'running';
    const rows = [a.fake.emitSteps(0, 5), a.fake.emitSteps(5, 9)];
    a.fake.emitEval(0, 1, 8);
    a.fake.emitEval(8, 0.9, 1);
    a.fake.emit({ kind: 'status', runId: id, status: 'running' });
    await settle();
    await a.store.ctx.recorder.flush();
    await settle();
    const stored = await storage.listRuns();
    expect(stored.map((r) => [r.id, r.steps, r.status])).toEqual([[id, 9, 'running']]);
    expect(stored[0].evals.map((e) => e.step)).toEqual([0, 8]);
    expect(stored[0].bestEval?.step).toBe(0);
    expect(await storage.getCheckpoint(id, 'best')).toEqual(a.fake.checkpointBytes);
    expect(await storage.getCheckpoint(id, 'last')).toEqual(a.fake.checkpointBytes);
    const loaded = await storage.loadMetrics(id);
    expect(loaded.toArray()).toEqual(new Float64Array([...rows[0], ...rows[1]]));

    // "reload": a new page on the same storage
    const b = world(storage);
    await b.store.getState().boot(DEFAULT_LINK);
    const run = b.store.getState().runs.find((r) => r.id === id)!;
    expect(run.status).toBe('interrupted');
    expect(run.steps).toBe(9);
    expect(b.store.ctx.deps.hub.has(id)).toBe(false);
    await b.store.getState().toggleOverlay(id);
    expect(b.store.getState().overlay).toEqual([id]);
    expect(b.store.ctx.deps.hub.get(id)!.toArray()).toEqual(loaded.toArray());
  });

  it('export then import gives a run with the same metrics and evals; a corrupted import changes nothing', async () => {
    const { store, fake, storage, downloads } = world();
    await store.getState().boot(DEFAULT_LINK);
    const id = store.getState().runId!;
    fake.emitSteps(0, 4);
    fake.emitEval(0, 1, 8);
    fake.emitEval(4, 0.75, 2);
    await store.getState().exportRun(id, 'json');
    await store.getState().exportRun(id, 'csv');
    await store.getState().exportRun(id, 'last');
    await store.getState().exportRun(id, 'trl');
    await store.getState().exportRun(id, 'verl');
    expect(downloads.map((d) => d.name)).toEqual(['relay-silence-1.run.json', 'relay-silence-1.metrics.csv', 'relay-silence-1.last.safetensors', 'relay-silence-1-trl.py', 'relay-silence-1-verl.py']);
    const json = await downloads[0].blob.text();
    expect((await downloads[1].blob.text()).split('\n')[0].startsWith(METRIC_NAMES.join(',') + ',')).toBe(true); // then TRL's names
    expect(await downloads[3].blob.text()).toMatch(/"train_grpo\.py": /);
    expect(await downloads[4].blob.text()).toMatch(/"run_verl\.sh": /);

    const before = (await storage.listRuns()).length;
    await store.getState().importFiles([file('broken.run.json', json.slice(0, -20))]);
    expect(store.getState().importError).toMatch(/^broken\.run\.json was not imported: it is not valid JSON/);
    await store.getState().importFiles([file('r.run.json', json), file('notes.txt', 'hi')]);
    expect(store.getState().importError).toMatch(/notes\.txt was not imported/);
    await store.getState().importFiles([file('r.run.json', json), file('w.safetensors', new Uint8Array([1, 2, 3]))]);
    expect(store.getState().importError).toMatch(/^w\.safetensors was not imported: /);
    expect((await storage.listRuns()).length).toBe(before);

    // into this browser, where it already is: recognised, no second copy (test/store/importAgain.test.ts)
    await store.getState().importFiles([file('r.run.json', json)]);
    expect(store.getState().importError).toMatch(/already in the runs table/);
    expect((await storage.listRuns()).length).toBe(before);
    // into another browser
    const b = world();
    await b.store.getState().boot(DEFAULT_LINK);
    await b.store.getState().importFiles([file('r.run.json', json)]);
    expect(b.store.getState().importError).toBeNull();
    const imported = b.store.getState().runs.find((r) => r.source === 'imported')!;
    expect(imported.id).not.toBe(id);
    expect(imported.name).toBe('relay-silence #1');
    expect(imported.evals).toEqual(store.getState().runs.find((r) => r.id === id)!.evals);
    expect(b.store.getState().overlay).toContain(imported.id);
    const hub = store.ctx.deps.hub;
    expect(b.store.ctx.deps.hub.get(imported.id)!.toArray()).toEqual(hub.get(id)!.toArray());
    expect((await b.storage.loadMetrics(imported.id)).toArray()).toEqual(hub.get(id)!.toArray());
    expect(b.store.getState().notice).toMatch(/Imported "relay-silence #1": 4 steps, 2 evals/);
  });

  it('duplicate sets up a new run with the run\'s preset and settings (asking first when the current run has steps)', async () => {
    const { store, fake } = world();
    await store.getState().boot('?preset=relay-grpo&groupSize=4');
    const first = store.getState().runId!;
    await store.getState().setField('lambdaTok', '0.35');
    fake.emitSteps(0, 2);
    await store.getState().reset();
    await store.getState().answerConfirm(true);
    await store.getState().choosePreset('relay-budget'); // no steps in this run: no question
    expect(store.getState().preset).toBe('relay-budget');
    await store.getState().duplicateRun(first);
    expect(store.getState().confirm).toBeNull();
    expect(fake.callsOf('init').at(-1)).toEqual(['relay-grpo', { groupSize: 4, lambdaTok: 0.35 }]); // the run's config as its first step took it
    expect(store.getState().preset).toBe('relay-grpo');
    expect(store.getState().notice).toMatch(/Set up like "relay-grpo #1": change what you like, then press Start/);
    fake.emitSteps(0, 1);
    await store.getState().duplicateRun(first);
    expect(store.getState().confirm?.confirmLabel).toBe('Duplicate');
  });

  it('twin: the run\'s preset, settings and seed with another loss variant, started, both runs on the charts', async () => {
    const { store, fake } = world();
    await store.getState().boot('?preset=relay-silence&groupSize=4&seed=7');
    const first = store.getState().runId!;
    fake.emitSteps(0, 2);
    await store.getState().twinRun(first, 'gspo');
    expect(store.getState().error).toMatch(/already trains with gspo; pick another loss variant/);
    await store.getState().twinRun(first, 'ppo');
    expect(store.getState().error).toMatch(new RegExp(`algorithm must be one of ${LOSS_IDS.join(', ')}; got "ppo"`));
    await store.getState().twinRun(first, 'grpo');
    expect(store.getState().confirm?.confirmLabel).toBe('Train twin'); // the current run has steps: asked first
    expect(store.getState().confirm?.body).toMatch(/seed \(7\).*clip range, to 0.2 \/ 0.2/);
    await store.getState().answerConfirm(true);
    // the same preset and seed; GSPO's range becomes GRPO's (the token scale)
    expect(fake.callsOf('init').at(-1)).toEqual(['relay-silence', { groupSize: 4, seed: 7, algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2 }]);
    expect(fake.callsOf('start').length).toBeGreaterThan(0);
    const twin = store.getState().runId!;
    expect(twin).not.toBe(first);
    expect(store.getState().overlay).toContain(first); // the source beside the twin
    expect(store.getState().notice).toMatch(/twin of .* with GRPO .*seed 7: both are on the charts/);
  });

  it('delete asks first and removes the run from storage; the run in the trainer cannot be deleted; rename persists', async () => {
    const { store, fake, storage } = world();
    await store.getState().boot(DEFAULT_LINK);
    const first = store.getState().runId!;
    fake.emitSteps(0, 2);
    await store.getState().reset();
    await store.getState().answerConfirm(true);
    const second = store.getState().runId!;
    expect(second).not.toBe(first);
    fake.emitSteps(0, 1);
    await store.getState().deleteRun(second);
    expect(store.getState().error).toMatch(/run in the trainer/);
    await store.getState().renameRun(first, '  my first run ');
    expect((await storage.listRuns()).find((r) => r.id === first)?.name).toBe('my first run');
    await store.getState().deleteRun(first);
    expect(store.getState().confirm?.title).toBe('Delete "my first run"?');
    await store.getState().answerConfirm(true);
    expect(store.getState().runs.map((r) => r.id)).toEqual([second]);
    expect((await storage.listRuns()).map((r) => r.id)).not.toContain(first);
    expect((await storage.loadMetrics(first)).rows).toBe(0);
  });

  it('rare events that arrive together reach the store as one update; checkpoints while training are stored at most once per interval, and at once when the run stops', async () => {
    let now = 1_000_000;
    const { store, fake, storage } = world(undefined, undefined, { publishDelayMs: 50, checkpointIntervalMs: 10_000, now: () => now });
    await store.getState().boot(DEFAULT_LINK);
    const id = store.getState().runId!;
    fake.emitSteps(0, 1); // makes the run's record
    await settle();
    let updates = 0;
    store.subscribe(() => { updates++; });
    fake.emitEval(0, 1, 8);
    fake.emitEval(1, 0.5, 4);
    fake.emitEval(2, 1, 2); // a new best
    expect(updates).toBe(0); // not yet: they are gathered
    await new Promise((r) => setTimeout(r, 80));
    await settle();
    expect(store.getState().runs.find((r) => r.id === id)!.evals.map((e) => e.step)).toEqual([0, 1, 2]);
    expect(updates).toBeLessThanOrEqual(3); // the evals together, the snapshot, the first checkpoints: not one per event
    // 'last' is exported with its resume state (exportResume), 'best' alone
    const exports = () => fake.calls.filter((c) => c.method === 'exportCheckpoint' || c.method === 'exportResume').map((c) => (c.method === 'exportResume' ? 'last' : c.args[0]));
    expect(exports()).toEqual(['best', 'last']); // the first eval's; the next two came within the interval
    now += 5_000;
    fake.emitEval(3, 1, 1); // better again, still within 10 s
    await settle();
    expect(exports()).toEqual(['best', 'last']);
    // the run stops: the newest last and best are stored now
    fake.state.status = 'paused';
    fake.emit({ kind: 'status', runId: id, status: 'paused', message: 'paused at step 4' });
    await new Promise((r) => setTimeout(r, 80));
    expect(exports().slice(2).sort()).toEqual(['best', 'last']);
    const meta = store.getState().runs.find((r) => r.id === id)!;
    expect(meta.checkpoints.best).toBe(3);
    expect(meta.status).toBe('paused');
    expect(await storage.getCheckpoint(id, 'best')).toEqual(fake.checkpointBytes);
  });
});
