// The page's CPU engine: WebAssembly SIMD where a tiny simd128 module validates, else the plain
// JavaScript reference with a note said once; the worker's state names which engine a run is on.
import { describe, expect, it, vi } from 'vitest';
import type { RunConfig } from '../../src/config';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { simdValidates } from '../../src/simd/kernels';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { chooseBackend, memoryVerdictStore } from '../../src/worker/gpuChoice';
import { TrainerApi } from '../../src/worker/trainerApi';

// a fresh module per test: the "said once" flag is the module's
const load = async () => { vi.resetModules(); return import('../../src/worker/cpuEngine'); };

describe('simdValidates', () => {
  it('is true on this Node (simd128 since Node 16), false where validate refuses, throws or is missing', () => {
    expect(simdValidates()).toBe(true);
    const seen: Uint8Array<ArrayBuffer>[] = [];
    expect(simdValidates({ validate: (b) => { seen.push(b as Uint8Array<ArrayBuffer>); return false; } })).toBe(false);
    // the probe is a real simd module: its function returns a v128 (0x7b) built by v128.const (0xfd 0x0c)
    expect(seen[0][14]).toBe(0x7b);
    expect([...seen[0].slice(24, 26)]).toEqual([0xfd, 0x0c]);
    expect(WebAssembly.validate(seen[0])).toBe(true);
    expect(simdValidates({ validate: () => { throw new Error('no'); } })).toBe(false);
    expect(simdValidates(null)).toBe(false); // an engine with no WebAssembly
  });
});

describe('cpuEngine', () => {
  it('WebAssembly SIMD where it validates, with no note', async () => {
    const { cpuEngine, cpuEngineOf } = await load();
    const warn = vi.fn();
    const c = cpuEngine({ warn });
    expect(c.backend.name).toBe('wasm'); // (a fresh module's classes: compared by name)
    expect(c.note).toBeNull();
    expect(cpuEngineOf(c.backend)).toBe('wasm');
    expect(warn).not.toHaveBeenCalled();
  });

  it('the reference where simd128 does not validate, said once however many runs start', async () => {
    const { cpuEngine, cpuEngineOf } = await load();
    const warn = vi.fn();
    const a = cpuEngine({ simd: () => false, warn }), b = cpuEngine({ simd: () => false, warn });
    expect(a.backend.name).toBe('cpu');
    expect(cpuEngineOf(b.backend)).toBe('reference');
    expect(a.note).toBe('this browser does not validate WebAssembly SIMD (simd128): computing on the plain JavaScript CPU reference, several times slower');
    expect(b.note).toBe(a.note); // every run's state keeps the reason
    expect(warn.mock.calls).toEqual([[a.note]]);
  });

  it('the reference, naming the error, when the engine does not start (the memory refused)', async () => {
    const { cpuEngine } = await load();
    const c = cpuEngine({ create: () => { throw new Error('could not grow WebAssembly memory'); }, warn: () => {} });
    expect(c.backend.name).toBe('cpu');
    expect(c.note).toMatch(/^the WebAssembly SIMD engine did not start \(could not grow WebAssembly memory\): computing on the plain JavaScript CPU reference/);
  });

  it('no WebGPU: the worker\'s choice is the CPU engine, with no note', async () => {
    const choice = await chooseBackend({ gpu: undefined, shaders: {}, store: memoryVerdictStore() });
    expect(choice.backend.name).toBe('wasm');
    expect(choice.note).toBeNull();
    expect(choice.checked).toBe(false);
  });
});

describe('the trainer worker names the CPU engine', () => {
  const SMALL: Partial<RunConfig> = { promptsPerStep: 2, groupSize: 2, minibatches: 1, evalEpisodes: 4, evalEvery: 1, nLayer: 1, nHead: 2, nEmbd: 16, steps: 10 };

  it('cpuEngine is "wasm" on the SIMD engine and "reference" on the reference; the page\'s backend is "cpu" for both', async () => {
    for (const [make, want] of [[() => new WasmBackend(), 'wasm'], [() => new CpuBackend(), 'reference']] as const) {
      const api = new TrainerApi(async () => make(), async () => null);
      try {
        await api.init('relay-silence', SMALL, { warmStartSteps: 2 });
        const s = await api.getState();
        expect(s.backend).toBe('cpu');
        expect(s.cpuEngine).toBe(want);
        expect((await api.useBackend('cpu')).cpuEngine).toBeNull(); // the run and its backend ended
      } finally {
        await api.destroy();
      }
    }
  });
});
