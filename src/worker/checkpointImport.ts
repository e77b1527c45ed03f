// A .safetensors file the page loads, checked whole before the run changes:
// its run config (or the current one with its model sizes), an env built from
// it, the preset it belongs to, and the fit of its tensors. A bad file throws
// an InputError naming why, and the run is left as it was.
import { validateConfig, type RunConfig } from '../config';
import { InputError } from '../contract/errors';
import { PRESETS, type Preset } from '../envs/presets';
import { createEnv } from '../envs/registry';
import type { Environment } from '../envs/types';
import { readCheckpoint } from '../model/checkpoint';
import { checkpointFit, presetTrainableSlot } from '../rl/checkpointFit';

export interface ImportedCheckpoint {
  config: RunConfig;
  env: Environment;
  preset: Preset;
  weights: Float32Array; // the trainable slot's
  /** ' (step S of P)' when the file says, else ''. */
  stepLabel: string;
  /** The step the file records (a whole number), else null. */
  step: number | null;
  notice: string | null;
}

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** `current`: the run's config (with pending changes) and preset, used when the file lacks its own. */
export function importCheckpoint(bytes: Uint8Array, current: RunConfig | null, currentPreset: Preset | null): ImportedCheckpoint {
  const reject = (why: string): never => { throw new InputError(`checkpoint rejected: ${why}`); };
  let ck: ReturnType<typeof readCheckpoint>;
  try { ck = readCheckpoint(bytes); } catch (e) { return reject(errorMessage(e)); }
  let config: RunConfig;
  if (ck.extras.run_config !== undefined) {
    let raw: unknown;
    try { raw = JSON.parse(ck.extras.run_config); } catch { return reject('__metadata__.run_config is not valid JSON'); }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return reject('__metadata__.run_config must be a JSON object');
    try { config = validateConfig(raw as Record<string, unknown>); } catch (e) { return reject(`run_config: ${errorMessage(e)}`); }
  } else if (current) {
    try { config = validateConfig({ nLayer: ck.config.nLayer, nHead: ck.config.nHead, nEmbd: ck.config.nEmbd }, current); } catch (e) { return reject(errorMessage(e)); }
  } else {
    return reject('it has no run_config in its metadata; init() a preset first so its config can be used');
  }
  let env: Environment;
  try { env = createEnv(config); } catch (e) { return reject(errorMessage(e)); }
  const named = ck.extras.preset ? PRESETS.find((p) => p.name === ck.extras.preset) : undefined;
  const preset = named ?? currentPreset ?? PRESETS.find((p) => (p.config.env ?? 'relay') === config.env);
  if (!preset) return reject(`no preset for the ${config.env} environment`);
  const fit = checkpointFit(ck, config, env, { slot: presetTrainableSlot(preset) });
  if (!fit.fits) return reject(fit.why);
  const stepLabel = ck.extras.step ? ` (step ${ck.extras.step}${ck.extras.preset ? ` of ${ck.extras.preset}` : ''})` : '';
  const stepNumber = ck.extras.step !== undefined && /^\d{1,15}$/.test(ck.extras.step) ? Number(ck.extras.step) : null;
  return { config, env, preset, weights: ck.weights, stepLabel, step: stepNumber, notice: fit.notice };
}
