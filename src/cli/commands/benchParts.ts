// `bench --compare` on the CPU engine: where the step's time goes by the kind of op, against the 128-bit limit.
// Every Backend method is timed for a few extra steps (host time from call to return, the kernel, its threads'
// hand-offs and its JavaScript around it); the time between ops is the host's own (the model's, trainer's and
// environment's JavaScript). The wrapper costs about a microsecond a call, so those steps run a little slower
// than the untimed ones the main table reports.
import type { Backend } from '../../backend';
import type { FlopKinds } from '../../model/flops';
import { limitWords, ofLimit, type Limit } from './benchLimit';
import { fmt, table } from './benchTable';

/**
 * The kinds of op a step is split into (a fused op goes with its matmul: layernormMatmulForward is a matmul's time;
 * decodeSample, a rollout's decode step as one op, is its own part: its matmuls, attention and draw).
 */
export const PARTS = ['matmuls', 'attention', 'decode steps', 'layer norms', 'GELU', 'sampling', 'loss and RL ops', 'optimizer', 'embeddings and copies', 'other ops'] as const;
export type Part = (typeof PARTS)[number];

const PART_OF: Record<string, Part> = {
  matmulForward: 'matmuls', matmulResidualForward: 'matmuls', layernormMatmulForward: 'matmuls', matmulGeluForward: 'matmuls',
  matmulBackward: 'matmuls', matmulGeluBackward: 'matmuls',
  attentionForward: 'attention', attentionBackward: 'attention', attentionDecode: 'attention',
  layernormForward: 'layer norms', layernormBackward: 'layer norms',
  geluForward: 'GELU', geluBackward: 'GELU',
  sample: 'sampling', decodeSample: 'decode steps', // decodeSampleFused only asks which path a step takes: other ops
  logprobForward: 'loss and RL ops', logprobBackward: 'loss and RL ops', crossEntropyForward: 'loss and RL ops', crossEntropyBackward: 'loss and RL ops',
  gather: 'loss and RL ops', groupNormalize: 'loss and RL ops', seqRatio: 'loss and RL ops', clipLoss: 'loss and RL ops', policyLoss: 'loss and RL ops', rlStats: 'loss and RL ops',
  sumSquares: 'optimizer', clipScale: 'optimizer', adamw: 'optimizer', clipAdamw: 'optimizer',
  embeddingForward: 'embeddings and copies', embeddingBackward: 'embeddings and copies', embeddingLast: 'embeddings and copies', copyRows: 'embeddings and copies', gatherLast: 'embeddings and copies',
  residualForward: 'embeddings and copies', accumulate: 'embeddings and copies', write: 'embeddings and copies', read: 'embeddings and copies',
  zero: 'embeddings and copies', copy: 'embeddings and copies',
};

/** The part an op's time counts in (alloc, free, sync and any op not listed: other ops). */
export const partOf = (op: string): Part => PART_OF[op] ?? 'other ops';

export interface OpSplit {
  /** The timed steps' mean wall time, and each op's mean time and calls a step. */
  stepMs: number; ops: Record<string, { ms: number; calls: number }>;
  /** The steps' matmul FLOPs by kind (src/model/flops.ts rlStepFlopKinds), a step's mean; `decode`: those of the decode steps among them. */
  flops: FlopKinds & { decode?: FlopKinds };
}

/**
 * Times `reps` steps with every method of `b` wrapped (only the outermost call counts: an op's helpers are its time),
 * then unwraps. `onCall` sees each timed call (scripts/profileStep.ts groups them by shape).
 */
export async function splitByOp(b: Backend, step: () => Promise<FlopKinds & { decode?: FlopKinds }>, reps: number,
  onCall?: (op: string, args: readonly unknown[], ms: number) => void): Promise<OpSplit> {
  const ops: Record<string, { ms: number; calls: number }> = {};
  const target = b as unknown as Record<string, unknown>;
  const wrapped: string[] = [];
  let depth = 0;
  for (let proto = Object.getPrototypeOf(b) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const f = Object.getOwnPropertyDescriptor(proto, name)?.value;
      if (typeof f !== 'function' || name === 'constructor' || name.startsWith('_') || wrapped.includes(name)) continue;
      wrapped.push(name);
      target[name] = (...args: unknown[]) => {
        if (depth > 0) return (f as (...a: unknown[]) => unknown).apply(b, args);
        depth++;
        const t0 = performance.now();
        try { return (f as (...a: unknown[]) => unknown).apply(b, args); } finally {
          depth--;
          const ms = performance.now() - t0, o = (ops[name] ??= { ms: 0, calls: 0 });
          o.ms += ms;
          o.calls++;
          onCall?.(name, args, ms);
        }
      };
    }
  }
  const flops = { dense: 0, attention: 0 }, decode = { dense: 0, attention: 0 };
  try {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) {
      const k = await step();
      flops.dense += k.dense;
      flops.attention += k.attention;
      decode.dense += k.decode?.dense ?? 0;
      decode.attention += k.decode?.attention ?? 0;
    }
    const stepMs = (performance.now() - t0) / reps;
    for (const o of Object.values(ops)) { o.ms /= reps; o.calls /= reps; }
    return { stepMs, ops, flops: { dense: flops.dense / reps, attention: flops.attention / reps, decode: { dense: decode.dense / reps, attention: decode.attention / reps } } };
  } finally {
    for (const name of wrapped) delete target[name];
  }
}

