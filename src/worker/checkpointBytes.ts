// A run's checkpoint file as the page stores and exports it: the weights with the env record,
// the preset, the run config, the step and which checkpoint it is (last or best). A lone run
// and a population member write the same format, so either resumes or loads the other's.
import type { RunConfig } from '../config';
import type { Preset } from '../envs/presets';
import type { Environment } from '../envs/types';
import { writeCheckpoint } from '../model/checkpoint';
import type { GPTConfig } from '../model/params';
import { envRecord, presetTrainableSlot } from '../rl/checkpointFit';

export function runCheckpointBytes(model: GPTConfig, weights: Float32Array, env: Environment, preset: Preset | null, config: RunConfig,
  which: 'last' | 'best', step: number): Uint8Array {
  const bytes = writeCheckpoint({
    config: model, weights, vocab: [...env.vocab],
    extras: { ...envRecord(config, preset ? presetTrainableSlot(preset) : undefined), preset: preset?.name ?? '', run_config: JSON.stringify(config), step: String(step), which },
  });
  // its own buffer: it is transferred to the page
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
