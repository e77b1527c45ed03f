// The run storage contract, run against both implementations: the in-memory twin and
// IndexedDbRunStorage on a real IndexedDB implementation (fake-indexeddb, which follows
// the spec's structured clone and transactions). Then the boot path on IndexedDB: a run
// stored before channelNoise and scouts existed is read through the run file's schema and
// migration, and exports Python with no `undefined` in it.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createAppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { IndexedDbRunStorage, MemoryRunStorage, openRunStorage, type RunStorage } from '../../src/store/runsDb';
import type { RunMeta } from '../../src/store/runTypes';
import { METRIC_NAMES, type ResumeState } from '../../src/worker/protocol';
import { FakeTrainer, fakeClient } from './fakeClient';

/** A link naming the default preset: a bare first visit opens on the first screen's population instead (test/store/firstVisit.test.ts). */
const DEFAULT_LINK = '?preset=relay-silence';

const C = METRIC_NAMES.length;
const run = (id: string, over: Partial<RunMeta> = {}): RunMeta => ({
  id, name: `run ${id}`, preset: 'relay-noisy', config: presetConfig(findPreset('relay-noisy')), createdAt: 1000, updatedAt: 2000, status: 'finished', steps: 5,
  evals: [{ step: 4, accuracy: 0.5, tokens: 2, turns: 1, lambdaTok: 0.1, reward: 0.4, extra: NaN }], bestEval: null, flags: [], warmStart: null,
  backend: 'cpu', checkpoints: { last: 5 }, colorIndex: 1, source: 'trained', ...over,
});
const rows = (steps: number[]) => { const d = new Float64Array(steps.length * C).fill(0.5); steps.forEach((s, r) => { d[r * C + METRIC_NAMES.indexOf('step')] = s; }); return d; };
const resume = (step: number) => ({ step, evals: [], bestEval: null, lambdaTok: 0.1, flags: [], skippedUpdates: 0, optimizer: { m: new Float32Array([1, 2]), v: new Float32Array([3, 4]), step: 7 } }) as unknown as ResumeState;

const kinds: [string, () => Promise<RunStorage>][] = [
  ['memory', async () => new MemoryRunStorage()],
  ['indexeddb', () => IndexedDbRunStorage.open(new IDBFactory())], // a fresh database each time
];

/** An IDBFactory whose open request answers after `ms` (never, with Infinity) with a database whose close is counted, or fails. */
function slowFactory(ms: number, fail = false): { factory: IDBFactory; closed: () => number } {
  let closed = 0;
  const factory = {
    open() {
      const req = { result: undefined as unknown, error: null as unknown, onsuccess: null as null | (() => void), onerror: null as null | (() => void), onupgradeneeded: null };
      if (Number.isFinite(ms)) {
        setTimeout(() => {
          if (fail) { req.error = new Error('the profile\'s storage is locked'); req.onerror?.(); return; }
          req.result = { close: () => { closed++; } };
          req.onsuccess?.();
        }, ms);
      }
      return req;
    },
  } as unknown as IDBFactory;
  return { factory, closed: () => closed };
}

describe('opening the run storage (before the page renders)', () => {
  it('IndexedDB that opens: the runs are kept there', async () => {
    const s = await openRunStorage(new IDBFactory(), 1000);
    expect(s.kind).toBe('indexeddb');
    expect(s.why ?? null).toBeNull();
  });
  it('IndexedDB that never answers: memory after the wait, saying why, and the page goes on', async () => {
    const t0 = Date.now();
    const s = await openRunStorage(slowFactory(Infinity).factory, 50);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(s.kind).toBe('memory');
    expect(s.why).toBe('IndexedDB did not open within 0.05 s');
  });
  it('IndexedDB that answers after the wait: memory, and the late connection is closed', async () => {
    const slow = slowFactory(80);
    const s = await openRunStorage(slow.factory, 20);
    expect(s.kind).toBe('memory');
    expect(slow.closed()).toBe(0);
    await new Promise((r) => setTimeout(r, 120));
    expect(slow.closed()).toBe(1);
  });
  it('IndexedDB that fails to open: memory, naming the error; no IndexedDB at all: memory, saying so', async () => {
    const s = await openRunStorage(slowFactory(5, true).factory, 1000);
    expect([s.kind, s.why]).toEqual(['memory', 'IndexedDB did not open (the profile\'s storage is locked)']);
    const none = await openRunStorage(null);
    expect([none.kind, none.why]).toEqual(['memory', 'this browser offers no IndexedDB here']);
  });
});

