// The backend choice at load (src/worker/gpuChoice.ts, used by both workers) over Node's Dawn: the
// self-check runs the first time an adapter meets a shader version and its verdict is remembered; a
// deliberately broken matmul tile, or a pipeline that fails to build, sends the work to the CPU with
// a message naming the kernel.
import { afterAll, describe, expect, it } from 'vitest';
import { loadShaders, nodeGpu } from '../../src/gpu/node';
import { WebGpuBackend } from '../../src/gpu/webgpuBackend';
import { chooseBackend, memoryVerdictStore, verdictKey, type VerdictStore } from '../../src/worker/gpuChoice';
import { kernelChecks } from '../../src/rl/selfCheck';
import { noGpu, theGpu } from './device';

const shaders = loadShaders();
// Each of these builds every pipeline at load: SwiftShader compiles one in about a second (more on a busy machine).
const PREPARE_ALL_MS = 600_000;
// Dawn's Node binding crashes when a discarded adapter is collected: hold every backend made here.
const made: WebGpuBackend[] = [];
const create = async (gpu: GPU, s: Record<string, string>) => {
  const b = await WebGpuBackend.create(gpu, s);
  made.push(b);
  return b;
};
afterAll(() => { for (const b of made) b.destroy(); });

function replaced(shader: string, from: string, to: string): Record<string, string> {
  expect(shaders[shader]).toContain(from);
  return { ...shaders, [shader]: shaders[shader].replace(from, to) };
}

/** A store that records what was written. */
function recording(): VerdictStore & { writes: string[] } {
  const inner = memoryVerdictStore();
  const writes: string[] = [];
  return { get: inner.get, set: async (k, v) => { writes.push(k); await inner.set(k, v); }, writes };
}

describe.skipIf(noGpu)('choosing WebGPU or the CPU at load', () => {
  it('every kernel case of the engine check passes on this adapter', async () => {
    expect(await kernelChecks(theGpu())).toEqual([]);
    expect(theGpu().takeErrors()).toEqual([]);
  });

  it('the shipped shaders pass: WebGPU, checked once, then taken on the stored verdict', async () => {
    const gpu = await nodeGpu();
    const store = recording();
    const first = await chooseBackend({ gpu, shaders, store, create });
    expect(first.backend.name).toBe('webgpu');
    expect(first.note).toBeNull();
    expect(first.checked).toBe(true);
    expect(store.writes).toHaveLength(1);
    expect((await store.get(store.writes[0]))?.ok).toBe(true);
    // the variants prepared at load are all the check's kernels used
    expect((first.backend as WebGpuBackend).lateCreatedPipelines).toBe(0);
    const second = await chooseBackend({ gpu, shaders, store, create });
    expect(second.backend.name).toBe('webgpu');
    expect(second.checked).toBe(false);
    expect(store.writes).toHaveLength(1);
  }, PREPARE_ALL_MS);

  it('a broken matmul tile (each 16-wide K block skips its last k) is caught: the CPU, a message naming matmul', async () => {
    const gpu = await nodeGpu();
    const broken = replaced('matmul', 'for (var k = 0u; k < BK; k++) {', 'for (var k = 0u; k + 1u < BK; k++) {');
    const store = recording();
    const choice = await chooseBackend({ gpu, shaders: broken, store, create });
    expect(choice.backend.name).toBe('wasm'); // the CPU engine (WebAssembly SIMD)
    expect(choice.checked).toBe(true);
    // the Linear's backward has its own module (linear_backward.wgsl) now: only the forward reads the broken tile
    expect(choice.note).toMatch(/^WebGPU is not used on this adapter: .*matmulForward \(matmul\.wgsl, error /);
    expect(choice.note).not.toMatch(/matmulBackward/);
    expect(choice.note).not.toMatch(/layernorm|attention|gelu/); // only the broken kernel is named
    expect(choice.note).toMatch(/computing on the CPU$/);
    // remembered for the broken version alone, under its own key: the next load goes straight to the CPU
    const adapter = made[made.length - 1].adapterInfo;
    expect(store.writes).toEqual([verdictKey(adapter, broken)]);
    expect(verdictKey(adapter, broken)).not.toBe(verdictKey(adapter, shaders));
    const again = await chooseBackend({ gpu, shaders: broken, store, create });
    expect(again.backend.name).toBe('wasm');
    expect(again.checked).toBe(false);
    expect(again.note).toMatch(/matmulForward/);
  }, PREPARE_ALL_MS);

  it('a pipeline that fails to build at load (a workgroup over the device limit) is named, and the CPU is chosen', async () => {
    const gpu = await nodeGpu();
    // the module still compiles; only the pipeline (512 invocations > 256) is invalid
    const broken = replaced('gelu', '@workgroup_size(WG)\nfn gelu_forward', '@workgroup_size(WG, 2)\nfn gelu_forward');
    const store = recording();
    const choice = await chooseBackend({ gpu, shaders: broken, store, create });
    expect(choice.backend.name).toBe('wasm'); // the CPU engine (WebAssembly SIMD)
    expect(choice.checked).toBe(false);
    expect(choice.note).toMatch(/^WebGPU failed at load \(WebGPU pipelines failed at load: gelu:gelu_forward:\{"WG":256\} \(/);
    expect(choice.note).not.toMatch(/gelu_backward/);
    expect(store.writes).toEqual([]);
  }, PREPARE_ALL_MS);
});
