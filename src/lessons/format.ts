// A lesson as data (docs/lessons.md): a few steps, each a setting (a page link's query), the
// controls the page shows, what to do and predict, an action, a check on the learner's run and an
// explanation. `checkLesson` reads one from any JSON value, hostile or not, and names every problem
// (unknown field, unknown control, unknown action, unknown check, a setting that does not decode).
// The setting is decoded by a function the caller passes (the page's and the CLI's decodeSetup,
// src/store/urlState.ts), so this module imports nothing above it.
import { clip, hasKey, quote } from '../contract/errors';
import { checkProblems, type Check } from './checks';

/** The format's version, the value of a lesson's "lesson" field. */
export const LESSON_FORMAT = 'gspo-lesson/1';
/** The longest lesson file read, in characters. */
export const LESSON_MAX_CHARS = 64 * 1024;
export const MAX_STEPS = 12;
const TEXT_MAX = 2000;

/**
 * The names of the page's controls a step may show; the rest are hidden while the step is open.
 * What each is, in the page: docs/lessons.md "Controls".
 */
export const CONTROLS = [
  'start', 'pause', 'step', 'reset', 'warmStart', 'speed',
  'presetPicker', 'lambdaTok', 'rewardWeights', 'budget', 'algorithm', 'model', 'evaluation', 'environment',
  'memberChips', 'sweep', 'chart', 'series', 'evalTable', 'runs',
  'bestRule', 'restoreBest', 'anatomy', 'transcripts', 'taskCard',
] as const;
export type ControlName = (typeof CONTROLS)[number];

/**
 * What the learner does in a step. Training actions (start, step, moveLambda) begin a run from the
 * step's setting; the others act on the previous step's run and carry no setting.
 */
export const ACTIONS = ['start', 'step', 'moveLambda', 'chooseMember', 'restoreBest', 'openAnatomy', 'openTranscripts'] as const;
export type ActionName = (typeof ACTIONS)[number];
export const TRAINING_ACTIONS: readonly ActionName[] = ['start', 'step', 'moveLambda'];

export type Action =
  | { do: 'start' }
  | { do: 'step'; times?: number }
  | { do: 'moveLambda'; to: number }
  | { do: 'chooseMember'; member: number }
  | { do: 'restoreBest' } | { do: 'openAnatomy' } | { do: 'openTranscripts' };

export interface LessonStep {
  title: string;
  /** A page link's query ("?v=1&preset=relay-silence&steps=60"); absent on a step that acts on the previous step's run. */
  setting?: string;
  controls: ControlName[];
  /** What to do, one or two sentences. */
  do: string;
  /** What to predict before doing it. */
  predict?: string;
  action: Action;
  check: Check;
  /** Shown when the check passes, or when the learner asks. */
  explain: string;
}

export interface Lesson {
  lesson: typeof LESSON_FORMAT;
  name: string;
  title: string;
  about: string;
  /** About how long it takes on a laptop CPU, in minutes (shown, not enforced). */
  minutes?: number;
  steps: LessonStep[];
}

/** What decoding a setting gives (src/store/urlState.ts DecodedSetup has these fields). */
export interface DecodedSetting { preset: string; problems: string[]; taskCode?: string; population?: readonly number[] | null }
export type SettingDecoder = (query: string) => DecodedSetting;

export interface LessonCheck {
  /** The lesson when it has no problem, else null. */
  lesson: Lesson | null;
  /** One line per problem, each naming where ("step 2 setting", "step 1 controls") and what. */
  problems: string[];
  /** A step's setting carries a task's code (a `task=` parameter): the page asks before running it, as a task link does. */
  carriesCode: boolean;
}

