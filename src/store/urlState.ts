// The shareable URL: `v` (the format version), `preset`, and every config
// field that differs from the preset's value, in FIELDS order. Opening such a
// URL restores the setup (not the weights). Every parameter is checked like
// any input: an unknown, malformed or out-of-range one is reported (naming it
// and why) and not applied; the others still are.
import { FIELDS, parseField, validateConfig, type RunConfig } from '../config';
import { findPreset, presetConfig, PRESETS } from '../envs/presets';

export const URL_VERSION = 1;
export const DEFAULT_PRESET = 'relay-silence';

export interface DecodedSetup {
  preset: string;
  /** Fields that override the preset (validated one by one and together). */
  overrides: Partial<RunConfig>;
  /** One line per parameter that was not applied, naming it and why. */
  problems: string[];
}

const keys = Object.keys(FIELDS) as (keyof RunConfig)[];
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The query string (without '?') for a preset and the config in force. */
export function encodeSetup(preset: string, config: RunConfig): string {
  const base = presetConfig(findPreset(preset));
  const q = new URLSearchParams();
  q.set('v', String(URL_VERSION));
  q.set('preset', preset);
  for (const k of keys) if (config[k] !== base[k]) q.set(k, String(config[k]));
  return q.toString();
}

/** Fields of `config` that differ from the preset's (what init() takes as overrides). */
export function overridesOf(preset: string, config: RunConfig): Partial<RunConfig> {
  const base = presetConfig(findPreset(preset));
  const out: Record<string, unknown> = {};
  for (const k of keys) if (config[k] !== base[k]) out[k] = config[k];
  return out as Partial<RunConfig>;
}

export function decodeSetup(search: string): DecodedSetup {
  const q = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const k of q.keys()) {
    if (seen.has(k)) continue;
    seen.add(k);
    if (q.getAll(k).length > 1) problems.push(`${k} is given ${q.getAll(k).length} times; the first (${q.get(k)}) is used`);
  }
  const v = q.get('v');
  if (v !== null && v !== String(URL_VERSION)) problems.push(`v=${v}: this page reads version ${URL_VERSION} links; the rest was read as version ${URL_VERSION}`);

  let preset = DEFAULT_PRESET;
  const p = q.get('preset');
  if (p !== null) {
    if (PRESETS.some((x) => x.name === p)) preset = p;
    else problems.push(`preset "${p}" is not one of ${PRESETS.map((x) => x.name).join(', ')}; ${DEFAULT_PRESET} is used`);
  }
  const base = presetConfig(findPreset(preset));

  const overrides: Record<string, unknown> = {};
  for (const k of seen) {
    if (k === 'v' || k === 'preset') continue;
    if (!(k in FIELDS)) { problems.push(`unknown parameter "${k}" (not a config field)`); continue; }
    try {
      overrides[k] = parseField(k as keyof RunConfig, q.get(k));
    } catch (e) {
      problems.push(`${errorText(e)}; not applied`);
    }
  }
  // the fields together (nEmbd divisible by nHead): drop the model size overrides that break it
  try {
    validateConfig(overrides, base);
  } catch (e) {
    const dropped = (['nLayer', 'nHead', 'nEmbd'] as const).filter((k) => k in overrides);
    for (const k of dropped) delete overrides[k];
    problems.push(`${errorText(e)}; ${dropped.length ? `${dropped.join(', ')} not applied` : 'not applied'}`);
    try { validateConfig(overrides, base); } catch (e2) {
      problems.push(`${errorText(e2)}; every parameter ignored`);
      return { preset, overrides: {}, problems };
    }
  }
  return { preset, overrides: overrides as Partial<RunConfig>, problems };
}
