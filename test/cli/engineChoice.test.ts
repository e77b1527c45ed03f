// Defaults a newcomer can trust: the names (`cpu` is the CPU engine, `reference` the
// reference, `wasm` still accepted), --threads for every command, and the engine picked by
// timing when there is a hardware GPU (on fake timings and fake backends: this machine has none),
// cached; without --backend on a software adapter (SwiftShader here) the CLI trains on the CPU
// engine and says so.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend';
import { backendFlagValue, engineName, oldEngineName, parseFlags, takeThreads } from '../../src/cli/args';
import { chooseByTiming, pickFaster } from '../../src/cli/engineChoice';
import { wasmThreads } from '../../src/cli/io';
import { softwareRenderer as softwareAdapter } from '../../src/gpu/software';
import { gspo, tempDir } from './run';

/** A backend that only has a name and records whether it was let go. */
const fake = (name: string) => {
  const b = { name, destroyed: false, destroy() { b.destroyed = true; } };
  return b as unknown as Backend & { destroyed: boolean };
};

describe('the names of the engines', () => {
  it('cpu and wasm are the CPU engine, reference the reference, in every command (bench too); wasm says it is now cpu', () => {
    expect(['cpu', 'wasm', 'reference', 'webgpu', 'tpu'].map(backendFlagValue)).toEqual(['wasm', 'wasm', 'cpu', 'webgpu', 'tpu']);
    // the code's names back to every command's (output and JSON)
    expect(['wasm', 'cpu', 'webgpu'].map(engineName)).toEqual(['cpu', 'reference', 'webgpu']);
    for (const command of ['train', 'eval', 'sweep', 'bench']) {
      expect(parseFlags(['--backend', 'cpu'], { backend: { kind: 'string', help: '' } }, command).backend).toBe('wasm');
      expect(parseFlags(['--backend=reference'], { backend: { kind: 'string', help: '' } }, command).backend).toBe('cpu');
    }
    expect(oldEngineName('wasm')).toBe('--backend wasm: wasm is now called cpu (the CPU engine)');
    expect(['cpu', 'reference', 'webgpu'].map(oldEngineName)).toEqual([null, null, null]);
  });

  it('--backend cpu runs the CPU engine, reference the reference (their summaries say which, by the same names)', () => {
    const ck = join(import.meta.dirname, '../../public/checkpoints/relay-warm.safetensors');
    const args = ['logprobs', '--checkpoint', ck, '--tokens', '1,5,7,2,3,9'];
    const cpu = gspo([...args, '--backend', 'cpu']), ref = gspo([...args, '--backend', 'reference']), bad = gspo([...args, '--backend', 'tpu']);
    const old = gspo([...args, '--backend', 'wasm']);
    expect(cpu.code, cpu.stderr).toBe(0);
    expect(ref.code, ref.stderr).toBe(0);
    expect(old.code, old.stderr).toBe(0);
    expect(cpu.json.backend).toBe('cpu');
    expect(ref.json.backend).toBe('reference');
    expect(old.json.backend).toBe('cpu');
    expect(old.stderr).toMatch(/^notice: --backend wasm: wasm is now called cpu \(the CPU engine\)$/m);
    expect(cpu.stderr).not.toMatch(/now called/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--backend must be webgpu, cpu \(the CPU engine: WebAssembly SIMD on every core; wasm is the same\) or reference/);
  }, 120_000);
});

describe('--threads', () => {
  it('is taken out of any command\'s flags and set as GSPO_THREADS, checked at once', () => {
    const env: Record<string, string | undefined> = {};
    expect(takeThreads(['--preset', 'x', '--threads', '3', '--steps', '2'], env, wasmThreads)).toEqual(['--preset', 'x', '--steps', '2']);
    expect(env.GSPO_THREADS).toBe('3');
    expect(takeThreads(['--threads=2'], env, wasmThreads)).toEqual([]);
    expect(env.GSPO_THREADS).toBe('2');
    expect(() => takeThreads(['--threads', '0'], {}, wasmThreads)).toThrow(/GSPO_THREADS \(or --threads\) must be an integer from 1 to 64, got "0"/);
    expect(() => takeThreads(['--threads', '2', '--threads', '3'], {}, wasmThreads)).toThrow(/--threads is given more than once/);
    expect(() => takeThreads(['--threads'], {}, wasmThreads)).toThrow(/--threads needs a value/);
  });
});

