// The memory budget of a run on a WebGPU device, checked before anything starts: every tensor must fit
// one storage binding (maxStorageBufferBindingSize) and, rounded up to the buffer pool's size class, one
// buffer (maxBufferSize); and the whole member (population.ts memberBytes, pool rounding included) must
// fit a conservative share of the device's memory. What does not fit is refused with the setting to lower.
import type { RunConfig } from '../config';
import { InputError } from '../contract/errors';
import { sizeClass } from '../gpu/bufferPool';
import { paramCount, type GPTConfig } from '../model/params';
import { activationTensors, kvCacheFloats, memberBytes } from './population';

export interface DeviceLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

export interface BudgetReport {
  /** The member's bytes with every allocation rounded to its pool size class. */
  totalBytes: number;
  budgetBytes: number;
  /** The largest single tensor: its bytes, and what it is. */
  largest: { bytes: number; what: string; lower: string };
  /** The part of totalBytes that weighs most (parameters, or one set of activations), and its setting. */
  heaviest: { bytes: number; what: string; lower: string };
  /** The rows a rollout or eval generates at once (Infinity: all of them; fewer when all at once would not fit). */
  chunkRows: number;
}

const MiB = 1 << 20;
const GiB = 1 << 30;
const mib = (b: number) => `${Math.ceil(b / MiB)} MiB`;

/**
 * A conservative share of the device's memory, which WebGPU does not report: half the host memory the
 * browser admits to (navigator.deviceMemory, GiB, capped at 8 by browsers), else 2 GiB (integrated GPUs
 * share the host's memory, and a lost device is worse than a refused setting).
 */
export function memoryShare(deviceMemoryGiB: number | undefined): number {
  return deviceMemoryGiB && Number.isFinite(deviceMemoryGiB) && deviceMemoryGiB > 0 ? (deviceMemoryGiB / 2) * GiB : 2 * GiB;
}

/** The sets of activations a run allocates (rows of T positions each), with the setting that sizes each. */
function activationSets(config: RunConfig, chunkRows: number): { set: string; rows: number; lower: string }[] {
  const rollout = config.promptsPerStep * config.groupSize;
  return [
    { set: 'rollout', rows: Math.min(rollout, chunkRows), lower: 'lower promptsPerStep or groupSize' },
    { set: 'minibatch', rows: Math.ceil(rollout / config.minibatches), lower: 'raise minibatches, or lower promptsPerStep or groupSize' },
    { set: 'eval', rows: Math.min(config.evalEpisodes, chunkRows), lower: 'lower evalEpisodes' },
  ];
}

/** `chunkRows`: the rows a rollout or eval generates at once (Infinity: all of them in one go). */
export function gpuBudget(config: RunConfig, model: GPTConfig, slots: number, budgetBytes: number, chunkRows = Infinity): BudgetReport {
  const modelSize = 'lower the model size (nLayer, nEmbd)';
  let largest = { bytes: paramCount(model) * 4, what: 'the parameters', lower: modelSize };
  const totalBytes = memberBytes(config, model, slots, sizeClass, chunkRows);
  // what remains without the activation sets is the parameters' share (the same sum, sets at 0 rows)
  const paramsOnly = memberBytes({ ...config, promptsPerStep: 0, evalEpisodes: 0 }, model, slots, sizeClass);
  let heaviest = { bytes: paramsOnly, what: 'the parameters and optimizer state', lower: modelSize };
  for (const { set, rows, lower } of activationSets(config, chunkRows)) {
    const tensors = [...activationTensors(model, rows), { name: 'kv cache (one layer)', floats: kvCacheFloats(model, rows) }];
    for (const t of tensors) {
      if (t.floats * 4 > largest.bytes) largest = { bytes: t.floats * 4, what: `the ${set}'s ${t.name} (${rows} sequences x ${model.blockSize} tokens)`, lower };
    }
    const setBytes = activationTensors(model, rows).reduce((a, t) => a + sizeClass(t.floats * 4), 0) +
      (set === 'minibatch' ? 0 : model.nLayer * sizeClass(kvCacheFloats(model, rows) * 4)) * (set === 'minibatch' ? 1 : slots);
    if (setBytes > heaviest.bytes) heaviest = { bytes: setBytes, what: `the ${set}'s activations (${rows} sequences)`, lower };
  }
  return { totalBytes, budgetBytes, largest, heaviest, chunkRows };
}

