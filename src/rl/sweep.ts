// A sweep: one run per (value, seed) of one config axis (lambda_tok, the dual
// budget B, or any numeric field such as scouts), all on the same held-out eval
// set, and the accuracy-vs-tokens frontier across the runs' final evals.
// Shared by the CLI (`sweep`) and the page's Sweep panel.
import { FIELDS, isConfigKey, parseField, type RunConfig } from '../config';
import { InputError } from '../contract/errors';

export type SweepAxis = 'lambdaTok' | 'budget' | keyof RunConfig;

export interface SweepSpec {
  axis: SweepAxis;
  values: number[];
  seeds: number[]; // empty: the preset's seed
}

/** One planned run: its label and the config overrides that make it. */
export interface SweepRun { index: number; axis: SweepAxis; value: number; seed: number | null; label: string; overrides: Partial<RunConfig> }

/** The default grid a preset's sweep starts from: lambdas for a fixed penalty, budgets for the dual one. */
export function defaultSweep(config: RunConfig): SweepSpec {
  if (config.lambdaMode === 'budget') return { axis: 'budget', values: [4, 2, 1], seeds: [] };
  return { axis: 'lambdaTok', values: [0, 0.01, 0.03, 0.1, 0.3], seeds: [] };
}

const QUOTE_MAX = 40;
const quote = (s: string) => JSON.stringify(s.length > QUOTE_MAX ? `${s.slice(0, QUOTE_MAX)}…` : s);

/** "0,0.01,0.1" -> numbers, each valid for `key` (its range from the config table); `what` names the flag in messages. */
export function parseValues(text: string, key: keyof RunConfig, what: string): number[] {
  const parts = text.split(',').map((x) => x.trim());
  if (parts.length === 0 || parts.some((x) => x === '')) throw new InputError(`${what} must be comma-separated numbers, got ${quote(text)}`);
  if (parts.length > 64) throw new InputError(`${what}: at most 64 values, got ${parts.length}`);
  const out = parts.map((x, i) => {
    try {
      return parseField(key, x) as number;
    } catch (e) {
      throw new InputError(`${what}: entry ${i + 1} (${quote(x)}): ${(e as Error).message}`);
    }
  });
  if (new Set(out).size !== out.length) throw new InputError(`${what}: a value is repeated (${quote(text)})`);
  return out;
}

/** `key=v1,v2` for --over: a numeric config field and its values. */
export function parseOver(text: string): { key: keyof RunConfig; values: number[] } {
  const eq = text.indexOf('=');
  const key = eq > 0 ? text.slice(0, eq) : '';
  if (!isConfigKey(key)) throw new InputError(`--over expects key=v1,v2,... with a config key; got ${quote(text)}`);
  const f = FIELDS[key];
  if (f.kind === 'enum') throw new InputError(`--over: ${key} is not numeric (one of ${f.values.join(', ')}); sweep numeric fields only`);
  return { key, values: parseValues(text.slice(eq + 1), key, `--over ${key}`) };
}

/** Every (value, seed) run of a spec, values outermost. */
export function planSweep(spec: SweepSpec): SweepRun[] {
  if (spec.values.length === 0) throw new InputError('a sweep needs at least one value');
  const seeds = spec.seeds.length > 0 ? spec.seeds : [null];
  const runs: SweepRun[] = [];
  for (const value of spec.values) {
    for (const seed of seeds) {
      const overrides: Partial<RunConfig> =
        spec.axis === 'lambdaTok' ? { lambdaMode: 'manual', lambdaTok: value }
        : spec.axis === 'budget' ? { lambdaMode: 'budget', budget: value }
        : { [spec.axis]: value };
      if (seed !== null) overrides.seed = seed;
      const name = spec.axis === 'lambdaTok' ? 'lambda_tok' : spec.axis === 'budget' ? 'B' : spec.axis;
      runs.push({ index: runs.length, axis: spec.axis, value, seed, label: `${name}=${value}${seed !== null ? ` seed ${seed}` : ''}`, overrides });
    }
  }
  return runs;
}
