// The page's CPU engine on threads: how many (cross-origin isolated pages only, the cores divided among the
// training workers that run at once), the one-thread fallback and its note (not isolated, or the pool not
// starting), and the worker's state naming the thread count and the lanes it was given.
import { describe, expect, it, vi } from 'vitest';
import type { RunConfig } from '../../src/config';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { NOT_ISOLATED_NOTE, PAGE_THREAD_CAP, pageThreads, threadHost } from '../../src/worker/cpuThreads';
import { TrainerApi } from '../../src/worker/trainerApi';

// a fresh module per test: the "said once" flags are the module's
const load = async () => { vi.resetModules(); return import('../../src/worker/cpuEngine'); };
const host = (cores: number, lanes: number, isolated = true, sharedMemory = true) => ({ isolated, sharedMemory, cores, lanes });

describe('pageThreads', () => {
  it('divides min(cores, cap) among the lanes, at least one thread', () => {
    expect(PAGE_THREAD_CAP).toBe(8);
    expect(pageThreads(host(2, 1))).toEqual({ threads: 2, note: null });
    expect(pageThreads(host(16, 1))).toEqual({ threads: 8, note: null }); // the cap
    expect(pageThreads(host(16, 3))).toEqual({ threads: 2, note: null }); // floor(8 / 3)
    expect(pageThreads(host(8, 4))).toEqual({ threads: 2, note: null });
    expect(pageThreads(host(2, 2))).toEqual({ threads: 1, note: null }); // two lanes on two cores: one each, nothing to say
    expect(pageThreads(host(4, 16))).toEqual({ threads: 1, note: null });
    expect(pageThreads(host(12, 1), 64)).toEqual({ threads: 12, note: null });
  });
  it('an unknown core count or lane count counts as one', () => {
    expect(pageThreads(host(0, 1)).threads).toBe(1);
    expect(pageThreads(host(Number.NaN, 1)).threads).toBe(1);
    expect(pageThreads(host(4, 0)).threads).toBe(4);
  });
  it('one thread where the page is not cross-origin isolated or has no SharedArrayBuffer, with the reason where threads would have run', () => {
    expect(pageThreads(host(16, 1, false))).toEqual({ threads: 1, note: NOT_ISOLATED_NOTE });
    expect(pageThreads(host(16, 1, true, false))).toEqual({ threads: 1, note: NOT_ISOLATED_NOTE });
    expect(pageThreads(host(2, 1, false))).toEqual({ threads: 1, note: NOT_ISOLATED_NOTE });
    // where the share would be one thread anyway (one core, or as many lanes as cores) there is nothing to say
    expect(pageThreads(host(1, 1, false))).toEqual({ threads: 1, note: null });
    expect(pageThreads(host(4, 4, false))).toEqual({ threads: 1, note: null });
    expect(NOT_ISOLATED_NOTE).toMatch(/^one thread: this page is not cross-origin isolated \(.*COOP and COEP headers.*\); see docs\/cpu-engine\.md/);
  });
  it('threadHost reads crossOriginIsolated, SharedArrayBuffer and hardwareConcurrency', () => {
    const g = { crossOriginIsolated: true, SharedArrayBuffer, navigator: { hardwareConcurrency: 6 } } as unknown as typeof globalThis;
    expect(threadHost(2, g)).toEqual({ isolated: true, sharedMemory: true, cores: 6, lanes: 2 });
    expect(threadHost(1, {} as typeof globalThis)).toEqual({ isolated: false, sharedMemory: false, cores: 1, lanes: 1 });
  });
});

describe('startCpuEngine', () => {
  it('threads > 1: the threaded engine, its pool started without blocking; no note', async () => {
    const { startCpuEngine, cpuThreadsOf } = await load();
    const warn = vi.fn();
    const c = await startCpuEngine({ threads: 2, warn });
    try {
      expect(c.note).toBeNull();
      expect(cpuThreadsOf(c.backend)).toEqual({ count: 2, workerChunks: 0, variant: 'simd' }); // Node 20: no relaxed-simd without a flag
      expect(warn).not.toHaveBeenCalled();
    } finally { await (c.backend as WasmBackend).destroyAndWait(); }
  });
  it('not isolated: one thread, the note joined to the engine\'s, said once', async () => {
    const { startCpuEngine, cpuThreadsOf } = await load();
    const warn = vi.fn();
    const a = await startCpuEngine({ threads: 1, threadNote: NOT_ISOLATED_NOTE, warn }), b = await startCpuEngine({ threads: 1, threadNote: NOT_ISOLATED_NOTE, warn });
    expect(a.note).toBe(NOT_ISOLATED_NOTE);
    expect(b.note).toBe(NOT_ISOLATED_NOTE); // every run's state keeps it
    expect(cpuThreadsOf(a.backend)).toEqual({ count: 1, workerChunks: 0, variant: 'simd' });
    expect(warn.mock.calls).toEqual([[NOT_ISOLATED_NOTE]]);
  });
  it('a pool that does not start: one thread, saying why, losing nothing', async () => {
    const { startCpuEngine, cpuThreadsOf } = await load();
    const c = await startCpuEngine({ threads: 4, startThreaded: async () => { throw new Error('1 worker threads did not all start (30 s passed)'); }, warn: () => {} });
    expect(c.backend.name).toBe('wasm');
    expect(cpuThreadsOf(c.backend)!.count).toBe(1);
    expect(c.note).toBe('one thread: the CPU engine\'s 4 threads did not start (1 worker threads did not all start (30 s passed))');
  });
  it('no simd128: the reference, with both reasons', async () => {
    const { startCpuEngine, cpuThreadsOf } = await load();
    const c = await startCpuEngine({ threads: 1, threadNote: NOT_ISOLATED_NOTE, simd: () => false, warn: () => {} });
    expect(c.backend.name).toBe('cpu');
    expect(cpuThreadsOf(c.backend)).toBeNull();
    expect(c.note).toMatch(/^one thread: .*; this browser does not validate WebAssembly SIMD/);
  });
});

describe('the trainer worker', () => {
  const SMALL: Partial<RunConfig> = { promptsPerStep: 2, groupSize: 2, minibatches: 1, evalEpisodes: 4, evalEvery: 1, nLayer: 1, nHead: 2, nEmbd: 16, steps: 10 };
  it('passes useBackend\'s lanes to the backend factory, and its state names the thread count', async () => {
    const asked: unknown[][] = [];
    const api = new TrainerApi(async (prefer, lanes) => { asked.push([prefer, lanes]); return WasmBackend.start({ threads: 2 }); }, async () => null);
    try {
      await expect(api.useBackend('cpu', 0)).rejects.toThrow('useBackend: lanes must be an integer from 1 to 1024; got 0');
      await api.useBackend('cpu', 3);
      await api.init('relay-silence', SMALL, { warmStartSteps: 1 });
      expect(asked).toEqual([['cpu', 3]]);
      expect((await api.getState()).cpuThreads).toEqual({ count: 2, workerChunks: expect.any(Number), variant: 'simd' });
    } finally {
      await api.destroy();
    }
  });
  it('useBackend(\'auto\', lanes) on a worker already on auto keeps the lanes for the backend it builds (a lane that may fall back to the CPU)', async () => {
    const asked: unknown[][] = [];
    const api = new TrainerApi(async (prefer, lanes) => { asked.push([prefer, lanes]); return new WasmBackend(); }, async () => null);
    try {
      await api.useBackend('auto', 2);
      await api.init('relay-silence', SMALL, { warmStartSteps: 1 });
      expect(asked).toEqual([['auto', 2]]);
    } finally {
      await api.destroy();
    }
  });
});
