// A recipe that follows the setting: the presets are calibrated at one point (relay-noisy-dr at
// eps 0.3, lambda_tok 0.1), and a person who moves a slider off it
// gets the steps, temperature and token-penalty schedule that setting needs, chosen by a rule
// with its reasons (docs/recipe.md). The preset's own point is a fixed point: its recipe changes
// nothing. The page shows it and applies it on a click; the CLI applies it with --recipe, and
// `robustness` runs every cell with it.
import type { RunConfig } from '../config';
import type { Preset } from '../envs/presets';

export interface RecipeLine { field: keyof RunConfig; value: number; why: string }
export interface Recipe {
  /** The fields the recipe sets, each with why; empty when the setting is the preset's calibrated point. */
  lines: RecipeLine[];
  /** The steps the setting needs (the preset's when no line changes them). */
  steps: number;
}

/** Sampling temperature where the hedge against the Scout's own errors would keep copies: low enough that a sampled copy is rarely one. */
export const SMALL_PENALTY_TEMPERATURE = 0.7;
/** How far inside its interval the start penalty sits (a penalty at the edge ties two optima). */
const INSIDE = 0.1;
/**
 * The weakest start penalty at which silence on known tasks was learned (measured on a warm start with demos of 1..8
 * copies, docs/recipe.md "The length half": starts of 0.007 and 0.014 left it at 0 while 0.018 and up learned it).
 * Fitted, not derived: silence pays
 * lambda_tok per token of the known task's message, against what silence costs on unknown tasks.
 */
export const SILENCE_FLOOR = 0.02;
/**
 * The start penalty's margin over copy n*+1 (start - its value) under which a step takes twice the prompts. Fitted
 * (docs/recipe.md, "Twice the prompts where the margin is thin"): the cells with margins 0.0099 and 0.0119 kept
 * copies past n* at every seed with the preset's 16 prompts a step, those of 0.0124 and up reached n*.
 */
export const THIN_MARGIN = 0.012;
/**
 * The setting's own margin over copy n*+1 (lambda_tok - its value) under which the settle phase is short and, where the
 * start's margin is thin as well, the start comes from below. Fitted (docs/recipe.md, "Where the setting sits at the
 * bottom of its interval"): the two grid cells at 0.0019 drifted past n* or fell in accuracy in an 80-step settle; the
 * next cells up (0.0030 and more) held.
 */
export const SETTLE_MARGIN = 0.0025;

/** The marginal accuracy of the n-th copy on a task the Solver does not know: 0.9 eps^(n-1) (1 - eps) (n = 1..maxCopies, else 0). */
export function copyValue(eps: number, n: number, maxCopies: number): number {
  return n >= 1 && n <= maxCopies ? 0.9 * eps ** (n - 1) * (1 - eps) : 0;
}

/**
 * The penalties with the same optimum as lambda_tok: copies pay while their marginal accuracy exceeds the
 * penalty, so n* copies are optimal for every lambda in (value of copy n*+1, value of copy n*]
 * (hi is Infinity when n* = 0: silence is optimal for every larger penalty).
 */
export function sameOptimum(eps: number, lambdaTok: number, maxCopies: number): { copies: number; lo: number; hi: number } {
  let n = 0;
  while (n < maxCopies && copyValue(eps, n + 1, maxCopies) > lambdaTok) n++;
  return { copies: n, lo: copyValue(eps, n + 1, maxCopies), hi: n === 0 ? Infinity : copyValue(eps, n, maxCopies) };
}

/**
 * The start penalty for a setting whose optimum is `copies`: the geometric middle of the same-optimum interval, so
 * that copy n* is worth clearly more than the penalty and copy n*+1 clearly less (at the interval's top, copy n*
 * is nearly worth nothing and a noisy run drops it: accuracy one copy short), raised to SILENCE_FLOOR where the
 * interval allows. For silence or one copy, and where every copy pays, the penalty nearest the calibrated one,
 * INSIDE from the interval's edge.
 */
export function startPenalty(copies: number, lo: number, hi: number, maxCopies: number, lambdaRef: number): { value: number; middle: number | null } {
  // one copy: the neighbour below is silence, which known tasks reward and unknown ones then drift to (eps 0.5 at
  // lambda 0.3 fell silent as shipped), so the start stays low in the interval: the rule before, nearest the calibrated
  if (copies <= 1 || copies === maxCopies || lo <= 0) return { value: round3(Math.min(hi * (1 - INSIDE), Math.max(lo * (1 + INSIDE), lambdaRef))), middle: null };
  // below SILENCE_FLOOR the silence half is not learned: raised toward it, never closer to the top than INSIDE
  const middle = Math.sqrt(lo * hi);
  return { value: round3(Math.max(middle, Math.min(hi * (1 - INSIDE), SILENCE_FLOOR))), middle: round3(middle) };
}

