// The member ops (Members in src/backend.ts) as cases run two ways on any backend:
// - stacked: the K members' inputs in one set of tensors, one member op;
// - alone: each member's own slice of every input in fresh tensors, today's op
//   without members (the lone run a member must reproduce).
// `stacked` returns every output tensor whole (gaps between members' parameter
// copies included), `alone` the same arrays built from the initial values with
// each member's slices overwritten by its lone run: equal only if the member op
// touched exactly its member's rows and copies.
import { memberRows, type AdamWParams, type Backend, type MemberStack, type Members, type Tensor } from '../../src/backend';
import { Rng } from '../gpu/random';

/** How an array is laid out across members. */
export type Layout =
  | { rows: number } // activations: `width` values per row, member k owning rows [rowStart[k], rowStart[k+1])
  | { param: number } // a parameter (or its gradient): one copy of `size` per member, `stride` apart
  | { member: true } // one value per member (norms, scales, learning rates)
  | { shared: number }; // the same for every member (AdamW's decay mask)

export interface ArraySpec {
  layout: Layout;
  ints?: [number, number]; // i32 values in [lo, hi); else f32 normal
  mask?: boolean; // f32 0/1
  scale?: number;
  zeroRows?: number[]; // rows (global) set to 0 (masked positions: the CPU matmul skips them)
  // At a parameter stride, the arrays of one group share a buffer as a model's parameters (or gradients) do:
  // each member's copies side by side in its flat vector, every array a view reaching all members, so the
  // views overlap.
  group?: 'params' | 'grads';
}

export type T = Record<string, Tensor>;

export interface MemberCase {
  name: string;
  counts: number[]; // rows per member (of the op's own rows)
  arrays: Record<string, ArraySpec>;
  outputs: string[];
  unchanged?: string[]; // outputs the op must leave as they were (a null bias's gradient)
  /** The op(s): with members (k undefined), or alone for member k (members undefined, N its rows). */
  run(b: Backend, t: T, N: number, members: Members | undefined, k: number | undefined, host: Host): void;
  /** Adjusts the seeded inputs (stride: the parameter stride, undefined when packed). */
  prepare?(host: Host, stride: number | undefined): void;
}

export type Host = Record<string, Float32Array | Int32Array>;

function rowStartOf(counts: number[]): number[] {
  const s = [0];
  for (const c of counts) s.push(s[s.length - 1] + c);
  return s;
}

/** Elements of an array in the stacked layout; paramStride (or the packed size) apart for parameters. */
function stackedSize(spec: ArraySpec, counts: number[], stride: number | undefined): number {
  const K = counts.length, N = rowStartOf(counts)[K], l = spec.layout;
  if ('rows' in l) return N * l.rows;
  if ('param' in l) return stride === undefined ? K * l.param : (K - 1) * stride + l.param;
  if ('member' in l) return K;
  return l.shared;
}

/** Host inputs for a case (seeded); stride: undefined for packed parameters. */
export function hostInputs(c: MemberCase, seed: number, stride?: number): Host {
  const r = new Rng(seed);
  const host: Host = {};
  for (const [name, spec] of Object.entries(c.arrays)) {
    const n = stackedSize(spec, c.counts, stride);
    host[name] = spec.ints ? r.ints(n, spec.ints[0], spec.ints[1]) : spec.mask ? r.mask(n, 0.5) : r.normal(n, spec.scale ?? 1);
    if (spec.zeroRows && 'rows' in spec.layout) {
      for (const row of spec.zeroRows) host[name].fill(0, row * spec.layout.rows, (row + 1) * spec.layout.rows);
    }
  }
  c.prepare?.(host, stride);
  return host;
}

/** [begin, end) of member k's part of an array. */
function part(spec: ArraySpec, counts: number[], k: number, stride: number | undefined): [number, number] {
  const rs = rowStartOf(counts), l = spec.layout;
  if ('rows' in l) return [rs[k] * l.rows, rs[k + 1] * l.rows];
  if ('param' in l) { const s = stride ?? l.param; return [k * s, k * s + l.param]; }
  if ('member' in l) return [k, k + 1];
  return [0, l.shared];
}

