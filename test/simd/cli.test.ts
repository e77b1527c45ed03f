// The CLI's engine choice: --backend cpu is the WebAssembly SIMD engine, cpu stays the reference,
// and a run on each gives the same numbers within f32 tolerance.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { chooseBackend, cpuEngine } from '../../src/cli/io';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { gspo, ROOT } from '../cli/run';

describe('--backend cpu', () => {
  it('selects the wasm engine; the internal cpu (typed `reference`) is the reference; anything else names the choices', async () => {
    expect(await chooseBackend('wasm')).toBeInstanceOf(WasmBackend);
    expect(await chooseBackend('cpu')).toBeInstanceOf(CpuBackend);
    expect(cpuEngine()).toBeInstanceOf(WasmBackend); // a threaded population's default engine: the CPU engine
    expect(cpuEngine('cpu')).toBeInstanceOf(CpuBackend);
    await expect(chooseBackend('simd')).rejects.toThrow(/--backend must be webgpu, cpu \(the CPU engine: WebAssembly SIMD on every core; wasm is the same\) or reference \(the plain TypeScript reference, slow\), got "simd"/);
  });
  it('logprobs of the shipped warm start: the same numbers on wasm as on the reference, within 1e-5', () => {
    const args = ['logprobs', '--checkpoint', join(ROOT, 'public/checkpoints/relay-warm.safetensors'), '--tokens', '1,5,7,2,3,9'];
    const wasm = gspo([...args, '--backend', 'cpu']), cpu = gspo([...args, '--backend', 'reference']);
    expect(wasm.code, wasm.stderr).toBe(0);
    expect(cpu.code, cpu.stderr).toBe(0);
    expect(wasm.json.backend).toBe('cpu'); // the CPU engine's name in output, as in the flag
    expect(cpu.json.backend).toBe('reference');
    expect(wasm.json.logprobs).toHaveLength(5);
    wasm.json.logprobs.forEach((x: number, i: number) => expect(Math.abs(x - cpu.json.logprobs[i]), `token ${i}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(cpu.json.logprobs[i]))));
  });
});