const TOP = ['lesson', 'name', 'title', 'about', 'minutes', 'steps'];
const STEP = ['title', 'setting', 'controls', 'do', 'predict', 'action', 'check', 'explain'];
const ACTION_FIELDS: Record<ActionName, readonly string[]> = {
  start: [], step: ['times'], moveLambda: ['to'], chooseMember: ['member'], restoreBest: [], openAnatomy: [], openTranscripts: [],
};
const NAME = /^[a-z0-9][a-z0-9-]{0,47}$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every problem of `value` as a lesson, and the lesson when there is none. Never throws. */
export function checkLesson(value: unknown, decode: SettingDecoder): LessonCheck {
  const problems: string[] = [];
  let carriesCode = false;
  if (!isObj(value)) return { lesson: null, problems: ['a lesson must be a JSON object with fields lesson, name, title, about, steps'], carriesCode };
  for (const k of Object.keys(value)) if (!TOP.includes(k)) problems.push(`unknown field ${quote(k, 40)} (a lesson has ${TOP.join(', ')})`);
  if (value.lesson !== LESSON_FORMAT) problems.push(`lesson must be "${LESSON_FORMAT}" (the format's version), got ${quote(value.lesson, 40)}`);
  if (typeof value.name !== 'string' || !NAME.test(value.name)) problems.push(`name must be lower-case letters, digits and dashes (at most 48), got ${quote(value.name, 60)}`);
  const text = (v: unknown, where: string, required: boolean) => {
    if (v === undefined) { if (required) problems.push(`${where} is missing`); return; }
    if (typeof v !== 'string' || v.trim() === '') problems.push(`${where} must be a non-empty text, got ${quote(v, 40)}`);
    else if (v.length > TEXT_MAX) problems.push(`${where} is ${v.length} characters, more than ${TEXT_MAX}`);
  };
  text(value.title, 'title', true);
  text(value.about, 'about', true);
  if (value.minutes !== undefined && !(typeof value.minutes === 'number' && value.minutes > 0 && value.minutes <= 120)) problems.push(`minutes must be a number in (0, 120], got ${quote(value.minutes, 20)}`);
  const steps = value.steps;
  if (!Array.isArray(steps) || steps.length === 0) problems.push(`steps must be a list of 1 to ${MAX_STEPS} steps, got ${quote(steps, 40)}`);
  else if (steps.length > MAX_STEPS) problems.push(`steps: at most ${MAX_STEPS}, got ${steps.length}`);
  else {
    const run = { members: 0 }; // the members of the run a step acts on (0: not known)
    steps.forEach((s, i) => { if (stepProblems(s, i, decode, problems, run)) carriesCode = true; });
  }
  return { lesson: problems.length === 0 ? (value as unknown as Lesson) : null, problems, carriesCode };
}

