// Overlays of older runs are cleared when the person starts a new run, except
// the pinned ones; pins survive a reload.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryPrefs } from '../../src/store/pagePrefs';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { FakeTrainer, fakeClient, settle } from './fakeClient';

/** A link naming the default preset: a bare first visit opens on the first screen's population instead (test/store/firstVisit.test.ts). */
const DEFAULT_LINK = '?preset=relay-silence';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(storage = new MemoryRunStorage(), prefs = new MemoryPrefs()) {
  const fake = new FakeTrainer();
  const store = createAppStore({ client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, prefs });
  stores.push(store);
  return { store, fake, storage, prefs };
}

/** Trains the current run a little, then starts a new one by Reset; returns the old run's id. */
async function trainThenReset(w: ReturnType<typeof world>): Promise<string> {
  const id = w.store.getState().runId!;
  w.fake.emitSteps(0, 2);
  w.fake.emitEval(2, 0.5, 4);
  await settle();
  await w.store.getState().reset();
  await w.store.getState().answerConfirm(true);
  return id;
}

describe('overlays and pins', () => {
  it('a new run shows only the pinned runs; unpinned overlays are cleared', async () => {
    const w = world();
    await w.store.getState().boot(DEFAULT_LINK);
    const a = await trainThenReset(w), b = await trainThenReset(w), c = await trainThenReset(w);
    await w.store.getState().toggleOverlay(a);
    await w.store.getState().toggleOverlay(b);
    await w.store.getState().togglePin(c); // pinning shows it
    expect(w.store.getState().overlay).toEqual([a, b, c]);
    expect(w.store.getState().pinned).toEqual([c]);
    await trainThenReset(w);
    expect(w.store.getState().overlay).toEqual([c]);
    // a warm start (and any other new run) does the same; a pinned run hidden by its checkbox is unpinned
    await w.store.getState().toggleOverlay(a);
    await w.store.getState().toggleOverlay(c);
    expect(w.store.getState().pinned).toEqual([]);
    w.fake.emitSteps(0, 1);
    await settle();
    await w.store.getState().warmStart();
    await w.store.getState().answerConfirm(true);
    expect(w.store.getState().overlay).toEqual([]);
  });

  it('the current run, pinned, stays on the charts beside the next one', async () => {
    const w = world();
    await w.store.getState().boot(DEFAULT_LINK);
    const first = w.store.getState().runId!;
    w.fake.emitSteps(0, 1);
    await settle();
    await w.store.getState().togglePin(first);
    expect(w.store.getState().overlay).toEqual([]); // the current run is always shown
    await trainThenReset(w);
    expect(w.store.getState().overlay).toEqual([first]);
  });

  it('pins survive a reload', async () => {
    const storage = new MemoryRunStorage(), prefs = new MemoryPrefs();
    const w = world(storage, prefs);
    await w.store.getState().boot(DEFAULT_LINK);
    const a = await trainThenReset(w);
    await w.store.getState().togglePin(a);
    await w.store.ctx.recorder.flush();
    const again = world(storage, prefs);
    await again.store.getState().boot(DEFAULT_LINK);
    expect(again.store.getState().pinned).toEqual([a]);
    expect(again.store.getState().overlay).toEqual([a]);
  });
});
