// A lesson's checks: a small vocabulary of data (docs/lessons.md "Checks"), checked like any input
// (`checkProblems`) and evaluated by one pure function over a plain view of the learner's run
// (`evaluateCheck`), which the page and the CLI both call. Every result carries a one-line
// "expected ... got ..." pair, which the page shows when a check fails.
import { clip, hasKey, quote } from '../contract/errors';
import { betterEval, betterReward, paretoFrontier } from '../rl/pareto';
import type { LessonEval, LessonMember, LessonRunView, LessonStepMetrics } from './runView';

export type Op = '>=' | '>' | '<=' | '<' | '==';
export const OPS: readonly Op[] = ['>=', '>', '<=', '<', '=='];

/** Which member(s) a check reads: every one must pass, at least one, the chosen one, or member i (0-based). */
export type MemberPick = 'each' | 'any' | 'chosen' | number;

/** Which eval (or step) a figure is read at: see docs/lessons.md. */
export type EvalAt = 'last' | 'first' | 'best' | 'any' | 'all' | 'change';
export type StepAt = 'last' | 'first' | 'any' | 'all' | 'mean' | 'change';

export interface MetricCheck { metric: string; op: Op; value: number; at?: EvalAt; within?: number; member?: MemberPick }
export interface StepMetricCheck { stepMetric: string; op: Op; value: number; at?: StepAt; within?: number; member?: MemberPick }
/** A comparison written as one string: ">=1", "< 0.5". */
export interface ZeroStdCheck { zeroStdGroups: string; at?: 'last' | 'first' | 'any'; member?: MemberPick }
export interface FrontierCheck { frontierPoints: string }
export type FlagName = 'rewardHack' | 'degenerate' | 'collapse' | 'diverged' | 'nonfiniteUpdate';
export const FLAG_NAMES: readonly FlagName[] = ['rewardHack', 'degenerate', 'collapse', 'diverged', 'nonfiniteUpdate'];
export interface FlagCheck { flag: FlagName; raised?: boolean; member?: MemberPick }
/** `rule` absent: the run's own best (the view's bestStep, what Restore best restores); given: the best of the evals by that rule. */
export interface BestCheck { bestIsNotLast: boolean; rule?: 'accuracy' | 'reward'; member?: MemberPick }
export type Arm = 'alone' | 'untrained' | 'trained';
export const ARMS: readonly Arm[] = ['alone', 'untrained', 'trained'];
export interface CompareCheck { compare: Arm; op: Op; to: Arm; member?: MemberPick }

export type Check = MetricCheck | StepMetricCheck | ZeroStdCheck | FrontierCheck | FlagCheck | BestCheck | CompareCheck;

