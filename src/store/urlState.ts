// The shareable URL: `v` (the format version), `preset`, every config field
// that differs from the preset's value, in FIELDS order, and `population` (the
// values of lambda_tok, or of the budget B, that Start trains side by side)
// when the setup is a population. Opening such a URL restores the setup (not
// the weights). Every parameter is checked like any input: an unknown,
// malformed or out-of-range one is reported (naming it and why) and not
// applied; the others still are.
import { FIELDS, isConfigKey, parseField, validateConfig, type RunConfig } from '../config';
import { clip, InputError, quote } from '../contract/errors';
import { findPreset, presetConfig, PRESETS } from '../envs/presets';
import { taskCodeOf } from '../config';
import { decodeTask, encodeTask } from './taskLink';
import { defaultSweep, parseValues } from '../rl/sweep';

export const URL_VERSION = 1;
export const DEFAULT_PRESET = 'relay-silence';

/**
 * The setup of a first visit (no link, nothing remembered): a population over lambda_tok on the
 * noisy channel, where the token penalty trades accuracy for tokens along a curve, small enough that
 * its trails move apart within seconds on a laptop CPU.
 */
export const FIRST_VISIT = { preset: 'relay-noisy-quick', population: [0, 0.03, 0.1, 0.3] as number[], untilPaused: true };

/** A first visit: the link names nothing, and the page remembers nothing (no prefs saved, no runs, no sweep). */
export function isFirstVisit(search: string, savedPrefs: unknown, storedRuns: number, hasSweep: boolean): boolean {
  return [...new URLSearchParams(search.replace(/^\?/, '')).keys()].length === 0 && savedPrefs === null && storedRuns === 0 && !hasSweep;
}

/** The axis a population moves: the budget B in budget mode, else lambda_tok. */
export const populationAxis = (c: RunConfig): 'lambdaTok' | 'budget' => (defaultSweep(c).axis === 'budget' ? 'budget' : 'lambdaTok');

/** The most members a population may have in the page. */
export const MAX_POPULATION = 16;

/** A population's values as one parameter: "0,0.03,0.1". */
export const populationParam = (values: readonly number[]): string => values.join(',');

/** The values of a population for `config`'s axis (at least two), or an InputError naming what is wrong. */
export function parsePopulation(text: string, config: RunConfig): number[] {
  const axis = populationAxis(config);
  const values = parseValues(text, axis, axis === 'budget' ? 'population (budgets)' : 'population (lambda_tok values)');
  if (values.length < 2) throw new InputError(`population needs at least two values, got ${quote(text)}`);
  if (values.length > MAX_POPULATION) throw new InputError(`population: at most ${MAX_POPULATION} values (members), got ${values.length}`);
  return values;
}
/** Longest query read: a setup that changes every field is about 1,500 characters. */
export const MAX_QUERY_CHARS = 8192;
/** Problems listed one by one; the rest are counted. */
const MAX_PROBLEMS = 20;

export interface DecodedSetup {
  preset: string;
  /** Fields that override the preset (validated one by one and together). */
  overrides: Partial<RunConfig>;
  /** The values Start trains side by side (null: one run). */
  population: number[] | null;
  /** `until=paused`: Start trains until Pause, not to `steps`. */
  untilPaused: boolean;
  /** Off a preset's calibrated point, Start applies the setting's recipe (`recipe=off`: the setting as typed). */
  recipeAtStart: boolean;
  /** One line per parameter that was not applied, naming it and why. */
  problems: string[];
  /** `task=`: a task's code (docs/your-task.md) whose preset is not registered yet: the page shows it and asks before it runs. */
  taskCode?: string;
}

const keys = Object.keys(FIELDS) as (keyof RunConfig)[];
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Every name a link may hold, longest first (so a run-together "presetrelay" finds preset, not a shorter name). */
const NAMES = ['v', 'preset', 'population', 'until', ...keys].sort((a, b) => b.length - a.length);

/**
 * Why a parameter name is not one the page reads, with the likely intent: "presetrelay-noisy" (no
 * "=") is preset=relay-noisy, "gr oupSize" (a space inside) is groupSize. Each is reported, not applied.
 */
function unknownParameter(k: string, bare: boolean): string {
  if (bare) {
    const prefix = NAMES.find((n) => k.startsWith(n) && k.length > n.length);
    return `parameter ${quote(k)} has no "=" (a link's parameters are name=value)${prefix ? `; did you mean ${prefix}=${clip(k.slice(prefix.length), 40)}?` : ''}; not applied`;
  }
  if (/\s/.test(k)) {
    const joined = k.replace(/\s+/g, '');
    return `parameter ${quote(k)} has a space inside its name${NAMES.includes(joined) ? `; did you mean ${joined}?` : ''}; not applied`;
  }
  return `unknown parameter ${quote(k)} (not a config field)`;
}

/** The query string (without '?') for a preset and the config in force. */
export function encodeSetup(preset: string, config: RunConfig, population: readonly number[] | null = null, untilPaused = false, recipeAtStart = true): string {
  const base = presetConfig(findPreset(preset));
  const q = new URLSearchParams();
  q.set('v', String(URL_VERSION));
  q.set('preset', preset);
  for (const k of keys) if (config[k] !== base[k]) q.set(k, String(config[k]));
  if (population) q.set('population', populationParam(population));
  if (untilPaused) q.set('until', 'paused');
  if (!recipeAtStart) q.set('recipe', 'off');
  const code = taskCodeOf(config);
  if (code !== undefined) q.set('task', encodeTask(code)); // a task of your own travels with its code
  return q.toString();
}