describe('the engine by measurement', () => {
  it('the faster of two is chosen and said with both figures; a candidate that failed is never chosen', () => {
    expect(pickFaster([{ engine: 'webgpu', msPerStep: 29.2 }, { engine: 'wasm', msPerStep: 124 }])).toEqual({ chosen: 'webgpu', line: 'WebGPU 29 ms/step, CPU engine 124 ms/step: using WebGPU' });
    expect(pickFaster([{ engine: 'webgpu', msPerStep: 310 }, { engine: 'wasm', msPerStep: 124 }]).chosen).toBe('wasm');
    expect(pickFaster([{ engine: 'webgpu', msPerStep: Number.NaN }, { engine: 'wasm', msPerStep: 124 }])).toEqual({ chosen: 'wasm', line: 'WebGPU failed, CPU engine 124 ms/step: using CPU engine' });
    expect(() => pickFaster([{ engine: 'webgpu', msPerStep: Number.NaN }])).toThrow(/no engine could take a timed step/);
  });

  it('times each candidate once, keeps the faster, lets the other go, and the next command reads the cache', async () => {
    const path = join(tempDir(), 'choice.json');
    const ms: Record<string, number> = { webgpu: 40, wasm: 25 };
    let timed = 0;
    const time = async (b: Backend) => { timed++; return ms[b.name]; };
    const [g1, c1] = [fake('webgpu'), fake('wasm')];
    const first = await chooseByTiming([g1, c1], 'adapter X|2x4x64|P32xG8', time, path);
    expect(first.backend).toBe(c1);
    expect(g1.destroyed).toBe(true);
    expect(c1.destroyed).toBe(false);
    expect(first.choice).toMatchObject({ chosen: 'wasm', cached: false, line: 'WebGPU 40 ms/step, CPU engine 25 ms/step: using CPU engine' });
    expect(timed).toBe(2);
    expect(existsSync(path) && JSON.parse(readFileSync(path, 'utf8'))['adapter X|2x4x64|P32xG8']).toEqual([{ engine: 'webgpu', msPerStep: 40 }, { engine: 'wasm', msPerStep: 25 }]);
    const [g2, c2] = [fake('webgpu'), fake('wasm')];
    const again = await chooseByTiming([g2, c2], 'adapter X|2x4x64|P32xG8', time, path);
    expect(timed).toBe(2); // not timed again
    expect(again.backend).toBe(c2);
    expect(again.choice.cached).toBe(true);
    // another shape is measured anew
    ms.webgpu = 10;
    const other = await chooseByTiming([fake('webgpu'), fake('wasm')], 'adapter X|8x8x256|P32xG8', time, path);
    expect(timed).toBe(4);
    expect(other.choice.chosen).toBe('webgpu');
  });

  it('a software adapter is never a default', () => {
    expect(softwareAdapter('Google SwiftShader (Vulkan)')).toBe('SwiftShader');
    expect(softwareAdapter('llvmpipe (LLVM 15.0.6, 256 bits)')).toBe('llvmpipe');
    expect(softwareAdapter('NVIDIA H200')).toBeNull();
  });

  it('train without --backend where WebGPU is only SwiftShader (or absent): the CPU engine on every core, said in one line', () => {
    const out = join(tempDir(), 'run');
    const r = gspo(['train', '--preset', 'relay-silence', '--steps', '1', '--set', 'evalEpisodes=8', '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.backend).toBe('cpu');
    expect(r.stderr).toMatch(/notice: (WebGPU here is SwiftShader, a software renderer|no WebGPU adapter .*): using the CPU engine \(WebAssembly SIMD, \d+ threads?\)/);
  }, 180_000);
});

describe('the recipe by default off the calibrated point', () => {
  const tiny = ['--set', 'evalEpisodes=8', '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--steps', '1', '--backend', 'cpu'];
  const config = (out: string) => JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).config;

  it('applies off the point (said in one line, in the summary and the config), not on it, and --no-recipe trains the setting as typed', () => {
    const off = join(tempDir(), 'off'), on = join(tempDir(), 'on'), typed = join(tempDir(), 'typed');
    const a = gspo(['train', '--preset', 'relay-noisy-dr', '--set', 'channelNoise=0.2', '--set', 'lambdaTok=0.02', ...tiny, '--out', off]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/recipe: off the preset's calibrated point, so its recipe applies \(--no-recipe trains the setting as typed\): lambdaStart = [\d.]+/);
    expect(a.json.recipe.applied).toEqual(expect.arrayContaining(['lambdaStart', 'lambdaHold']));
    expect(a.json.recipe.kept).toEqual(['steps']); // --steps given: kept
    // by hand: eps 0.2 keeps 3 copies on (0.00576, 0.0288]; its middle 0.0129 is raised to the silence floor 0.02, which is
    // the setting itself, still held longer than the calibrated 80 steps: ceil(80 sqrt(0.1 / 0.02) / 10) x 10 = 180
    expect([config(off).lambdaStart, config(off).lambdaHold]).toEqual([0.02, 180]);
    const b = gspo(['train', '--preset', 'relay-noisy-dr', ...tiny, '--out', on]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.json.recipe).toBeUndefined();
    expect(b.stderr).not.toMatch(/recipe:/);
    const c = gspo(['train', '--preset', 'relay-noisy-dr', '--set', 'channelNoise=0.2', '--set', 'lambdaTok=0.02', '--no-recipe', ...tiny, '--out', typed]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.json.recipe).toBeUndefined();
    expect(config(typed).lambdaStart).toBe(0); // the preset's own, as typed
    const both = gspo(['train', '--preset', 'relay-noisy-dr', '--recipe', '--no-recipe', ...tiny]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--recipe and --no-recipe contradict/);
  }, 240_000);
});