/** The kind of a check is the one key that names it. */
export const CHECK_KINDS = ['metric', 'stepMetric', 'zeroStdGroups', 'frontierPoints', 'flag', 'bestIsNotLast', 'compare'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** The fields each kind may hold besides its own key. */
const FIELDS_OF: Record<CheckKind, readonly string[]> = {
  metric: ['op', 'value', 'at', 'within', 'member'],
  stepMetric: ['op', 'value', 'at', 'within', 'member'],
  zeroStdGroups: ['at', 'member'],
  frontierPoints: [],
  flag: ['raised', 'member'],
  bestIsNotLast: ['rule', 'member'],
  compare: ['op', 'to', 'member'],
};
const EVAL_AT: readonly EvalAt[] = ['last', 'first', 'best', 'any', 'all', 'change'];
const STEP_AT: readonly StepAt[] = ['last', 'first', 'any', 'all', 'mean', 'change'];
const ZERO_AT = ['last', 'first', 'any'] as const;

export interface CheckResult { pass: boolean; expected: string; got: string }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** ">= 3" -> { op, value }, or null when it is not one. */
export function parseComparison(text: unknown): { op: Op; value: number } | null {
  if (typeof text !== 'string') return null;
  const m = /^\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/i.exec(text);
  if (!m) return null;
  const value = Number(m[2]);
  return Number.isFinite(value) ? { op: m[1] as Op, value } : null;
}

/** The kind of a check object (the first of its keys that names one), or null. */
export function checkKind(check: unknown): CheckKind | null {
  if (!isObj(check)) return null;
  return CHECK_KINDS.find((k) => hasKey(check, k)) ?? null;
}

/** Every problem of a check as data, one line each, prefixed by `where` ("step 2 check"); [] when it is sound. */
export function checkProblems(check: unknown, where = 'check'): string[] {
  if (!isObj(check)) return [`${where}: must be an object such as {"metric": "accuracy", "op": ">=", "value": 0.9}`];
  const kinds = CHECK_KINDS.filter((k) => hasKey(check, k));
  if (kinds.length === 0) return [`${where}: unknown check (keys ${Object.keys(check).slice(0, 6).map((k) => quote(k, 30)).join(', ') || 'none'}); a check has one of ${CHECK_KINDS.join(', ')}`];
  if (kinds.length > 1) return [`${where}: one check per step, but it names ${kinds.join(' and ')}`];
  const kind = kinds[0], out: string[] = [];
  const say = (s: string) => out.push(`${where} (${kind}): ${s}`);
  for (const k of Object.keys(check)) if (k !== kind && !FIELDS_OF[kind].includes(k)) say(`unknown field ${quote(k, 30)} (it takes ${FIELDS_OF[kind].join(', ') || 'no other field'})`);
  const opOk = (v: unknown) => { if (!OPS.includes(v as Op)) say(`op must be one of ${OPS.join(' ')}, got ${quote(v, 20)}`); };
  const member = check.member;
  if (member !== undefined && !(member === 'each' || member === 'any' || member === 'chosen' || (Number.isInteger(member) && (member as number) >= 0 && (member as number) < 64))) {
    say(`member must be "each", "any", "chosen" or a member index 0..63, got ${quote(member, 20)}`);
  }
  const within = check.within;
  if (within !== undefined && !(Number.isInteger(within) && (within as number) >= 0)) say(`within must be a step number (an integer >= 0), got ${quote(within, 20)}`);
  switch (kind) {
    case 'metric': case 'stepMetric': {
      const name = check[kind];
      if (typeof name !== 'string' || !NAME.test(name)) say(`the figure's name must be a word such as accuracy or silenceKnown, got ${quote(name, 40)}`);
      opOk(check.op);
      if (!isNum(check.value)) say(`value must be a finite number, got ${quote(check.value, 20)}`);
      const ats: readonly string[] = kind === 'metric' ? EVAL_AT : STEP_AT;
      if (check.at !== undefined && !ats.includes(check.at as string)) say(`at must be one of ${ats.join(', ')}, got ${quote(check.at, 20)}`);
      break;
    }
    case 'zeroStdGroups': case 'frontierPoints':
      if (!parseComparison(check[kind])) say(`must be a comparison such as ">=1" (an op of ${OPS.join(' ')} and a number), got ${quote(check[kind], 30)}`);
      if (kind === 'zeroStdGroups' && check.at !== undefined && !(ZERO_AT as readonly unknown[]).includes(check.at)) say(`at must be one of ${ZERO_AT.join(', ')}, got ${quote(check.at, 20)}`);
      break;
    case 'flag':
      if (!FLAG_NAMES.includes(check.flag as FlagName)) say(`unknown flag ${quote(check.flag, 30)} (flags: ${FLAG_NAMES.join(', ')})`);
      if (check.raised !== undefined && typeof check.raised !== 'boolean') say(`raised must be true or false, got ${quote(check.raised, 20)}`);
      break;
    case 'bestIsNotLast':
      if (typeof check.bestIsNotLast !== 'boolean') say(`must be true or false, got ${quote(check.bestIsNotLast, 20)}`);
      if (check.rule !== undefined && check.rule !== 'accuracy' && check.rule !== 'reward') say(`rule must be "accuracy" or "reward", got ${quote(check.rule, 20)}`);
      break;
    case 'compare':
      if (!ARMS.includes(check.compare as Arm)) say(`compare must be one of ${ARMS.join(', ')}, got ${quote(check.compare, 20)}`);
      if (!ARMS.includes(check.to as Arm)) say(`to must be one of ${ARMS.join(', ')}, got ${quote(check.to, 20)}`);
      opOk(check.op);
      break;
  }
  return out;
}

/** The check with its step numbers (`within`) scaled by f, as a run of f x the steps would need (the CLI's --steps-scale). */
export function scaleCheck(check: Check, f: number): Check {
  if (!('within' in check) || check.within === undefined || f === 1) return check;
  return { ...check, within: Math.max(1, Math.round(check.within * f)) };
}

// ---- evaluation ----

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : Math.abs(x) >= 100 ? x.toFixed(1) : Number(x.toPrecision(3)).toString());
export function compare(a: number, op: Op, b: number): boolean {
  switch (op) {
    case '>=': return a >= b;
    case '>': return a > b;
    case '<=': return a <= b;
    case '<': return a < b;
    case '==': return a === b;
  }
}

/** One member's reading: a number (or null with why), and where it was read ("step 40"). */
interface Reading { value: number | null; where: string }

