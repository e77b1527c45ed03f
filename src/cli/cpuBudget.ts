// The memory budget of a run on the CPU engine, checked before anything is allocated: the run's
// estimate (population.ts memberBytes: weights, optimizer state, the rollout's, minibatch's and
// eval's activations and KV caches, every policy slot) against a share of the machine's memory,
// or against --memory-limit, which may lower that share but not raise it past the machine.
// A run over it is refused with the estimate and the setting to lower, instead of ending in
// "Array buffer allocation failed" part-way through.
import { totalmem } from 'node:os';
import type { RunConfig } from '../config';
import { InputError } from '../contract/errors';
import type { GPTConfig } from '../model/params';
import { checkCpuMemory } from '../rl/memoryBudget';

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

/** Refuses, naming the estimate, the limit and what weighs most, a run whose estimate is over the limit (memoryBudget.ts). */
export function checkCpuBudget(config: RunConfig, model: GPTConfig, slots: number, limitBytes: number, members = 1): number {
  return checkCpuMemory(config, model, slots, limitBytes, members, `${Math.round(MACHINE_SHARE * 100)}% of this machine's ${Math.ceil(totalmem() / MiB)} MiB, or --memory-limit`);
}