/** One row of a share table: a part's time a step, its share of the step, its FLOPs and its share of the limit. */
export interface PartShare { part: string; ms: number; ofStep: number; gflop: number; gflops: number; ofLimit: number }

/** A part of `ms` a step and `flop` FLOPs, in a step of `stepMs`: its GFLOP/s over `threads` x the core's limit. */
function share(part: string, ms: number, flop: number, stepMs: number, coreGflops: number, threads: number): PartShare {
  const gflops = ms > 0 ? flop / ms / 1e6 : 0;
  return { part, ms, ofStep: stepMs > 0 ? ms / stepMs : 0, gflop: flop / 1e9, gflops, ofLimit: ofLimit(gflops, coreGflops, threads) };
}

/**
 * The step by part: each kind of op, the host's time between ops (the step less every op), the whole step.
 * A part's share of the limit is its GFLOP/s over `threads` x the core's limit (matmul FLOPs only: the parts
 * that count none are time the step spends off the limit outright).
 */
export function opShares(s: OpSplit, coreGflops: number, threads: number): PartShare[] {
  const ms: Record<string, number> = Object.fromEntries(PARTS.map((p) => [p, 0]));
  for (const [op, o] of Object.entries(s.ops)) ms[partOf(op)] += o.ms;
  const opsMs = PARTS.reduce((a, p) => a + ms[p], 0);
  // the decode steps' FLOPs are theirs where the backend ran them as one op (decodeSample called), else the matmuls' and
  // attention's (the per-op path: the question decodeSampleFused, timed too, is not a decode step)
  const d = (s.ops.decodeSample?.calls ?? 0) > 0 && s.flops.decode ? s.flops.decode : { dense: 0, attention: 0 };
  const flop: Record<string, number> = { matmuls: s.flops.dense - d.dense, attention: s.flops.attention - d.attention, 'decode steps': d.dense + d.attention,
    'whole step': s.flops.dense + s.flops.attention };
  const rows: [string, number][] = [...PARTS.filter((p) => ms[p] > 0).map((p): [string, number] => [p, ms[p]]), ['host, between ops', Math.max(0, s.stepMs - opsMs)], ['whole step', s.stepMs]];
  return rows.map(([part, t]) => share(part, t, flop[part] ?? 0, s.stepMs, coreGflops, threads));
}

/** What the share tables read of a --compare case (benchCompare.ts CaseResult has these and more). */
export interface CaseParts {
  name: string; steps: number; ms: number; flops: number;
  phases: { rollout: number; reward: number; update: number };
  flopParts: { rollout: number; update: number };
  opSplit?: OpSplit;
}

/**
 * Where the step's time goes against the limit: rollout, reward and update (the trainer's phases), the rest of
 * the step (between the phases), and the whole step. A part's share of the limit is its GFLOP/s over
 * `threads` x the core's limit, so the whole step's share is the time-weighted sum of its parts'.
 */
export function limitShares(c: CaseParts, coreGflops: number, threads: number): PartShare[] {
  const rest = Math.max(0, c.ms - c.phases.rollout - c.phases.reward - c.phases.update);
  const rows: [string, number, number][] = [
    ['rollout', c.phases.rollout, c.flopParts.rollout], ['reward', c.phases.reward, 0], ['update', c.phases.update, c.flopParts.update],
    ['rest', rest, 0], ['whole step', c.ms, c.flops],
  ];
  return rows.map(([part, ms, flop]) => share(part, ms, flop, c.ms, coreGflops, threads));
}

export function formatLimitShare(cases: CaseParts[], limit: Limit, threads: number): string {
  const coreGflops = limit.gflops;
  let out = `\nshare of the limit per part: ${limitWords(limit)} x ${threads} thread${threads === 1 ? '' : 's'} = ${(coreGflops * threads).toFixed(1)} GFLOP/s\n`;
  out += shareTable(cases.flatMap((c) => limitShares(c, coreGflops, threads).map((p) => row(c.name, p, true))));
  out += '(matmul FLOP only, src/model/flops.ts; the reward and the rest compute none: their time is what the step spends off the limit outright)\n';
  const split = cases.filter((c) => c.opSplit);
  if (split.length === 0) return out;
  out += `\nthe step by kind of op (${split[0].steps} more step(s) with every op timed: an op's time includes its threads' hand-offs; a fused op counts with its matmul)\n`;
  out += shareTable(split.flatMap((c) => opShares(c.opSplit!, coreGflops, threads).map((p) => row(c.name, p, p.gflop > 0))));
  return out;
}

/** A share row; `counted`: the part counts FLOPs (else dashes: the op split's parts that compute none). */
const row = (name: string, p: PartShare, counted: boolean): string[] => [name, p.part, fmt(p.ms), `${(100 * p.ofStep).toFixed(0)}%`,
  ...(counted ? [fmt(p.gflop, 3), fmt(p.gflops, 2), `${(100 * p.ofLimit).toFixed(0)}%`] : ['-', '-', '-'])];
const shareTable = (rows: string[][]) => table(['case', 'part', 'ms', '% of step', 'GFLOP', 'GFLOP/s', '% of limit'], rows);