function upload(b: Backend, host: Host): T {
  const t: T = {};
  for (const [name, data] of Object.entries(host)) {
    t[name] = b.alloc(Math.max(1, data.length), data instanceof Int32Array ? 'i32' : 'f32');
    b.write(t[name], data);
  }
  return t;
}

const FLAT_ALIGN = 64; // a parameter's offset in a member's flat vector, as src/model/params.ts aligns them
const UNUSED = 7.25; // fills a group buffer where no array's copy lies

interface Group { buffer: Tensor; init: Float32Array; at: Map<string, number> } // offsets in a member's flat vector

/** One buffer per group of parameter arrays at a stride (ArraySpec.group); the arrays become views into it. */
function uploadGroups(b: Backend, c: MemberCase, host: Host, stride: number, t: T): Group[] {
  const K = c.counts.length, groups: Group[] = [];
  for (const g of ['params', 'grads'] as const) {
    const names = Object.keys(c.arrays).filter((n) => c.arrays[n].group === g);
    if (names.length === 0) continue;
    const init = new Float32Array(K * stride).fill(UNUSED), at = new Map<string, number>();
    let offset = 0;
    for (const name of names) {
      const size = (c.arrays[name].layout as { param: number }).param;
      if (offset + size > stride) throw new Error(`memberCases: group ${g} does not fit a stride of ${stride}`);
      for (let k = 0; k < K; k++) init.set(host[name].subarray(k * stride, k * stride + size), k * stride + offset);
      at.set(name, offset);
      offset += Math.ceil(size / FLAT_ALIGN) * FLAT_ALIGN;
    }
    const buffer = b.alloc(init.length);
    b.write(buffer, init);
    for (const name of names) t[name] = b.view(buffer, at.get(name)!, host[name].length);
    groups.push({ buffer, init, at });
  }
  return groups;
}

/**
 * The case's outputs after the member op on the stacked inputs. In a group buffer, only the outputs'
 * member copies may change (else this throws); an output's values between its copies are reported as
 * they were (they belong to other arrays there).
 */
export async function stacked(b: Backend, c: MemberCase, host: Host, stride?: number): Promise<Record<string, Float64Array>> {
  const grouped = (name: string) => stride !== undefined && c.arrays[name].group !== undefined;
  const t = upload(b, Object.fromEntries(Object.entries(host).filter(([name]) => !grouped(name))));
  const groups = stride === undefined ? [] : uploadGroups(b, c, host, stride, t);
  const members = memberRows(b, c.counts, stride);
  c.run(b, t, members.rowStartHost[members.K], members, undefined, host);
  const out: Record<string, Float64Array> = {};
  for (const name of c.outputs) {
    if (!grouped(name)) { out[name] = Float64Array.from(await b.read(t[name])); continue; }
    out[name] = Float64Array.from(host[name]);
    const got = await b.read(t[name]), size = (c.arrays[name].layout as { param: number }).param;
    for (let k = 0; k < c.counts.length; k++) out[name].set(got.subarray(k * stride!, k * stride! + size), k * stride!);
  }
  for (const g of groups) {
    const now = await b.read(g.buffer), mine = new Uint8Array(now.length); // 1 where an output's copy lies
    for (const [name, offset] of g.at) {
      if (!c.outputs.includes(name)) continue;
      const size = (c.arrays[name].layout as { param: number }).param;
      for (let k = 0; k < c.counts.length; k++) mine.fill(1, k * stride! + offset, k * stride! + offset + size);
    }
    const i = now.findIndex((x, j) => !mine[j] && x !== g.init[j]);
    if (i >= 0) throw new Error(`${c.name}: the op wrote element ${i} of a group buffer outside its outputs' copies`);
  }
  for (const [name, x] of Object.entries(t)) if (!grouped(name)) b.free(x);
  for (const g of groups) b.free(g.buffer);
  b.free(members.rowStart);
  return out;
}

