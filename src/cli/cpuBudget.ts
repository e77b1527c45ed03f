// The memory budget of a run on the CPU engine, checked before anything is allocated: the run's
// estimate (population.ts memberBytes: weights, optimizer state, the rollout's, minibatch's and
// eval's activations and KV caches, every policy slot) against a share of the machine's memory,
// or against --memory-limit, which may lower that share but not raise it past the machine.
// A run over it is refused with the estimate and the setting to lower, instead of ending in
// "Array buffer allocation failed" part-way through.
import { totalmem } from 'node:os';
import type { RunConfig } from '../config';
import { InputError } from '../errors';
import type { GPTConfig } from '../model/params';
import { gpuBudget } from '../rl/memoryBudget';
import { memberBytes } from '../rl/population';

const MiB = 2 ** 20;
const mib = (b: number) => `${Math.ceil(b / MiB)} MiB`;

/** The share of the machine a run may plan for: the rest is the OS, Node's heap and other programs. */
export const MACHINE_SHARE = 0.75;

/**
 * Bytes the run may use: `--memory-limit` MiB when given (refused above the machine's memory: it
 * can lower the budget, not raise it), else MACHINE_SHARE of the machine's memory.
 */
export function cpuLimitBytes(flag: unknown, machineBytes = totalmem()): number {
  if (flag === undefined) return Math.floor(machineBytes * MACHINE_SHARE);
  if (typeof flag !== 'number' || !Number.isFinite(flag) || flag < 1) throw new InputError(`--memory-limit must be a positive number of MiB, got ${String(flag)}`);
  if (flag * MiB > machineBytes) throw new InputError(`--memory-limit ${flag} MiB is more than this machine's memory (${mib(machineBytes)}); it can lower the budget, not raise it`);
  return flag * MiB;
}

/** Refuses, naming the estimate, the limit and what weighs most, a run whose estimate is over the limit. */
export function checkCpuBudget(config: RunConfig, model: GPTConfig, slots: number, limitBytes: number, members = 1): number {
  const one = memberBytes(config, model, slots), total = one * members;
  if (total <= limitBytes) return total;
  // the heaviest part and its setting, as the GPU budget names them (its sizes rounded to GPU size classes)
  const { heaviest } = gpuBudget(config, model, slots, limitBytes);
  const who = members > 1 ? `${members} runs at once need about ${mib(total)} (${mib(one)} each)` : `the run needs about ${mib(total)}`;
  throw new InputError(`${who} of memory on the CPU (weights, optimizer state, activations, KV caches), more than the ${mib(limitBytes)} it may use `
    + `(${Math.round(MACHINE_SHARE * 100)}% of this machine's ${mib(totalmem())}, or --memory-limit); most of it is ${heaviest.what}: ${heaviest.lower}`);
}
