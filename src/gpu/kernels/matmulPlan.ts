// How shaders/matmul.wgsl is launched for one product out[M,N] (+)= A[M,K] @ B[K,N]:
// the output tile per workgroup and the number of K slices (split-K). Pure, so
// the rule is unit-tested without a GPU (test/gpu/matmulPlan.test.ts).
//
// The GPU needs a few hundred workgroups in flight to be busy, but the model's
// products are often narrow (C = 64 .. 256 columns) with thousands of rows, and
// the weight gradient is the worst case: a small [OC, IC] output summed over
// K = N rows. Big tiles reuse each staged element more (tm tn / (tm + tn)
// multiply-adds each: 32 for 64x64, 8 for 16x16), so the rule keeps tiles big
// and splits K when K is long enough, and shrinks tiles only when K is too
// short to split. A tile side is 16 x (outputs per invocation): 16, 32 or 64.

export const BK = 16; // K step of the shader's staging loop
export const TARGET_GROUPS = 256; // ~2 per SM on a large GPU (H100: 132 SMs)
/** On a CPU adapter (SwiftShader) more, smaller workgroups only add barrier cost: one is enough (64x64 tiles, no split). */
export const CPU_TARGET_GROUPS = 1;
export const MIN_SLICE_K = 128; // a K slice shorter than this spends more on its partial tile than on the product
export const MAX_SPLITS = 64;
export const MAX_SCRATCH = 1 << 22; // f32 partials (16 MiB)

export interface MatmulPlan {
  tm: number; // output rows per workgroup
  tn: number; // output columns per workgroup
  splits: number; // K slices (grid z); 1 = no split, the tile kernel writes out directly
  kSlice: number; // K per slice, a multiple of BK; splits * kSlice >= K > (splits - 1) * kSlice
  grid: [number, number, number]; // [ceil(N / tn), ceil(M / tm), splits]
}

// Preferred first: the most reuse per staged element (area, then squareness).
// A tile is big when each invocation computes at least 4 outputs.
const BIG: ReadonlyArray<readonly [number, number]> = [[64, 64], [64, 32], [32, 64], [32, 32], [64, 16], [16, 64]];
const SMALL: ReadonlyArray<readonly [number, number]> = [[32, 16], [16, 32], [16, 16]];

/** The smallest tile side in {16, 32, 64} that covers n (a 64-wide tile over 3 columns wastes 95%). */
function sideFor(n: number): number {
  return n <= 16 ? 16 : n <= 32 ? 32 : 64;
}

/** The plan for a given tile and (at most) `wanted` K slices; planMatmul's choice, or a test's. */
export function planWith(M: number, N: number, K: number, tm: number, tn: number, wanted: number): MatmulPlan {
  const kSlice = Math.max(BK, Math.ceil(Math.ceil(K / wanted) / BK) * BK);
  const splits = K === 0 ? 1 : Math.ceil(K / kSlice); // rounding kSlice up may leave fewer, never empty, slices
  return { tm, tn, splits, kSlice, grid: [Math.ceil(N / tn), Math.ceil(M / tm), splits] };
}

export function groupsOf(plan: MatmulPlan): number {
  return plan.grid[0] * plan.grid[1] * plan.grid[2];
}

/**
 * Tile and K slices for out[M,N] = A[M,K] @ B[K,N]: the first big tile (then the
 * first small one) that gives TARGET_GROUPS workgroups, alone or with split-K;
 * else the plan with the most workgroups. K is split only as far as (1) each
 * slice keeps >= MIN_SLICE_K, (2) the partials fit MAX_SCRATCH and (3) writing
 * and reading them back (2 * splits * M * N floats) costs no more memory
 * traffic than the operands themselves ((M + N) * K floats).
 */
export function planMatmul(M: number, N: number, K: number, target = TARGET_GROUPS): MatmulPlan {
  return memo(`m${M},${N},${K},${target}`, () => choosePlan(M, N, K, target));
}