/** Checks step i (pushing its problems); returns whether its setting carries a task's code. */
function stepProblems(s: unknown, i: number, decode: SettingDecoder, problems: string[], run: { members: number }): boolean {
  const at = `step ${i + 1}`;
  if (!isObj(s)) { problems.push(`${at}: must be an object with fields ${STEP.join(', ')}`); return false; }
  for (const k of Object.keys(s)) if (!STEP.includes(k)) problems.push(`${at}: unknown field ${quote(k, 40)} (a step has ${STEP.join(', ')})`);
  for (const [k, required] of [['title', true], ['do', true], ['predict', false], ['explain', true]] as const) {
    const v = s[k];
    if (v === undefined) { if (required) problems.push(`${at}: ${k} is missing`); continue; }
    if (typeof v !== 'string' || v.trim() === '') problems.push(`${at} ${k}: must be a non-empty text, got ${quote(v, 40)}`);
    else if (v.length > TEXT_MAX) problems.push(`${at} ${k}: ${v.length} characters, more than ${TEXT_MAX}`);
  }
  if (!Array.isArray(s.controls)) problems.push(`${at} controls: must be a list of control names (${CONTROLS.join(', ')}), got ${quote(s.controls, 40)}`);
  else for (const c of s.controls) if (!(CONTROLS as readonly unknown[]).includes(c)) problems.push(`${at} controls: unknown control ${quote(c, 40)} (controls: ${CONTROLS.join(', ')})`);
  const action = actionProblems(s.action, at, problems);
  for (const p of checkProblems(s.check, `${at} check`)) problems.push(p);
  let code = false;
  if (s.setting === undefined) {
    if (i === 0) problems.push(`${at}: setting is missing (the first step starts the lesson's run from one)`);
    else if (action && TRAINING_ACTIONS.includes(action)) problems.push(`${at}: action ${action} trains, so the step needs a setting (a link's query such as "?v=1&preset=relay-silence")`);
  } else if (typeof s.setting !== 'string' || !/^\?/.test(s.setting)) {
    problems.push(`${at} setting: must be a link's query starting with "?", such as "?v=1&preset=relay-silence", got ${quote(s.setting, 60)}`);
  } else if (action && !TRAINING_ACTIONS.includes(action)) {
    problems.push(`${at}: action ${action} acts on the previous step's run, so the step has no setting (remove it, or use start)`);
  } else {
    let d: DecodedSetting;
    try { d = decode(s.setting); } catch (e) { d = { preset: '', problems: [e instanceof Error ? e.message : String(e)] }; }
    for (const p of d.problems) problems.push(`${at} setting: ${clip(p, 200)}`);
    if (d.taskCode !== undefined || /(^|[?&])task=/.test(s.setting)) code = true;
    run.members = d.population === undefined ? 0 : d.population === null ? 1 : d.population.length;
  }
  // a member named by index must be one of the run's (when the decoder says how many it has)
  const named: [string, unknown][] = [['action: chooseMember member', isObj(s.action) && s.action.do === 'chooseMember' ? s.action.member : undefined], ['check: member', isObj(s.check) ? s.check.member : undefined]];
  for (const [what, m] of named) {
    if (run.members > 0 && Number.isInteger(m) && (m as number) >= 0 && (m as number) >= run.members) problems.push(`${at} ${what} ${m as number}, but the run has ${run.members} member${run.members === 1 ? '' : 's'} (indices from 0)`);
  }
  return code;
}

function actionProblems(a: unknown, at: string, problems: string[]): ActionName | null {
  if (!isObj(a) || typeof a.do !== 'string' || !hasKey(ACTION_FIELDS, a.do)) {
    problems.push(`${at} action: unknown action ${quote(isObj(a) ? a.do : a, 40)} (write {"do": NAME}; actions: ${ACTIONS.join(', ')})`);
    return null;
  }
  const name = a.do as ActionName;
  for (const k of Object.keys(a)) if (k !== 'do' && !ACTION_FIELDS[name].includes(k)) problems.push(`${at} action: unknown field ${quote(k, 40)} for ${name} (it takes ${ACTION_FIELDS[name].join(', ') || 'no other field'})`);
  if (name === 'step' && a.times !== undefined && !(Number.isInteger(a.times) && (a.times as number) >= 1 && (a.times as number) <= 1000)) problems.push(`${at} action: times must be an integer in 1..1000, got ${quote(a.times, 20)}`);
  if (name === 'moveLambda' && !(typeof a.to === 'number' && Number.isFinite(a.to) && a.to >= 0 && a.to <= 10)) problems.push(`${at} action: moveLambda needs to, a lambda_tok in [0, 10], got ${quote(a.to, 20)}`);
  if (name === 'chooseMember' && !(Number.isInteger(a.member) && (a.member as number) >= 0 && (a.member as number) < 64)) problems.push(`${at} action: chooseMember needs member, an index 0..63, got ${quote(a.member, 20)}`);
  return name;
}

/** A lesson file's text: JSON, at most LESSON_MAX_CHARS; a syntax error is one problem. */
export function checkLessonText(text: string, decode: SettingDecoder): LessonCheck {
  if (text.length > LESSON_MAX_CHARS) return { lesson: null, problems: [`the lesson is ${text.length} characters, more than ${LESSON_MAX_CHARS}`], carriesCode: false };
  let value: unknown;
  try { value = JSON.parse(text); } catch (e) {
    return { lesson: null, problems: [`not JSON: ${clip(e instanceof Error ? e.message : String(e), 120)}`], carriesCode: false };
  }
  return checkLesson(value, decode);
}