function membersOf(run: LessonRunView, pick: MemberPick | undefined): { members: { m: LessonMember; i: number }[]; mode: 'each' | 'any' } | string {
  const all = run.members.map((m, i) => ({ m, i }));
  if (all.length === 0) return 'no run yet (no member)';
  if (pick === undefined || pick === 'each') return { members: all, mode: 'each' };
  if (pick === 'any') return { members: all, mode: 'any' };
  const i = pick === 'chosen' ? run.chosen : pick;
  if (!Number.isInteger(i) || i < 0 || i >= all.length) return `no member ${i} (the run has ${all.length})`;
  return { members: [all[i]], mode: 'each' };
}

const memberText = (pick: MemberPick | undefined, K: number): string =>
  K <= 1 ? '' : pick === undefined || pick === 'each' ? ' for every member' : pick === 'any' ? ' for some member' : pick === 'chosen' ? ' for the chosen member' : ` for member ${pick}`;

/**
 * Reads each member, compares, and words the result: `expected` states the rule, `got` what each member
 * gave (a population's failing members first, at most four named).
 */
function judge(run: LessonRunView, pick: MemberPick | undefined, expected: string, read: (m: LessonMember) => Reading, ok: (v: number) => boolean, yesNo = false): CheckResult {
  const ms = membersOf(run, pick);
  if (typeof ms === 'string') return { pass: false, expected: expected + memberText(pick, run.members.length), got: ms };
  const rs = ms.members.map(({ m, i }) => ({ m, i, r: read(m) }));
  const passes = rs.map(({ r }) => r.value !== null && ok(r.value));
  const pass = ms.mode === 'any' ? passes.some(Boolean) : passes.every(Boolean);
  const text = ({ m, r }: { m: LessonMember; r: Reading }) => `${rs.length > 1 ? `${m.label}: ` : ''}${r.value === null || yesNo ? r.where : `${fmt(r.value)} (${r.where})`}`;
  const shown = ms.mode === 'any' || pass ? rs : rs.filter((_, k) => !passes[k]);
  const got = shown.slice(0, 4).map(text).join('; ') + (shown.length > 4 ? `; and ${shown.length - 4} more` : '');
  return { pass, expected: expected + memberText(pick, run.members.length), got };
}

const cut = <T extends { step: number }>(xs: readonly T[], within: number | undefined) => (within === undefined ? xs : xs.filter((x) => x.step <= within));
const fig = (x: LessonEval | LessonStepMetrics, name: string): number | null => (hasKey(x, name) && isNum(x[name]) ? x[name] : null);

function readSeries<T extends { step: number }>(rows: readonly T[], name: string, at: string, within: number | undefined, op: Op, value: number, m: LessonMember, what: string): Reading {
  const xs = cut(rows, within);
  if (rows.length === 0) return { value: null, where: `no ${what} yet` };
  if (xs.length === 0) return { value: null, where: `no ${what} by step ${within}` };
  const val = (x: T) => fig(x as unknown as LessonEval, name);
  if (xs.every((x) => val(x) === null)) return { value: null, where: `the run has no figure ${quote(name, 40)}` };
  const first = xs[0], last = xs[xs.length - 1];
  switch (at) {
    case 'first': return { value: val(first), where: `step ${first.step}` };
    case 'best': {
      const b = xs.find((x) => x.step === m.bestStep);
      return b ? { value: val(b), where: `best, step ${b.step}` } : { value: null, where: m.bestStep === null ? 'no best eval yet' : `the best eval (step ${m.bestStep}) is past step ${within}` };
    }
    case 'change': {
      const a = val(first), b = val(last);
      return a === null || b === null ? { value: null, where: `no ${name} at steps ${first.step} and ${last.step}` } : { value: b - a, where: `step ${first.step} to ${last.step}: ${fmt(a)} to ${fmt(b)}` };
    }
    case 'mean': {
      const vs = xs.map(val).filter((v): v is number => v !== null);
      return { value: vs.reduce((s, v) => s + v, 0) / vs.length, where: `mean of ${vs.length} steps` };
    }
    case 'any': case 'all': {
      // the deciding one: for any, the first that passes, else the one nearest passing; for all, the first that fails
      const vs = xs.map((x) => ({ x, v: val(x) })).filter((p): p is { x: T; v: number } => p.v !== null);
      const hit = at === 'any' ? vs.find((p) => compare(p.v, op, value)) : vs.find((p) => !compare(p.v, op, value));
      if (hit) return { value: hit.v, where: `step ${hit.x.step}` };
      const up = op === '>=' || op === '>';
      const near = at === 'any' ? vs.reduce((a, p) => ((op === '==' ? Math.abs(p.v - value) < Math.abs(a.v - value) : up ? p.v > a.v : p.v < a.v) ? p : a)) : vs[vs.length - 1];
      return { value: near.v, where: at === 'any' ? `${up ? 'highest' : op === '==' ? 'nearest' : 'lowest'} of ${vs.length}, step ${near.x.step}` : `all ${vs.length}, through step ${near.x.step}` };
    }
    default: return { value: val(last), where: `step ${last.step}` };
  }
}

