// Node-side I/O for the CLI: backend choice, files read whole and written atomically.
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import type { Backend } from '../backend';
import { InputError } from '../errors';
import { CpuBackend } from '../reference/cpuBackend';
import { readCheckpoint, type Checkpoint } from '../model/checkpoint';
import { SafetensorsError } from '../model/safetensors';

export const MAX_CHECKPOINT_BYTES = 512 << 20;

export function log(msg: string): void {
  process.stderr.write(msg + '\n');
}

export function readFileChecked(path: string, what: string, maxBytes: number): Uint8Array {
  let size: number;
  try { size = statSync(path).size; } catch { throw new InputError(`${what} "${path}" does not exist or cannot be read`); }
  if (size > maxBytes) throw new InputError(`${what} "${path}" is ${size} bytes, more than the limit of ${maxBytes}`);
  return new Uint8Array(readFileSync(path));
}

export function loadCheckpoint(path: string): Checkpoint {
  const bytes = readFileChecked(path, 'checkpoint', MAX_CHECKPOINT_BYTES);
  try {
    return readCheckpoint(bytes);
  } catch (e) {
    if (e instanceof SafetensorsError) throw new InputError(`checkpoint "${path}": ${e.message}`);
    throw e;
  }
}

/** Nothing is written half-way: a temp file, then a rename. */
export function writeAtomic(path: string, data: Uint8Array | string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

export type BackendChoice = 'webgpu' | 'cpu';

export async function webgpuBackend(): Promise<{ backend: Backend | null; reason: string }> {
  const { createNodeBackend } = await import('../gpu/node');
  return createNodeBackend();
}

/** --backend webgpu|cpu; by default WebGPU when an adapter is found, else CPU with a one-line notice. */
export async function chooseBackend(flag: unknown): Promise<Backend> {
  if (flag !== undefined && flag !== 'webgpu' && flag !== 'cpu') throw new InputError(`--backend must be webgpu or cpu, got "${flag}"`);
  if (flag === 'cpu') return new CpuBackend();
  const { backend, reason } = await webgpuBackend();
  if (backend) return backend;
  if (flag === 'webgpu') throw new InputError(`--backend webgpu: no WebGPU adapter (${reason})`);
  log(`notice: no WebGPU adapter (${reason}); using the CPU backend`);
  return new CpuBackend();
}