/** The same arrays from each member's lone run (today's ops) on its slices. */
export async function alone(b: Backend, c: MemberCase, host: Host, stride?: number): Promise<Record<string, Float64Array>> {
  const out: Record<string, Float64Array> = {};
  for (const name of c.outputs) out[name] = Float64Array.from(host[name]);
  for (let k = 0; k < c.counts.length; k++) {
    const mine: Host = {};
    for (const [name, spec] of Object.entries(c.arrays)) mine[name] = host[name].slice(...part(spec, c.counts, k, stride));
    const t = upload(b, mine);
    c.run(b, t, c.counts[k], undefined, k, host);
    for (const name of c.outputs) {
      const [begin, end] = part(c.arrays[name], c.counts, k, stride);
      out[name].set((await b.read(t[name])).subarray(0, end - begin), begin);
    }
    for (const x of Object.values(t)) b.free(x);
  }
  return out;
}

// ---- the cases: K = 3 members, one of them without rows, at sizes off every tile ----

const IC = 13, OC = 11, C = 13, V = 7, T = 3, TL = 4;
export const COUNTS = [5, 0, 7];
const SEQS = [2, 0, 3]; // embeddingLast: sequences per member
const rows = (w: number): ArraySpec => ({ layout: { rows: w } });
const param = (size: number): ArraySpec => ({ layout: { param: size }, group: 'params' });
const grad = (size: number): ArraySpec => ({ layout: { param: size }, group: 'grads' });
const flat = (size: number): ArraySpec => ({ layout: { param: size } });

const linear = () => ({ inp: rows(IC), weight: param(OC * IC), bias: param(OC) });

export const HP: AdamWParams = { lr: 0, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, step: 3 };
/** f32-exact learning rates, so lr read from a tensor equals hp.lr. */
export const LRS = [2 ** -10, 3 * 2 ** -12, 2 ** -7];

export function memberCases(counts = COUNTS, seqs = SEQS): MemberCase[] {
  return [
    ...[true, false].map((withBias): MemberCase => ({
      name: `matmulForward ${withBias ? 'with' : 'without'} bias`,
      counts, arrays: { ...linear(), out: rows(OC) }, outputs: ['out'],
      run: (b, t, N, m) => b.matmulForward(t.out, t.inp, t.weight, withBias ? t.bias : null, N, IC, OC, m),
    })),
    {
      name: 'matmulResidualForward', counts, arrays: { ...linear(), residual: rows(OC), out: rows(OC) }, outputs: ['out'],
      run: (b, t, N, m) => b.matmulResidualForward(t.out, t.inp, t.weight, t.bias, t.residual, N, IC, OC, m),
    },
    {
      name: 'matmulGeluForward', counts, arrays: { ...linear(), pre: rows(OC), out: rows(OC) }, outputs: ['pre', 'out'],
      run: (b, t, N, m) => b.matmulGeluForward(t.pre, t.out, t.inp, t.weight, t.bias, N, IC, OC, m),
    },
    ...[true, false].map((withBias): MemberCase => ({
      name: `matmulBackward ${withBias ? 'with' : 'without'} bias (accumulating; a masked row)`, counts,
      arrays: { ...linear(), dinp: rows(IC), dweight: grad(OC * IC), dbias: grad(OC), dout: { layout: { rows: OC }, zeroRows: [1] } },
      outputs: ['dinp', 'dweight', 'dbias'], unchanged: withBias ? [] : ['dbias'],
      run: (b, t, N, m) => b.matmulBackward(t.dinp, t.dweight, withBias ? t.dbias : null, t.dout, t.inp, t.weight, N, IC, OC, m),
    })),
    {
      name: 'layernorm forward and backward (accumulating)', counts,
      arrays: {
        inp: { layout: { rows: C }, scale: 2 }, weight: param(C), bias: param(C), out: rows(C), mean: rows(1), rstd: rows(1),
        dout: rows(C), dinp: rows(C), dweight: grad(C), dbias: grad(C),
      },
      outputs: ['out', 'mean', 'rstd', 'dinp', 'dweight', 'dbias'],
      run: (b, t, N, m) => {
        b.layernormForward(t.out, t.mean, t.rstd, t.inp, t.weight, t.bias, N, C, m);
        b.layernormBackward(t.dinp, t.dweight, t.dbias, t.dout, t.inp, t.weight, t.mean, t.rstd, N, C, m);
      },
    },
    {
      name: 'embedding forward and backward (accumulating), positions from each member\'s first row', counts,
      arrays: {
        tokens: { layout: { rows: 1 }, ints: [0, V] }, wte: param(V * C), wpe: param(T * C), out: rows(C),
        dout: rows(C), dwte: grad(V * C), dwpe: grad(T * C),
      },
      outputs: ['out', 'dwte', 'dwpe'],
      run: (b, t, N, m) => {
        b.embeddingForward(t.out, t.tokens, t.wte, t.wpe, N, T, C, m);
        b.embeddingBackward(t.dwte, t.dwpe, t.dout, t.tokens, N, T, C, V, m);
      },
    },
    {
      name: 'embeddingLast (rows are sequences)', counts: seqs,
      arrays: {
        tokens: { layout: { rows: TL }, ints: [0, V] }, pos: { layout: { rows: 1 }, ints: [1, TL + 1] },
        wte: param(V * C), wpe: param(TL * C), out: rows(C),
      },
      outputs: ['out'],
      run: (b, t, B, m) => b.embeddingLast(t.out, t.tokens, t.pos, t.wte, t.wpe, B, TL, C, m),
    },
    optimizerCase(counts.length, 150, counts.map((_, k) => [1, 0.05, 1e9][k % 3])), // unclipped, clipped, clipped hard
    optimizerCase(counts.length, 150, counts.map((_, k) => [0.05, Infinity, 1][k % 3]), 1, true), // the fused op; a member's guard
  ];
}

