// The page's own state against a fake worker: what a reload keeps (the CPU
// choice, the overlay, the guide's dismissal), resuming a run that was
// training, the sister-preset comparison, and "best" by the chosen rule.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryPrefs, parsePrefs, DEFAULT_PREFS } from '../../src/store/pagePrefs';
import { sisterOverrides } from '../../src/store/pageSlice';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { presetConfig, findPreset } from '../../src/envs/presets';
import { FakeTrainer, fakeClient, settle } from './fakeClient';

/** A link naming the default preset: a bare first visit opens on the first screen's population instead (test/store/firstVisit.test.ts). */
const DEFAULT_LINK = '?preset=relay-silence';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(storage = new MemoryRunStorage(), prefs = new MemoryPrefs(), fake = new FakeTrainer()) {
  const store = createAppStore({ client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, prefs });
  stores.push(store);
  return { store, fake, storage, prefs };
}

/** A page that trains `steps` steps of its run, with evals at 0 and at the end, and leaves it in `status`. */
async function trained(w: ReturnType<typeof world>, steps: number, status: 'running' | 'paused') {
  await w.store.getState().boot(DEFAULT_LINK);
  const id = w.store.getState().runId!;
  w.fake.emitSteps(0, steps);
  w.fake.emitEval(0, 0.5, 8);
  w.fake.emitEval(steps, 0.9, 2);
  w.fake.state.status = status;
  w.fake.emit({ kind: 'status', runId: id, status });
  await settle();
  await w.store.ctx.saveStaleCheckpoints(id);
  await w.store.ctx.recorder.flush();
  await settle();
  return id;
}

describe('what a reload keeps', () => {
  it('the CPU backend chosen before: the next visit goes to the CPU without asking, even where WebGPU answers', async () => {
    const prefs = new MemoryPrefs();
    const noGpu = new FakeTrainer();
    noGpu.gpu = { ok: false, reason: 'no adapter' };
    const a = world(undefined, prefs, noGpu);
    await a.store.getState().boot(DEFAULT_LINK);
    expect(noGpu.callsOf('useBackend')).toEqual([['cpu']]); // the page's own choice: not remembered as the person's
    expect(parsePrefs(prefs.value).backend).toBeNull();
    await a.store.getState().useCpu();
    expect(parsePrefs(prefs.value).backend).toBe('cpu');

    const b = world(undefined, prefs); // this fake offers an adapter
    await b.store.getState().boot(DEFAULT_LINK);
    expect(b.fake.callsOf('useBackend')).toEqual([['cpu']]);
    expect(b.fake.callsOf('init')).toHaveLength(1);
    expect(b.store.getState().backendChoice).toBe('cpu');
    expect(b.store.getState().busy).toBeNull();
  });

  it('the overlaid runs come back with their metrics; a run deleted meanwhile is dropped from the overlay', async () => {
    const storage = new MemoryRunStorage(), prefs = new MemoryPrefs();
    const a = world(storage, prefs);
    const first = await trained(a, 3, 'paused');
    await a.store.getState().reset(); // a new run; the first stays in the table
    await a.store.getState().answerConfirm(true);
    await a.store.getState().toggleOverlay(first);
    expect(parsePrefs(prefs.value).overlay).toEqual([first]);
    prefs.value = { ...(prefs.value as object), overlay: [first, 'gone-run'] };

    const b = world(storage, prefs);
    await b.store.getState().boot(DEFAULT_LINK);
    expect(b.store.getState().overlay).toEqual([first]);
    expect(b.store.ctx.deps.hub.get(first)!.rows).toBe(3);
  });

  it('the first-run guide, once dismissed, stays dismissed; the best rule and the accuracy axis are kept', async () => {
    const prefs = new MemoryPrefs();
    const a = world(undefined, prefs);
    await a.store.getState().boot(DEFAULT_LINK);
    expect(a.store.getState().guideDismissed).toBe(false);
    a.store.getState().dismissGuide();
    a.store.getState().setBestRule('tokens', 1.5);
    a.store.getState().setAccuracyAxis('full');
    const b = world(undefined, prefs);
    expect(b.store.getState().guideDismissed).toBe(false); // before boot: the defaults
    await b.store.getState().boot(DEFAULT_LINK);
    expect(b.store.getState()).toMatchObject({ guideDismissed: true, bestRule: 'tokens', bestTarget: 1.5, accuracyAxis: 'full' });
  });

  it('stored prefs of the wrong shape fall back field by field, never throwing', () => {
    expect(parsePrefs('garbage')).toEqual(DEFAULT_PREFS);
    expect(parsePrefs({ backend: 'gpu', overlay: ['a', 3, null, 'b'], guideDismissed: 'yes', bestRule: 'tokens', bestTarget: -1, accuracyAxis: 'full' }))
      .toEqual({ ...DEFAULT_PREFS, overlay: ['a', 'b'], bestRule: 'tokens', accuracyAxis: 'full' });
  });
});