describe.each(kinds)('run storage (%s)', (kind, open) => {
  it('keeps runs as put (non-finite eval extras too), and replaces one by id', async () => {
    const s = await open();
    expect(s.kind).toBe(kind);
    await s.putRun(run('a'));
    await s.putRun(run('b'));
    await s.putRun(run('a', { name: 'renamed' }));
    const list = (await s.listRuns()).sort((x, y) => x.id.localeCompare(y.id));
    expect(list.map((r) => [r.id, r.name])).toEqual([['a', 'renamed'], ['b', 'run b']]);
    expect(list[1]).toEqual(run('b'));
    expect(Number.isNaN(list[1].evals[0].extra)).toBe(true);
  });

  it('appends metrics in chunks and loads them in order, run by run', async () => {
    const s = await open();
    await s.appendMetrics('a', rows([0, 1]), 2);
    await s.appendMetrics('b', rows([0]), 1);
    await s.appendMetrics('a', rows([2]), 1);
    const a = await s.loadMetrics('a');
    expect(a.rows).toBe(3);
    expect([0, 1, 2].map((r) => a.value(r, 'step'))).toEqual([0, 1, 2]);
    expect((await s.loadMetrics('b')).rows).toBe(1);
    expect((await s.loadMetrics('none')).rows).toBe(0);
  });

  it('keeps a resume state only beside its last checkpoint, and delete removes everything of a run', async () => {
    const s = await open();
    await s.putRun(run('a'));
    await s.appendMetrics('a', rows([0]), 1);
    await s.putCheckpoint('a', 'last', new Uint8Array([1, 2, 3]), resume(5));
    await s.putCheckpoint('a', 'best', new Uint8Array([9]));
    expect([...(await s.getCheckpoint('a', 'last'))!]).toEqual([1, 2, 3]);
    const r = await s.getResumeState('a');
    expect(r!.step).toBe(5);
    expect(r!.optimizer!.m).toBeInstanceOf(Float32Array);
    expect([...r!.optimizer!.v]).toEqual([3, 4]);
    await s.putCheckpoint('a', 'best', new Uint8Array([8])); // best leaves the resume state alone
    expect(await s.getResumeState('a')).not.toBeNull();
    await s.putCheckpoint('a', 'last', new Uint8Array([4])); // a last checkpoint without one removes the older state
    expect(await s.getResumeState('a')).toBeNull();
    await s.deleteRun('a');
    expect(await s.listRuns()).toEqual([]);
    expect((await s.loadMetrics('a')).rows).toBe(0);
    expect(await s.getCheckpoint('a', 'last')).toBeNull();
    expect(await s.getCheckpoint('a', 'best')).toBeNull();
  });

  it('at boot, a run stored before channelNoise and scouts is brought up to date with a notice, and exports Python without undefined', async () => {
    const s = await open();
    const old = run('old');
    const { channelNoise: _n, scouts: _s, ...oldConfig } = old.config;
    await s.putRun({ ...old, config: oldConfig as RunMeta['config'] });
    await s.putRun(run('bad', { preset: 'no-such-preset', name: 'broken one' }));
    const downloads: { name: string; blob: Blob }[] = [];
    const store = createAppStore({ client: fakeClient(new FakeTrainer()), storage: s, hub: new MetricsHub(), replaceUrl: () => {}, download: (name, blob) => downloads.push({ name, blob }), persistIntervalMs: 60_000 });
    try {
      await store.getState().boot(DEFAULT_LINK);
      const st = store.getState();
      expect(st.runs.map((r) => r.id)).toEqual(['old']);
      expect(st.runs[0].config.channelNoise).toBe(0);
      expect(st.runs[0].config.scouts).toBe(1);
      expect(st.notice).toMatch(/1 stored run was written by an earlier version; the settings it lacked take their defaults \(channelNoise 0, scouts 1\)/);
      expect(st.notice).toMatch(/1 stored run could not be read and is not shown \("broken one": preset "no-such-preset" is not one of/);
      // written back up to date; the unreadable one is left as it was
      const stored = await s.listRuns();
      expect(stored.find((r) => r.id === 'old')!.config.channelNoise).toBe(0);
      expect(stored.find((r) => r.id === 'bad')!.preset).toBe('no-such-preset');
      for (const what of ['trl', 'verl'] as const) await store.getState().exportRun('old', what);
      expect(store.getState().error).toBeNull();
      expect(downloads.map((d) => d.name)).toEqual(['run-old-trl.py', 'run-old-verl.py']);
      for (const d of downloads) {
        const text = await d.blob.text();
        expect(text).not.toMatch(/undefined/);
        expect(text).toContain('CHANNEL_NOISE = 0  #');
        expect(text).toContain('with probability 0)');
      }
    } finally {
      store.ctx.recorder.stop();
    }
  });
});