/** Fields of `config` that differ from the preset's (what init() takes as overrides). */
export function overridesOf(preset: string, config: RunConfig): Partial<RunConfig> {
  const base = presetConfig(findPreset(preset));
  const out: Record<string, unknown> = {};
  for (const k of keys) if (config[k] !== base[k]) out[k] = config[k];
  const code = taskCodeOf(config);
  if (code !== undefined) out.taskCode = code; // every init of a task run carries its code (a worker registers it)
  return out as Partial<RunConfig>;
}

export function decodeSetup(search: string): DecodedSetup {
  const text = search.startsWith('?') ? search.slice(1) : search;
  if (text.length > MAX_QUERY_CHARS) {
    return { preset: DEFAULT_PRESET, overrides: {}, population: null, untilPaused: false, recipeAtStart: true, problems: [`the link's parameters are ${text.length} characters long, more than ${MAX_QUERY_CHARS}; none was read (a shared setup is at most a few hundred)`] };
  }
  const q = new URLSearchParams(text);
  const problems: string[] = [];
  // one pass: the first value of each name and how often it is given (getAll per name is quadratic)
  const first = new Map<string, string>();
  const count = new Map<string, number>();
  for (const [k, val] of q) {
    if (!first.has(k)) first.set(k, val);
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  // names written with no "=" (URLSearchParams reads "lr" as lr=""): said so, not "got an empty value"
  // (only a name's first appearance counts: it is the one read)
  const bare = new Set<string>(), heard = new Set<string>();
  for (const piece of text.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    for (const [k] of new URLSearchParams(eq < 0 ? piece : piece.slice(0, eq) + '=')) {
      if (!heard.has(k) && eq < 0) bare.add(k);
      heard.add(k);
    }
  }
  const seen = first.keys();
  for (const [k, n] of count) if (n > 1) problems.push(`${clip(k)} is given ${n} times; the first (${clip(first.get(k)!)}) is used`);
  const v = first.get('v');
  if (v !== undefined && v !== String(URL_VERSION)) problems.push(`v=${clip(v)}: this page reads version ${URL_VERSION} links; the rest was read as version ${URL_VERSION}`);

  let preset = DEFAULT_PRESET;
  const p = first.get('preset');
  const known = (name: string) => { try { findPreset(name); return true; } catch { return false; } };
  const task = first.get('task');
  if (task !== undefined) {
    // a task whose code is not registered yet: returned unrun; the page asks, registers it and reads the link again
    try {
      const code = decodeTask(task);
      const registered = p !== undefined && p.startsWith('task-') && known(p) && taskCodeOf(presetConfig(findPreset(p))) === code;
      if (!registered) return { preset: p ?? 'task', overrides: {}, population: null, untilPaused: false, recipeAtStart: true, problems: summarize(problems), taskCode: code };
    } catch (e) { problems.push(`${errorText(e)}; not applied`); }
  }
  if (p !== undefined) {
    if (known(p)) preset = p;
    else problems.push(`preset ${quote(p)} is not one of ${PRESETS.map((x) => x.name).join(', ')}; ${DEFAULT_PRESET} is used`);
  }
  const base = presetConfig(findPreset(preset));

  const overrides: Record<string, unknown> = {};
  for (const k of seen) {
    if (k === 'v' || k === 'preset' || k === 'population' || k === 'until' || k === 'recipe' || k === 'task') continue;
    if (!isConfigKey(k)) { problems.push(unknownParameter(k, bare.has(k))); continue; }
    if (bare.has(k)) { problems.push(`${k} has no "=" and no value (a link's parameters are name=value); not applied`); continue; }
    try {
      overrides[k] = parseField(k, first.get(k));
    } catch (e) {
      problems.push(`${errorText(e)}; not applied`);
    }
  }
  // the fields together (nEmbd divisible by nHead, scouts at most digits): a conflict drops the
  // override it names first, with one line; the rest still apply
  for (;;) {
    let why: string;
    try { validateConfig(overrides, base); break; } catch (e) { why = errorText(e); }
    const named = Object.keys(overrides).map((k) => ({ k, at: why.search(new RegExp(`\\b${k}\\b`)) })).filter((x) => x.at >= 0).sort((a, b) => a.at - b.at);
    if (named.length === 0) { // no override is to blame (cannot happen with a valid preset): none applies
      problems.push(`${why}; every parameter ignored`);
      return { preset, overrides: {}, population: null, untilPaused: false, recipeAtStart: true, problems: summarize(problems) };
    }
    delete overrides[named[0].k];
    problems.push(`${why}; ${named[0].k} not applied`);
  }
  // read against the config in force (its axis: lambda_tok, or B in budget mode); a bad one leaves one run
  let population: number[] | null = null;
  const pop = first.get('population');
  if (pop !== undefined) {
    try { population = parsePopulation(pop, presetConfig(findPreset(preset), overrides)); } catch (e) { problems.push(`${errorText(e)}; Start trains one run`); }
  }
  const until = first.get('until');
  if (until !== undefined && until !== 'paused') problems.push(`until=${clip(until)}: the one value read is until=paused; Start trains to steps`);
  const recipe = first.get('recipe');
  if (recipe !== undefined && recipe !== 'off') problems.push(`recipe=${clip(recipe)}: the one value read is recipe=off; off the calibrated point Start applies the recipe`);
  return { preset, overrides: overrides as Partial<RunConfig>, population, untilPaused: until === 'paused', recipeAtStart: recipe !== 'off', problems: summarize(problems) };
}

/** The first MAX_PROBLEMS lines, then how many more there were. */
function summarize(problems: string[]): string[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_PROBLEMS), `... and ${problems.length - MAX_PROBLEMS} more problems`];
}