/** Why a budget does not fit these limits (null: it fits). */
function overLimits(r: BudgetReport, limits: DeviceLimits): string | null {
  const { bytes, what, lower } = r.largest;
  if (bytes > limits.maxStorageBufferBindingSize) {
    return `${what} needs ${mib(bytes)} in one tensor, more than this GPU binds (maxStorageBufferBindingSize ${mib(limits.maxStorageBufferBindingSize)}): ${lower}`;
  }
  if (sizeClass(bytes) > limits.maxBufferSize) {
    return `${what} needs a ${mib(sizeClass(bytes))} buffer (${mib(bytes)} rounded up to the pool's size class), more than this GPU's maxBufferSize ${mib(limits.maxBufferSize)}: ${lower}`;
  }
  if (r.totalBytes > r.budgetBytes) {
    return `the run needs about ${mib(r.totalBytes)} of GPU memory (weights, optimizer state, activations, KV caches, buffer rounding), ` +
      `more than the ${mib(r.budgetBytes)} this device can safely give; most of it (${mib(r.heaviest.bytes)}) is ${r.heaviest.what}: ${r.heaviest.lower}`;
  }
  return null;
}

/** The fewest rows a chunked rollout generates at once: below that the chunks' dispatches would cost more than they save. */
export const MIN_CHUNK_ROWS = 8;

/**
 * The report when the run fits, generating its rollouts and evals in chunks of `chunkRows` rows when all of
 * them at once would not (the largest chunk that fits); else an InputError naming the limit and the setting
 * to lower (what still does not fit at the smallest chunk: the minibatch, the parameters, or the whole).
 */
export function checkGpuBudget(config: RunConfig, model: GPTConfig, slots: number, limits: DeviceLimits, budgetBytes: number): BudgetReport {
  const whole = gpuBudget(config, model, slots, budgetBytes);
  if (overLimits(whole, limits) === null) return whole;
  const rows = Math.max(config.promptsPerStep * config.groupSize, config.evalEpisodes);
  const at = (n: number) => gpuBudget(config, model, slots, budgetBytes, n);
  const smallest = at(MIN_CHUNK_ROWS);
  const why = overLimits(rows > MIN_CHUNK_ROWS ? smallest : whole, limits);
  if (why !== null) throw new InputError(why);
  let lo = MIN_CHUNK_ROWS, hi = rows; // lo fits, hi does not: the largest chunk that fits, by bisection
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (overLimits(at(mid), limits) === null) lo = mid; else hi = mid;
  }
  return at(lo);
}

/**
 * A stacked population of K members on one device (one GPT of K members): each tensor holds K members' rows or
 * parameters, so the largest is K times a lone run's and the whole about K lone runs. Refused naming K, the limit
 * and how many would fit, before anything starts.
 */
export function checkStackedBudget(config: RunConfig, model: GPTConfig, K: number, limits: DeviceLimits, budgetBytes: number): BudgetReport {
  const one = gpuBudget(config, model, 1, budgetBytes);
  const fitBinding = Math.floor(limits.maxStorageBufferBindingSize / one.largest.bytes);
  const fitMemory = Math.floor(budgetBytes / one.totalBytes);
  const most = Math.min(fitBinding, fitMemory);
  const advice = (lower: string) => (most >= 1 ? `at most ${most} fit at once (--members ${most})` : `not even one fits: ${lower}`);
  if (K * one.largest.bytes > limits.maxStorageBufferBindingSize) {
    throw new InputError(`a stacked population of K=${K} members: ${one.largest.what} x K needs ${mib(K * one.largest.bytes)} in one tensor, `
      + `more than this GPU binds (maxStorageBufferBindingSize ${mib(limits.maxStorageBufferBindingSize)}): ${advice(one.largest.lower)}`);
  }
  if (K * one.totalBytes > budgetBytes) {
    throw new InputError(`a stacked population of K=${K} members needs about ${mib(K * one.totalBytes)} of GPU memory (${mib(one.totalBytes)} each), `
      + `more than the limit of ${mib(budgetBytes)}: ${advice(one.heaviest.lower)}`);
  }
  return { ...one, totalBytes: K * one.totalBytes, largest: { ...one.largest, bytes: K * one.largest.bytes } };
}

/**
 * The CPU engines' budget (the CLI's share of the machine, the page's share of navigator.deviceMemory): the run's
 * estimate (memberBytes, times its members) against `limitBytes`, refused up front with the estimate, the limit
 * (`limitSays` says where it comes from) and the setting to lower, instead of an allocation failure part-way.
 */
export function checkCpuMemory(config: RunConfig, model: GPTConfig, slots: number, limitBytes: number, members: number, limitSays: string): number {
  const one = memberBytes(config, model, slots), total = one * members;
  if (total <= limitBytes) return total;
  const { heaviest } = gpuBudget(config, model, slots, limitBytes); // its sizes rounded to GPU size classes: only the heaviest part's name is used
  const who = members > 1 ? `${members} runs at once need about ${mib(total)} (${mib(one)} each)` : `the run needs about ${mib(total)}`;
  throw new InputError(`${who} of memory on the CPU (weights, optimizer state, activations, KV caches), more than the ${mib(limitBytes)} it may use (${limitSays}); most of it is ${heaviest.what}: ${heaviest.lower}`);
}
