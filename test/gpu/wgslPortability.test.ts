// Every WGSL module through a second, independent front end (wgsl_reflect), and the portability rules of
// ./wgslPortability: the checks are themselves checked on small inline modules that break each rule.
import { describe, expect, it } from 'vitest';
import { loadShaders } from '../../src/gpu/node';
import { checkPortability, unwrittenReadWrite } from './wgslPortability';

const shaders = loadShaders();

// read_write bindings that nothing in their module writes, kept so on purpose: residual.wgsl's helpers
// (residual_forward, accumulate, copy) take views of one buffer in input and output (copy exists for exactly
// that), and a read-only binding next to a writable one of the same buffer is a validation error.
const KEPT_READ_WRITE: Record<string, string[]> = { residual: ['a', 'b'] };

describe('WGSL portability (wgsl_reflect, independent of Dawn)', () => {
  it('finds every shader module', () => {
    expect(Object.keys(shaders).sort()).toEqual(
      ['adamw', 'attention', 'decode', 'embedding', 'gelu', 'layernorm', 'layernorm_matmul', 'linear_backward', 'logsoftmax', 'matmul', 'residual', 'rl', 'sample']);
  });

  for (const [name, code] of Object.entries(shaders)) {
    it(`${name}.wgsl parses, with its override constants and functions, and breaks no rule`, () => {
      const report = checkPortability(name, code);
      // the parser saw every override and every function the text declares (it did not skip any)
      const declaredOverrides = [...code.matchAll(/^override\s+(\w+)/gm)].map((m) => m[1]);
      const declaredFunctions = [...code.matchAll(/^fn\s+(\w+)/gm)].map((m) => m[1]);
      expect(report.overrides).toEqual(declaredOverrides);
      expect(report.functions).toEqual(declaredFunctions);
      expect(declaredFunctions.length).toBeGreaterThan(0);
      expect(report.problems).toEqual([]);
    });

    it(`${name}.wgsl declares read_write only the storage bindings some entry point writes`, () => {
      expect(unwrittenReadWrite(code)).toEqual(KEPT_READ_WRITE[name] ?? []);
    });
  }

  it('finds read_write bindings nothing writes; assignments, compound assignments, ++ and atomics count as writes', () => {
    const code = `
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> acc: array<f32>;
@group(0) @binding(3) var<storage, read_write> count: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> steps: array<u32>;
@group(0) @binding(5) var<storage, read_write> inp: array<f32>;
@group(0) @binding(6) var<storage, read> ok: array<f32>;
@compute @workgroup_size(64) fn first(@builtin(global_invocation_id) gid: vec3u) { out[gid.x] = inp[gid.x] + ok[0]; }
@compute @workgroup_size(64) fn second(@builtin(global_invocation_id) gid: vec3u) {
  acc[gid.x] += inp[gid.x];
  atomicAdd(&count[0], 1u);
  steps[0]++;
}
`;
    expect(unwrittenReadWrite(code)).toEqual(['inp']);
  });

  it('the previous matmul.wgsl bindings fail (every input read_write)', () => {
    // the declarations matmul.wgsl had, cut down: a and residual only read, out written
    const matmul = `
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read_write> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(8) var<storage, read_write> residual: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3u) { out[gid.x] = a[gid.x] * b[gid.x] + residual[gid.x]; }
`;
    expect(unwrittenReadWrite(matmul)).toEqual(['a', 'residual']);
  });

  it('rejects a workgroup pointer parameter (and a storage one), accepts function and private ones', () => {
    const bad = `
var<workgroup> buf: array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
fn total(b: ptr<workgroup, array<f32, 64>>) -> f32 { return (*b)[0]; }
fn first(o: ptr<storage, array<f32>, read_write>) -> f32 { return (*o)[0]; }
fn ok(x: ptr<function, f32>, y: ptr<private, f32>) -> f32 { return *x + *y; }
@compute @workgroup_size(64) fn main() { out[0] = total(&buf) + first(&out); }
`;
    const { problems } = checkPortability('inline', bad);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/total\(b: ptr<workgroup/);
    expect(problems[1]).toMatch(/first\(o: ptr<storage/);
  });

  it('rejects a workgroup array sized by an override constant, accepts a const size', () => {
    const bad = `
override RM: u32 = 4u;
const FIXED: u32 = 256u;
var<workgroup> tile: array<f32, 256 * RM>;
var<workgroup> fixed: array<f32, FIXED>;
@compute @workgroup_size(64) fn main() { tile[0] = fixed[0]; }
`;
    const { problems, overrides } = checkPortability('inline', bad);
    expect(overrides).toEqual(['RM']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/'tile' sized by override constant\(s\) RM/);
  });

  it('rejects an enable directive', () => {
    const { problems } = checkPortability('inline', 'enable f16;\n@compute @workgroup_size(1) fn main() {}\n');
    expect(problems.join()).toMatch(/'enable' directive/);
  });

  it('the previous attention.wgsl and matmul.wgsl fail (a workgroup pointer parameter; override-sized tiles)', () => {
    // the shapes of the constructs these modules used to contain, cut down to the rule they break
    const attention = `
const MAX_WG: u32 = 256u;
var<workgroup> red_a: array<f32, MAX_WG>;
fn row_reduce(buf: ptr<workgroup, array<f32, MAX_WG>>, x: f32) -> f32 { (*buf)[0] = x; return (*buf)[0]; }
@compute @workgroup_size(64) fn main() { _ = row_reduce(&red_a, 1.0); }
`;
    const matmul = `
override RM: u32 = 4u;
override RN: u32 = 4u;
var<workgroup> As: array<f32, 256 * RM>;
var<workgroup> Bs: array<f32, 256 * RN>;
@compute @workgroup_size(16, 16) fn main() { As[0] = Bs[0]; }
`;
    expect(checkPortability('attention', attention).problems).toHaveLength(1);
    expect(checkPortability('matmul', matmul).problems).toHaveLength(2);
  });
});