/**
 * sumSquares, clipScale and AdamW per member over segments of n. gradScales: each member's gradient
 * scale (a member clipped, one not, ...); Infinity makes that member's norm non-finite (the guard).
 */
export function optimizerCase(K: number, n: number, gradScales: number[], maxNorm = 1, fused = false): MemberCase {
  const stack = (m: Members | undefined): MemberStack | undefined => m && { K: m.K, paramStride: m.paramStride };
  return {
    name: `sumSquares, ${fused ? 'clipAdamw' : 'clipScale, adamw'} per member (gradient scales ${gradScales.join(', ')})`,
    counts: new Array<number>(K).fill(0),
    arrays: {
      // each its own flat vector (separate buffers, as a model's params, grads and moments are)
      params: flat(n), grads: flat(n), mom: flat(n), vel: { layout: { param: n }, scale: 0.01 }, decayMask: { layout: { shared: n }, mask: true },
      normSq: { layout: { member: true } }, scale: { layout: { member: true } }, lr: { layout: { member: true } },
    },
    outputs: ['normSq', 'scale', 'params', 'mom', 'vel'],
    prepare: (host, stride) => {
      const s = stride ?? n;
      const grads = host.grads as Float32Array, vel = host.vel as Float32Array, lr = host.lr as Float32Array;
      for (let k = 0; k < K; k++) {
        for (let i = 0; i < n; i++) grads[k * s + i] *= gradScales[k];
        lr[k] = LRS[k % LRS.length];
      }
      for (let i = 0; i < vel.length; i++) vel[i] = Math.abs(vel[i]); // second moments are non-negative
    },
    run: (b, t, _N, m, k, host) => {
      b.sumSquares(t.normSq, t.grads, n, stack(m));
      const lr = m ? 0 : (host.lr as Float32Array)[k!], om = m && { K: m.K, paramStride: m.paramStride, lr: t.lr };
      if (fused) return b.clipAdamw(t.params, t.grads, t.mom, t.vel, t.decayMask, t.scale, t.normSq, maxNorm, n, { ...HP, lr }, om);
      b.clipScale(t.scale, t.normSq, maxNorm, stack(m));
      b.adamw(t.params, t.grads, t.mom, t.vel, t.decayMask, t.scale, n, { ...HP, lr }, om);
    },
  };
}

export { rowStartOf, IC, OC, C, V, T };