// Plans are pure in their arguments and asked for at every product of every step (a few hundred a step, each
// building and filtering its candidate tiles): kept, frozen, by shape. A step's shapes are few; the bound is for
// runs whose shapes keep changing.
const plans = new Map<string, unknown>();
function memo<P extends object>(key: string, make: () => P): P {
  let p = plans.get(key) as P | undefined;
  if (p === undefined) {
    if (plans.size >= 4096) plans.clear();
    p = deepFreeze(make());
    plans.set(key, p);
  }
  return p;
}
function deepFreeze<P extends object>(p: P): P {
  for (const v of Object.values(p)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  return Object.freeze(p);
}

function choosePlan(M: number, N: number, K: number, target: number): MatmulPlan {
  const fits = ([tm, tn]: readonly [number, number]) => tm <= sideFor(M) && tn <= sideFor(N);
  const outputs = Math.max(1, M * N);
  const maxSplits = Math.max(1, Math.min(MAX_SPLITS, Math.floor(K / MIN_SLICE_K), Math.floor(MAX_SCRATCH / outputs),
    Math.floor(((M + N) * K) / (2 * outputs))));
  const plans = (tiles: ReadonlyArray<readonly [number, number]>) => tiles.filter(fits).map(([tm, tn]) => {
    const alone = Math.ceil(M / tm) * Math.ceil(N / tn);
    return planWith(M, N, K, tm, tn, Math.min(maxSplits, Math.max(1, Math.ceil(target / alone))));
  });
  const big = plans(BIG);
  const small = plans(SMALL);
  const enough = (p: MatmulPlan) => groupsOf(p) >= target;
  const found = big.find(enough) ?? small.find(enough);
  if (found) return found;
  // Too small an output for the target even split as far as K allows: the most workgroups.
  return [...big, ...small].reduce((best, p) => (groupsOf(p) > groupsOf(best) ? p : best));
}

/**
 * Each member's plan when `members` products share one dispatch (grid z = member x slice): one
 * member's own plan, so whether split-K adds its sum dispatch does not depend on the members (a plan
 * for a share of the target could split where the whole one does not). When the members' partials
 * together would pass MAX_SCRATCH, fewer slices, but still at least 2 (the same dispatches).
 */
export function planMembers(M: number, N: number, K: number, members: number, target = TARGET_GROUPS): MatmulPlan {
  return memo(`p${M},${N},${K},${members},${target}`, () => chooseMembers(M, N, K, members, target));
}

function chooseMembers(M: number, N: number, K: number, members: number, target: number): MatmulPlan {
  const plan = planMatmul(M, N, K, target);
  if (plan.splits === 1 || members * plan.splits * M * N <= MAX_SCRATCH) return plan;
  return planWith(M, N, K, plan.tm, plan.tn, Math.max(2, Math.floor(MAX_SCRATCH / (members * M * N))));
}

/**
 * A Linear's backward in one dispatch (shaders/linear_backward.wgsl): dinp[rows, IC] = dout @ W (K = OC) and
 * dweight[OC, IC] = dout^T @ inp (K = rows) share one tile shape (both have IC columns). The weight gradient's
 * plan (the thin, long-K product) picks the tile; dinp takes that tile and as many K slices as planMatmul's
 * rule gives it with it (none when the tiles alone reach the target).
 */
export interface BackwardPlan {
  dinp: MatmulPlan; // [rows, IC] over K = OC
  dweight: MatmulPlan; // [OC, IC] over K = rows
}

export function planBackward(rows: number, IC: number, OC: number, members = 1, target = TARGET_GROUPS): BackwardPlan {
  return memo(`b${rows},${IC},${OC},${members},${target}`, () => chooseBackward(rows, IC, OC, members, target));
}

function chooseBackward(rows: number, IC: number, OC: number, members: number, target: number): BackwardPlan {
  const dweight = planMembers(OC, IC, rows, members, target);
  const { tm, tn } = dweight;
  const alone = Math.ceil(rows / tm) * Math.ceil(IC / tn);
  const outputs = Math.max(1, rows * IC);
  const maxSplits = Math.max(1, Math.min(MAX_SPLITS, Math.floor(OC / MIN_SLICE_K), Math.floor(MAX_SCRATCH / (members * outputs)),
    Math.floor(((rows + IC) * OC) / (2 * outputs))));
  return { dweight, dinp: planWith(rows, IC, OC, tm, tn, Math.min(maxSplits, Math.max(1, Math.ceil(target / alone)))) };
}
