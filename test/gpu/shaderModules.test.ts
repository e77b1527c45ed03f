// WGSL modules that span files (src/gpu/shaderModules.ts): the base file then its parts in name order, a compiler
// message's line mapped back to its file, a part without its base refused; and every pipeline variant the kernel
// wrappers dispatch finds its entry point in the module the loader joins; with an adapter, a compiler error in a
// part is reported at its file and line.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadShaders } from '../../src/gpu/node';
import { pipelineVariants } from '../../src/gpu/kernels/variants';
import { PipelineCache } from '../../src/gpu/pipelines';
import { composeModules, sourceLine } from '../../src/gpu/shaderModules';
import { noGpu, theGpu } from './device';

describe('WGSL modules of several files', () => {
  const files = { m: 'struct P { n: u32 }\n', 'm.b': 'fn b() {}\n', 'm.a': 'fn a() {}\nfn a2() {}\n', solo: 'fn s() {}\n' };

  it('joins a base file and its parts, the parts in name order', () => {
    const mods = composeModules(files);
    expect(Object.keys(mods).sort()).toEqual(['m', 'solo']);
    expect(mods.solo).toBe(files.solo);
    const at = (s: string) => mods.m.indexOf(s);
    expect(at('struct P')).toBe(0);
    expect(at('struct P')).toBeLessThan(at('fn a()'));
    expect(at('fn a2()')).toBeLessThan(at('fn b()'));
  });

  it('maps a line of the joined text back to its file', () => {
    const code = composeModules(files).m, lines = code.split('\n');
    const where = (text: string) => sourceLine('m', code, lines.indexOf(text) + 1);
    expect(where('struct P { n: u32 }')).toEqual({ file: 'm.wgsl', line: 1 });
    expect(where('fn a() {}')).toEqual({ file: 'm.a.wgsl', line: 1 });
    expect(where('fn a2() {}')).toEqual({ file: 'm.a.wgsl', line: 2 });
    expect(where('fn b() {}')).toEqual({ file: 'm.b.wgsl', line: 1 });
  });

  it('refuses a part without its base file', () => {
    expect(() => composeModules({ 'x.forward': 'fn f() {}' })).toThrow(/x\.forward\.wgsl/);
  });

  it('the loader joins every part in shaders/ into its module', () => {
    const shaders = loadShaders();
    const parts = readdirSync(join(import.meta.dirname, '../../shaders')).filter((f) => /^\w+\.\w+\.wgsl$/.test(f));
    expect(parts.length).toBeGreaterThan(0);
    for (const f of parts) expect(shaders[f.slice(0, f.indexOf('.'))], f).toContain(`// ---- part: ${f}`);
  });

  it('every pipeline variant finds its entry point in its module', () => {
    const shaders = loadShaders();
    const missing = [...pipelineVariants('lanes'), ...pipelineVariants('single')]
      .filter(({ shader, entry }) => !new RegExp(`\\bfn ${entry}\\(`).test(shaders[shader] ?? ''))
      .map(({ shader, entry }) => `${shader}:${entry}`);
    expect(missing).toEqual([]);
  });
});

describe.skipIf(noGpu)('a compiler error in a part', () => {
  it('names the part file and its line, not the joined text\'s', async () => {
    const device = (theGpu() as unknown as { rt: { device: GPUDevice } }).rt.device;
    const modules = composeModules({ m: 'fn ok() {}\n', 'm.broken': 'fn ok2() {}\nfn bad() { let x: u32 = 1.5; }\n' });
    device.pushErrorScope('validation'); // the bad module's error stays here, not among the backend's uncaptured ones
    await expect(new PipelineCache(device, modules).checkAll()).rejects.toThrow(/^WGSL compilation failed:\nm\.broken\.wgsl:2:/);
    await device.popErrorScope();
  });
});
