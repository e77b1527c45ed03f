// The page's engine by measurement, in the store: on a hardware adapter with no choice of the
// person's, boot asks the worker to time both engines and follows the faster (populations too: their lanes
// get the CPU engine); a person's WebGPU and a software adapter are not measured.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { MemoryPrefs } from '../../src/store/pagePrefs';
import { FakeTrainer, fakeClient } from './fakeClient';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(adapter: string, prefs: unknown = null) {
  const fake = new FakeTrainer();
  fake.gpu = { ok: true, adapter };
  const store = createAppStore({ client: fakeClient(fake), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, kv: memoryKv(), prefs: new MemoryPrefs(prefs) });
  stores.push(store);
  return { store, fake };
}
const PREFS = { backend: null, overlay: [], pinned: [], guideDismissed: true, bestRule: 'accuracy', bestTarget: 3, accuracyAxis: 'data' };
const cpuFaster = { chosen: 'wasm', timings: [{ engine: 'webgpu', msPerStep: 29 }, { engine: 'wasm', msPerStep: 12 }], cached: false, line: 'WebGPU 29 ms/step, CPU engine 12 ms/step: using CPU engine' };

describe('the engine by measurement on the page', () => {
  it('a hardware adapter: timed before the first run; the CPU engine faster is followed, the line kept for the device panel', async () => {
    const { store, fake } = world('nvidia (hardware)', PREFS);
    fake.engineChoice = cpuFaster;
    await store.getState().boot('?v=1&preset=relay-silence&groupSize=4');
    expect(fake.callsOf('chooseEngine')).toEqual([['relay-silence', { groupSize: 4 }]]);
    const order = fake.calls.map((c) => c.method).filter((m) => m === 'chooseEngine' || m === 'init');
    expect(order).toEqual(['chooseEngine', 'init']); // measured before the run is made
    expect(store.getState().engineChoice).toEqual(cpuFaster);
    expect(store.getState().backendChoice).toBe('cpu'); // lanes of a population follow it
  });

  it('WebGPU faster: kept ("auto"); a person\'s WebGPU and a software adapter are not measured', async () => {
    const fast = world('nvidia (hardware)', PREFS);
    fast.fake.engineChoice = { ...cpuFaster, chosen: 'webgpu' };
    await fast.store.getState().boot('?v=1&preset=relay-silence');
    expect(fast.store.getState().backendChoice).toBe('auto');
    const mine = world('nvidia (hardware)', { ...PREFS, backend: 'webgpu' });
    await mine.store.getState().boot('?v=1&preset=relay-silence');
    expect(mine.fake.callsOf('chooseEngine')).toEqual([]);
    const soft = world('Google SwiftShader', PREFS);
    await soft.store.getState().boot('?v=1&preset=relay-silence');
    expect(soft.fake.callsOf('chooseEngine')).toEqual([]);
    expect(soft.store.getState().backendChoice).toBe('cpu');
  });
});

describe('the adapter asked on the page\'s thread', () => {
  it('boot takes the page\'s own probe (main.tsx) and does not wait for the worker\'s: a software adapter there is the CPU engine', async () => {
    const fake = new FakeTrainer();
    fake.gpu = { ok: true, adapter: 'nvidia (hardware)' }; // what the worker would say: not asked
    const asked: string[] = [];
    const store = createAppStore({
      client: fakeClient(fake), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, kv: memoryKv(), prefs: new MemoryPrefs(PREFS),
      probeGpu: async () => { asked.push('page'); return { ok: true, adapter: 'google swiftshader' }; },
    });
    stores.push(store);
    await store.getState().boot('?v=1&preset=relay-silence');
    expect(asked).toEqual(['page']);
    expect(fake.callsOf('probe')).toEqual([]);
    expect(store.getState().gpu).toEqual({ state: 'ok', adapter: 'google swiftshader' });
    expect(store.getState().backendChoice).toBe('cpu');
    expect(fake.callsOf('chooseEngine')).toEqual([]);
  });
});