const atText = (at: string, within: number | undefined, what: string): string => {
  const by = within === undefined ? '' : ` by step ${within}`;
  switch (at) {
    case 'first': return ` at the first ${what}${by}`;
    case 'best': return ` at the best eval${by}`;
    case 'any': return ` at some ${what}${by}`;
    case 'all': return ` at every ${what}${by}`;
    case 'mean': return ` on average over the steps${by}`;
    default: return ` at the last ${what}${by}`;
  }
};

/** The step's groups whose rewards were all equal (no learning signal): frac_zero_std x P, rounded. */
export function zeroStdCount(row: LessonStepMetrics, groupsPerStep: number): number | null {
  const f = fig(row, 'frac_zero_std');
  return f === null ? null : Math.round(f * groupsPerStep);
}

/** The step of the best of `evals` by highest accuracy (ties: fewer tokens) or highest mean reward (ties: fewer tokens, then the later step): src/rl/pareto.ts's orders, as the page's best rule uses them. */
export function bestStepBy(rule: 'accuracy' | 'reward', evals: readonly LessonEval[]): number | null {
  let best: LessonEval | null = null;
  for (const e of evals) {
    if (!Number.isFinite(e.accuracy) || !Number.isFinite(e.tokens)) continue;
    if (rule === 'accuracy' ? betterEval(e, best) : betterReward(e, best)) best = e;
  }
  return best ? best.step : null;
}

/** Reward hack: a degenerate or collapse flag, and the last eval's reward above that of the most accurate eval while its accuracy is below it. */
export function rewardHacked(m: LessonMember): { hacked: boolean; why: string } {
  const flagged = m.flags.find((f) => f.kind === 'degenerate' || f.kind === 'collapse');
  if (m.evals.length < 2) return { hacked: false, why: 'fewer than two evals' };
  const top = m.evals.reduce((a, e) => (e.accuracy > a.accuracy ? e : a));
  const last = m.evals[m.evals.length - 1];
  const rose = last.reward > top.reward && last.accuracy < top.accuracy;
  const trend = `accuracy ${fmt(top.accuracy)} at step ${top.step} to ${fmt(last.accuracy)} at step ${last.step}, reward ${fmt(top.reward)} to ${fmt(last.reward)}`;
  if (!flagged) return { hacked: false, why: `no degenerate or collapse flag (${trend})` };
  return { hacked: rose, why: rose ? `${flagged.kind} flag at step ${flagged.step}; ${trend}` : `${flagged.kind} flag, but the reward did not rise while accuracy fell (${trend})` };
}

const FLAG_KIND: Record<Exclude<FlagName, 'rewardHack'>, string> = { degenerate: 'degenerate', collapse: 'collapse', diverged: 'diverged', nonfiniteUpdate: 'nonfinite-update' };