describe('resuming a run that was training when the page closed', () => {
  it('offers the run, and Resume continues the same run: its record, step counter, evals, metrics and stored optimizer state', async () => {
    const storage = new MemoryRunStorage();
    const a = world(storage);
    const id = await trained(a, 4, 'running');
    // the fake's optimizer after 4 steps (fakeClient: m = [step], v = [2 step], counter 4 step), stored with the last checkpoint
    expect((await storage.getResumeState(id))?.optimizer).toEqual({ m: new Float32Array([4]), v: new Float32Array([8]), step: 16 });
    // it trained two more steps before the page closed, without a newer checkpoint
    a.fake.emitSteps(4, 6);
    await settle();
    await a.store.ctx.recorder.flush();

    const b = world(storage);
    await b.store.getState().boot(DEFAULT_LINK);
    const r = b.store.getState().resumable!;
    expect(r).toEqual({ id, name: 'relay-silence #1', step: 4, status: 'interrupted' });
    b.fake.calls = [];
    await b.store.getState().resume();
    const [call] = b.fake.callsOf('resume') as [string, number, number | null, { step: number; evals: { step: number }[]; optimizer?: unknown }][];
    expect(call[0]).toBe(id); // the same run id goes to the worker
    expect([call[1], call[2]]).toEqual([3, 3]); // its last and best checkpoints (the fake's 3 bytes each)
    expect(call[3].step).toBe(4);
    expect(call[3].evals.map((e) => e.step)).toEqual([0, 4]);
    expect(call[3].optimizer).toEqual({ m: new Float32Array([4]), v: new Float32Array([8]), step: 16 });
    expect(b.fake.callsOf('loadCheckpoint')).toEqual([]);
    expect(b.fake.callsOf('start')).toHaveLength(1);
    const st = b.store.getState();
    expect(st.runId).toBe(id);
    expect(st.resumable).toBeNull();
    expect(st.overlay).not.toContain(id);
    expect(st.notice).toMatch(/^Resumed "relay-silence #1" at step 4: the same run goes on, with its optimizer state\.$/);

    // the worker goes on from step 4: rows 4 and 5 of before are replaced, nothing new is recorded
    b.fake.emitSteps(4, 7);
    b.fake.emitEval(7, 0.95, 1);
    await settle();
    await b.store.ctx.recorder.flush();
    expect(b.store.getState().runs.map((m) => m.id)).toEqual([id]);
    const meta = b.store.getState().runs[0];
    expect(meta.name).toBe('relay-silence #1');
    expect(meta.steps).toBe(7);
    expect(meta.evals.map((e) => e.step)).toEqual([0, 4, 7]);
    const rows = await storage.loadMetrics(id);
    expect(Array.from({ length: rows.rows }, (_, i) => rows.value(i, 'step'))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // the checkpoint stored now is of step 7, with the optimizer of step 7
    expect((await storage.getResumeState(id))?.optimizer?.step).toBe(28);
  });

  it('a run stored without optimizer state resumes from its weights and counters, and the notice says the optimizer restarts', async () => {
    const storage = new MemoryRunStorage();
    const a = world(storage);
    const id = await trained(a, 4, 'paused');
    // as an older page stored it: the last checkpoint alone (storing one without a state removes an older state)
    await storage.putCheckpoint(id, 'last', a.fake.checkpointBytes);
    expect(await storage.getResumeState(id)).toBeNull();

    const b = world(storage);
    await b.store.getState().boot(DEFAULT_LINK);
    await b.store.getState().resume();
    const [call] = b.fake.callsOf('resume') as [string, number, number | null, { step: number; evals: { step: number }[]; lambdaTok: number; optimizer?: unknown }][];
    expect(call[0]).toBe(id);
    expect(call[3].step).toBe(4);
    expect(call[3].evals.map((e) => e.step)).toEqual([0, 4]);
    expect(call[3].optimizer).toBeUndefined();
    expect(b.store.getState().runId).toBe(id);
    expect(b.store.getState().notice).toMatch(/at step 4: the same run goes on, but its optimizer restarts/);
    expect(b.store.getState().runs.map((m) => m.id)).toEqual([id]);
  });

  it('deleting a run deletes its resume state', async () => {
    const storage = new MemoryRunStorage();
    const a = world(storage);
    const id = await trained(a, 2, 'paused');
    expect(await storage.getResumeState(id)).not.toBeNull();
    await storage.deleteRun(id);
    expect(await storage.getResumeState(id)).toBeNull();
  });

  it('a finished or never-checkpointed run is not offered', async () => {
    const storage = new MemoryRunStorage();
    const a = world(storage);
    await a.store.getState().boot(DEFAULT_LINK);
    a.fake.emitSteps(0, 2); // a record, but no eval and so no checkpoint
    await settle();
    await a.store.ctx.recorder.flush();
    const b = world(storage);
    await b.store.getState().boot(DEFAULT_LINK);
    expect(b.store.getState().resumable).toBeNull();
  });
});

describe('sister presets', () => {
  it('keep the size overrides of the current run but not the fields the two presets differ in', () => {
    const cfg = { ...presetConfig(findPreset('relay-silence')), groupSize: 4, promptsPerStep: 2, epsLow: 0.001 };
    // relay-grpo differs in algorithm and eps: the eps override is the GSPO run's own, not carried
    expect(sisterOverrides('relay-silence', 'relay-grpo', cfg)).toEqual({ groupSize: 4, promptsPerStep: 2 });
    expect(sisterOverrides('relay-silence', 'relay-no-groupnorm', cfg)).toEqual({ groupSize: 4, promptsPerStep: 2, epsLow: 0.001 });
  });

  it('runSister starts the sister with those overrides, overlays the run it came from and starts training', async () => {
    const w = world();
    await w.store.getState().boot('?v=1&preset=relay-silence&groupSize=4');
    const first = w.store.getState().runId!;
    w.fake.emitSteps(0, 2);
    await settle();
    await w.store.getState().runSister('relay-grpo');
    expect(w.fake.callsOf('init').at(-1)).toEqual(['relay-grpo', { groupSize: 4 }]);
    expect(w.store.getState().preset).toBe('relay-grpo');
    expect(w.store.getState().overlay).toEqual([first]);
    expect(w.fake.callsOf('start')).toHaveLength(1);
  });

  it('an unknown sister is an error that changes nothing', async () => {
    const w = world();
    await w.store.getState().boot(DEFAULT_LINK);
    await w.store.getState().runSister('relay-nope');
    expect(w.store.getState().error).toMatch(/no sister run: .*relay-nope/);
    expect(w.store.getState().preset).toBe('relay-silence');
    expect(w.fake.callsOf('init')).toHaveLength(1);
  });
});

describe('Restore best follows the chosen rule', () => {
  it('accuracy: the worker\'s best; tokens: the eval the rule picks, by its step', async () => {
    const w = world();
    await w.store.getState().boot(DEFAULT_LINK);
    w.fake.emitSteps(0, 20);
    w.fake.emitEval(0, 0.8, 8); // best accuracy
    w.fake.emitEval(10, 0.7, 1.5);
    w.fake.emitEval(20, 0.6, 0.5);
    w.store.ctx.applySnapshot(await w.fake.getState());
    // the default: the highest reward (accuracy - 0.1 tokens in the fake: 0, 0.55, 0.55; a tie to fewer tokens)
    await w.store.getState().restoreBest();
    expect(w.fake.callsOf('restoreEval')).toEqual([[20]]);
    w.store.getState().setBestRule('accuracy', 2);
    await w.store.getState().restoreBest();
    expect(w.fake.callsOf('restoreBest')).toHaveLength(1);
    w.store.getState().setBestRule('tokens', 2);
    await w.store.getState().restoreBest();
    expect(w.fake.callsOf('restoreEval')).toEqual([[20], [10]]);
  });
});

describe('the CPU choice can be undone', () => {
  it('useGpu goes back to auto (WebGPU when there is one), starts a run there, and the next visit remembers that', async () => {
    const prefs = new MemoryPrefs({ backend: 'cpu' });
    const a = world(undefined, prefs);
    await a.store.getState().boot(DEFAULT_LINK);
    expect(a.store.getState().backendChoice).toBe('cpu');
    await a.store.getState().useGpu();
    expect(a.fake.callsOf('useBackend')).toEqual([['cpu'], ['auto']]);
    expect(a.fake.callsOf('init')).toHaveLength(2);
    expect(parsePrefs(prefs.value).backend).toBe('webgpu');
  });
});

describe('the page chooses the CPU engine on a software adapter', () => {
  const swiftShader = (): FakeTrainer => Object.assign(new FakeTrainer(), { gpu: { ok: true, adapter: 'google swiftshader' } });

  it('SwiftShader: the CPU engine without asking, Start ready, and nothing remembered as the person\'s choice', async () => {
    const prefs = new MemoryPrefs();
    const a = world(undefined, prefs, swiftShader());
    await a.store.getState().boot(DEFAULT_LINK);
    expect(a.fake.callsOf('useBackend')).toEqual([['cpu']]);
    expect(a.fake.callsOf('init')).toHaveLength(1);
    expect(a.store.getState()).toMatchObject({ backendChoice: 'cpu', backendPref: null, busy: null });
    expect(a.store.getState().trainer?.config).not.toBeNull(); // Start's condition
    expect(parsePrefs(prefs.value).backend).toBeNull();
  });

  it('an adapter the browser flags as its fallback counts as software, whatever its name', async () => {
    const fake = Object.assign(new FakeTrainer(), { gpu: { ok: true, adapter: 'some vendor', fallback: true } });
    const a = world(undefined, new MemoryPrefs(), fake);
    await a.store.getState().boot(DEFAULT_LINK);
    expect(a.store.getState().gpu).toEqual({ state: 'ok', adapter: 'some vendor', fallback: true });
    expect(fake.callsOf('useBackend')).toEqual([['cpu']]);
  });

  it('a hardware adapter: WebGPU, no useBackend call', async () => {
    const a = world(undefined, new MemoryPrefs()); // the fake's 'fake adapter'
    await a.store.getState().boot(DEFAULT_LINK);
    expect(a.fake.callsOf('useBackend')).toEqual([]);
    expect(a.store.getState().backendChoice).toBe('auto');
  });

  it('"Try WebGPU anyway" is the person\'s choice: WebGPU now and on the next visit, on the same software adapter', async () => {
    const prefs = new MemoryPrefs();
    const a = world(undefined, prefs, swiftShader());
    await a.store.getState().boot(DEFAULT_LINK);
    await a.store.getState().useGpu();
    expect(a.fake.callsOf('useBackend')).toEqual([['cpu'], ['auto']]);
    expect(parsePrefs(prefs.value).backend).toBe('webgpu');
    const b = world(undefined, prefs, swiftShader());
    await b.store.getState().boot(DEFAULT_LINK);
    expect(b.fake.callsOf('useBackend')).toEqual([]);
    expect(b.store.getState()).toMatchObject({ backendChoice: 'auto', backendPref: 'webgpu' });
  });

  it('a stored "auto" (written by earlier pages whether or not the person chose) leaves the choice to the page', async () => {
    const a = world(undefined, new MemoryPrefs({ backend: 'auto' }), swiftShader());
    await a.store.getState().boot(DEFAULT_LINK);
    expect(a.fake.callsOf('useBackend')).toEqual([['cpu']]);
    expect(a.store.getState().backendPref).toBeNull();
  });
});

describe('progress inside a long step', () => {
  it('the worker\'s count goes to stepWithin (not to the warm-start progress or the run status), and the step\'s metrics clear it', async () => {
    const w = world();
    await w.store.getState().boot(DEFAULT_LINK);
    const id = w.store.getState().runId!;
    w.fake.emit({ kind: 'status', runId: id, status: 'running' });
    w.fake.emit({ kind: 'status', runId: id, status: 'running', within: { step: 0, done: 2, of: 4 } });
    expect(w.store.getState().stepWithin).toEqual({ step: 0, done: 2, of: 4 });
    expect(w.store.getState().progress).toBeNull();
    w.fake.emit({ kind: 'status', runId: 'another-run', status: 'running', within: { step: 9, done: 1, of: 4 } });
    expect(w.store.getState().stepWithin).toEqual({ step: 0, done: 2, of: 4 }); // another run's progress is not this one's
    w.fake.emitSteps(0, 1);
    expect(w.store.getState().stepWithin).toBeNull();
  });
});

describe('a run being born', () => {
  it('init\'s stages (the engine, the warm start\'s file, its progress) are the busy line while the page waits; other runs\' stages and stages after the wait are not', async () => {
    const w = world();
    await w.store.getState().boot(DEFAULT_LINK);
    const old = w.store.getState().runId!;
    let release = () => {};
    const gate = new Promise<void>((r) => { release = r; });
    const init = w.fake.init.bind(w.fake);
    w.fake.init = async (preset, overrides) => { await gate; return init(preset, overrides); };
    const loading = w.store.ctx.initRun('relay-silence', {});
    await settle();
    expect(w.store.getState().busy).toBe('Loading the warm start…');
    w.fake.emit({ kind: 'status', runId: 'run-born', status: 'idle', message: 'Starting the compute engine…', starting: true });
    expect(w.store.getState().busy).toBe('Starting the compute engine…');
    w.fake.emit({ kind: 'status', runId: 'run-born', status: 'idle', message: 'Fetching the warm start (x.safetensors)…', starting: true });
    expect(w.store.getState().busy).toBe('Fetching the warm start (x.safetensors)…');
    w.fake.emit({ kind: 'status', runId: 'run-born', status: 'idle', message: 'pretraining 3/10', progress: 0.3, starting: true });
    expect(w.store.getState()).toMatchObject({ busy: 'pretraining 3/10', progress: 0.3 });
    w.fake.emit({ kind: 'status', runId: old, status: 'idle', message: 'not a birth', starting: true }); // a run the page holds: not a stage
    expect(w.store.getState().busy).toBe('pretraining 3/10');
    expect(w.store.getState().runId).toBe(old); // a stage does not make the run current, nor touch the current one's status
    expect(w.store.getState().message).not.toMatch(/pretraining|Fetching|Starting/);
    release();
    await loading;
    expect(w.store.getState().busy).toBeNull();
    const message = w.store.getState().message;
    w.fake.emit({ kind: 'status', runId: w.store.getState().runId!, status: 'idle', message: 'Fetching the warm start (late)…', starting: true });
    expect(w.store.getState()).toMatchObject({ busy: null, progress: null, message }); // a stage that arrives after init answered changes nothing
  });
});