/** The noisy relay with advantage r - mean: start in the middle of the penalties with the same optimum, then settle. */
function noisyRecipe(calibrated: RunConfig, c: RunConfig): RecipeLine[] {
  const lines: RecipeLine[] = [];
  const lambdaRef = calibrated.lambdaTok, base = calibrated.steps;
  const { copies, lo, hi } = sameOptimum(c.channelNoise, c.lambdaTok, c.maxMessage);
  const same = startPenalty(copies, lo, hi, c.maxMessage, lambdaRef);
  // at the bottom of its interval the setting barely charges copy n*+1 more than it adds, so training at it holds n* only
  // briefly; where the start's margin is thin too, the start comes from below (n*-1's interval), where the setting's
  // pull toward copy n* (hi - lambda_tok) is strong
  const thinSettle = copies >= 1 && lo > 0 && c.lambdaTok - lo < SETTLE_MARGIN;
  const fromBelow = thinSettle && copies >= 2 && same.value - lo < THIN_MARGIN;
  const below = fromBelow ? sameOptimum(c.channelNoise, hi, c.maxMessage) : null;
  const { value: start, middle } = below ? startPenalty(below.copies, below.lo, below.hi, c.maxMessage, lambdaRef) : same;
  const settle = thinSettle ? Math.ceil(base / 2) : base;
  // a start weaker than the calibrated penalty needs more steps even where it is the setting itself
  if (Math.abs(start - c.lambdaTok) > 0.05 * c.lambdaTok || (start > 0 && start < lambdaRef * 0.95)) {
    const range = `${lo.toFixed(3)}-${Number.isFinite(hi) ? hi.toFixed(3) : 'inf'}`;
    // a weaker signal than the calibrated one needs more episodes to average the group's reward noise: the
    // measured need grows about as the square root of the signal's shortfall (docs/recipe.md)
    const signalHold = Math.ceil((base * Math.sqrt(Math.max(1, lambdaRef / start))) / 10) * 10;
    const hold = signalHold + base - settle; // a short settle's other half is held at the start: the same steps in all
    const sameText = `every penalty in ${range} has the same optimum (${copies} copies at eps ${c.channelNoise})`;
    const why = below
      ? `${sameText}, but ${c.lambdaTok} sits at its bottom (copy ${copies + 1} adds ${lo.toFixed(4)}) and its middle ${same.value} is only ${(same.value - lo).toFixed(4)} above that, too weak a pull down from the warm start's longer messages; ${start} is the middle of ${below.lo.toFixed(3)}-${below.hi.toFixed(3)} (${below.copies} copies), so the run comes to ${copies} copies from below, where copy ${copies} adds ${hi.toFixed(4)} against ${c.lambdaTok}`
      : middle === null
        ? `${sameText}; ${start} is the one nearest the calibrated ${lambdaRef}, so each episode carries the strongest signal that still leads there`
        : `${sameText}; ${start === middle ? `${start} is its middle` : `its middle ${middle} is raised to ${start} (silence on known tasks needs about ${SILENCE_FLOOR} a token)`}, where copy ${copies} is worth clearly more than it costs and copy ${copies + 1} clearly less`;
    const settleWhy = thinSettle ? `, half the calibrated ${base}: at ${c.lambdaTok} copy ${copies + 1} costs only ${(c.lambdaTok - lo).toFixed(4)} more than it adds, less than ${SETTLE_MARGIN}, and a longer settle drifts past ${copies} copies or loses accuracy` : '';
    const heldMore = hold > signalHold ? `, and the settle's other ${hold - signalHold}` : '';
    lines.push({ field: 'lambdaStart', value: start, why: `start at lambda_tok ${start}: ${why}` });
    lines.push({ field: 'lambdaHold', value: hold, why: `hold it ${hold} steps (the calibrated ${base}${signalHold > base ? `, times sqrt(${lambdaRef} / ${start}) for the weaker signal` : ''}${heldMore}), then settle at ${c.lambdaTok}` });
    lines.push({ field: 'steps', value: hold + settle, why: `${hold} steps at the start penalty and ${settle} more at ${c.lambdaTok}${settleWhy}` });
    // each episode's signal against copy n*+1 is the margin; the task reward's noise is not smaller for it, so where the
    // margin is thin a step averages twice the episodes (same groups: the group size stays the person's)
    if (!below && copies >= 1 && lo > 0 && start - lo < THIN_MARGIN) {
      const prompts = 2 * calibrated.promptsPerStep;
      lines.push({
        field: 'promptsPerStep', value: prompts,
        why: `${prompts} prompts a step (the calibrated ${calibrated.promptsPerStep}, twice): at the start penalty copy ${copies + 1} costs only ${(start - lo).toFixed(4)} more than it adds, less than ${THIN_MARGIN}, against a task reward that varies by 0.05-0.2 an episode, so each step averages twice the episodes; each step takes about twice as long`,
      });
    }
  }
  // the first copy outside the lesson's tolerance (n* + 2): at temperature 1 about 5% of sampled messages are wrong, and
  // a copy also hedges those; where that copy is still worth a third of its price, the hedge tips it (measured: docs/recipe.md)
  const outside = copyValue(c.channelNoise, copies + 2, c.maxMessage);
  if (c.lambdaTok < lambdaRef && outside >= c.lambdaTok / 3 && c.temperature > SMALL_PENALTY_TEMPERATURE) {
    lines.push({
      field: 'temperature', value: SMALL_PENALTY_TEMPERATURE,
      why: `copy ${copies + 2} still adds ${outside.toFixed(4)} of accuracy, a third of its price or more; at temperature 1 an extra copy also hedges the Scout's own sampling errors (about 5% of messages), which tips it, so sampling would keep copies the greedy policy does not need`,
    });
  }
  return lines;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * The recipe of `config` under `preset` (the preset's own config is the calibrated point). Settings the rule
 * does not cover (other presets, a mode the rule was not made for) get no lines.
 */
export function recipeFor(preset: Preset, calibrated: RunConfig, config: RunConfig): Recipe {
  let lines: RecipeLine[] = [];
  if (preset.name === 'relay-noisy-dr' && config.lambdaMode === 'manual' && config.advantage === 'none' && config.channelNoise > 0) {
    lines = noisyRecipe(calibrated, config);
  }
  // relay-silence past 3 digits needs no line: its shipped 4- and 5-digit warm starts carry it (docs/recipe.md, "Rule 2, withdrawn")
  const steps = lines.find((l) => l.field === 'steps')?.value ?? config.steps;
  return { lines, steps };
}

/** The config with the recipe's fields set. */
export function withRecipe(config: RunConfig, recipe: Recipe): RunConfig {
  return { ...config, ...Object.fromEntries(recipe.lines.map((l) => [l.field, l.value])) };
}

/** The fields a preset's rule may set (reset to the calibrated point's before a member's own recipe applies). */
export function recipeFields(preset: Preset): (keyof RunConfig)[] {
  return preset.name === 'relay-noisy-dr' ? ['lambdaStart', 'lambdaHold', 'steps', 'temperature', 'promptsPerStep'] : [];
}

/** The config carries its setting's recipe: the rule has lines for it, and every one is applied. */
export function recipeInUse(preset: Preset, calibrated: RunConfig, config: RunConfig): boolean {
  const lines = recipeFor(preset, calibrated, config).lines;
  return lines.length > 0 && lines.every((l) => config[l.field] === l.value);
}

/**
 * The recipe fields a person set by hand in `config`: those off the calibrated point's value, less the ones the
 * config's own recipe set (a setup that carries its recipe typed none of them). They are kept, as the CLI keeps
 * a field given with --set.
 */
export function typedRecipeFields(preset: Preset, calibrated: RunConfig, config: RunConfig): (keyof RunConfig)[] {
  // the recipe's lines are read at the calibrated point's rule fields (an applied line can switch another off: temperature 0.7)
  const reset: RunConfig = { ...config, ...Object.fromEntries(recipeFields(preset).map((f) => [f, calibrated[f]])) };
  const lines = recipeFor(preset, calibrated, reset).lines;
  const own = lines.length > 0 && lines.every((l) => config[l.field] === l.value) ? new Set(lines.map((l) => l.field)) : new Set<keyof RunConfig>();
  return recipeFields(preset).filter((f) => config[f] !== calibrated[f] && !own.has(f));
}

/**
 * A population member's config with its own setting's recipe, when the population's shared setup carries the
 * recipe of another setting (the one on screen) or the recipe applies by default: the rule's fields go back to
 * the calibrated point's, then the member's recipe applies, so each lambda_tok gets its own start penalty, hold,
 * steps and temperature. Fields in `keep` (typed by hand) stay as the member has them.
 */
export function memberRecipe(preset: Preset, calibrated: RunConfig, member: RunConfig, keep: readonly (keyof RunConfig)[] = []): RunConfig {
  const reset: RunConfig = { ...member, ...Object.fromEntries(recipeFields(preset).filter((f) => !keep.includes(f)).map((f) => [f, calibrated[f]])) };
  const lines = recipeFor(preset, calibrated, reset).lines.filter((l) => !keep.includes(l.field));
  return { ...reset, ...Object.fromEntries(lines.map((l) => [l.field, l.value])) };
}

/** The recipe lines Start applies to an untrained run of `config` by default: none at the calibrated point, when it carries its recipe, or for fields typed by hand. */
export function recipeAtStart(preset: Preset, calibrated: RunConfig, config: RunConfig): RecipeLine[] {
  if (recipeInUse(preset, calibrated, config)) return [];
  const typed = typedRecipeFields(preset, calibrated, config);
  return recipeFor(preset, calibrated, config).lines.filter((l) => !typed.includes(l.field) && config[l.field] !== l.value);
}