/** A check on a run: whether it passes, what was expected and what the run gave, one line each. Pure. */
export function evaluateCheck(check: Check, run: LessonRunView): CheckResult {
  const kind = checkKind(check);
  const bad = checkProblems(check);
  if (!kind || bad.length > 0) return { pass: false, expected: 'a sound check', got: bad[0] ?? 'no check' };
  switch (kind) {
    case 'metric': case 'stepMetric': {
      const c = check as MetricCheck & StepMetricCheck;
      const name = kind === 'metric' ? c.metric : c.stepMetric, at = c.at ?? 'last', what = kind === 'metric' ? 'eval' : 'step';
      const subject = at === 'change' ? `the change in ${name}` : name;
      const span = at === 'change' ? ` from the first ${what} to the last${c.within === undefined ? '' : ` by step ${c.within}`}` : atText(at, c.within, what);
      return judge(run, c.member, `${subject} ${c.op} ${fmt(c.value)}${span}`,
        (m) => readSeries(kind === 'metric' ? m.evals : m.metrics, name, at, c.within, c.op, c.value, m, what === 'eval' ? 'evals' : 'steps'),
        (v) => compare(v, c.op, c.value));
    }
    case 'zeroStdGroups': {
      const c = check as ZeroStdCheck, cmp = parseComparison(c.zeroStdGroups)!, at = c.at ?? 'last';
      const rows = (m: LessonMember) => m.metrics.map((r) => ({ step: r.step, zero: zeroStdCount(r, run.groupsPerStep) ?? NaN }));
      return judge(run, c.member, `groups whose rewards are all equal ${cmp.op} ${fmt(cmp.value)} (of ${run.groupsPerStep})${atText(at, undefined, 'step')}`,
        (m) => readSeries(rows(m).filter((x) => Number.isFinite(x.zero)), 'zero', at, undefined, cmp.op, cmp.value, m, 'step with frac_zero_std'),
        (v) => compare(v, cmp.op, cmp.value));
    }
    case 'frontierPoints': {
      const cmp = parseComparison((check as FrontierCheck).frontierPoints)!;
      const expected = `members on the accuracy-vs-tokens frontier of their last evals ${cmp.op} ${fmt(cmp.value)}`;
      const pts = run.members.map((m) => m.evals[m.evals.length - 1]).filter((e): e is LessonEval => e !== undefined);
      if (pts.length === 0) return { pass: false, expected, got: 'no evals yet' };
      const front = paretoFrontier(pts.map((e) => ({ tokens: e.tokens, accuracy: e.accuracy })));
      const distinct = new Set(front.map((p) => `${p.tokens}|${p.accuracy}`)).size;
      const got = `${distinct} of ${pts.length} (${front.map((p) => `${fmt(p.tokens)} tokens at ${fmt(p.accuracy)}`).filter((s, i, a) => a.indexOf(s) === i).slice(0, 6).join(', ')})`;
      return { pass: compare(distinct, cmp.op, cmp.value), expected, got };
    }
    case 'flag': {
      const c = check as FlagCheck, raised = c.raised ?? true;
      const expected = `${raised ? 'a' : 'no'} ${c.flag === 'rewardHack' ? 'reward hack (a degenerate or collapse flag, with the reward up while accuracy fell)' : `${c.flag} flag`}`;
      return judge(run, c.member, expected, (m) => {
        if (c.flag === 'rewardHack') { const h = rewardHacked(m); return { value: h.hacked ? 1 : 0, where: h.why }; }
        const f = m.flags.find((x) => x.kind === FLAG_KIND[c.flag as Exclude<FlagName, 'rewardHack'>]);
        return { value: f ? 1 : 0, where: f ? `raised at step ${f.step}: ${clip(f.message, 120)}` : `none in ${m.flags.length} flag${m.flags.length === 1 ? '' : 's'}` };
      }, (v) => (v === 1) === raised, true);
    }
    case 'bestIsNotLast': {
      const c = check as BestCheck;
      const by = c.rule === undefined ? '' : ` by ${c.rule === 'accuracy' ? 'highest accuracy' : 'highest mean reward'}`;
      return judge(run, c.member, c.bestIsNotLast ? `the best eval${by} earlier than the last eval` : `the best eval${by} at the last eval`, (m) => {
        const last = m.evals[m.evals.length - 1];
        if (!last) return { value: null, where: 'no evals yet' };
        const best = c.rule === undefined ? m.bestStep : bestStepBy(c.rule, m.evals);
        if (best === null) return { value: null, where: 'no best eval yet' };
        return { value: best < last.step ? 1 : 0, where: `best at step ${best}, last at step ${last.step}` };
      }, (v) => (v === 1) === c.bestIsNotLast, true);
    }
    case 'compare': {
      const c = check as CompareCheck;
      const expected = `accuracy with the ${c.compare === 'alone' ? 'actor alone' : `${c.compare} collaborator`} ${c.op} with the ${c.to === 'alone' ? 'actor alone' : `${c.to} collaborator`}`;
      return judge(run, c.member, expected, (m) => {
        const cmp = m.comparison;
        if (!cmp) return { value: null, where: 'no comparison of players (an AgentPO preset makes one when its run finishes)' };
        const a = cmp[c.compare], b = cmp[c.to];
        return { value: compare(a.accuracy, c.op, b.accuracy) ? 1 : 0, where: `${c.compare} ${fmt(a.accuracy)} [${fmt(a.lo)}, ${fmt(a.hi)}] vs ${c.to} ${fmt(b.accuracy)} [${fmt(b.lo)}, ${fmt(b.hi)}], n ${a.n}` };
      }, (v) => v === 1, true);
    }
  }
}

/** "expected X, got Y": the line the page shows when a check fails. */
export const resultLine = (r: CheckResult): string => `expected ${r.expected}, got ${r.got}`;
