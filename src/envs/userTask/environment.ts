// A task module as an Environment the Trainer uses unchanged (docs/your-task.md).
//
// Layouts (ids: format.ts RESERVED, then the task's vocabulary):
//   one role        solver     BOS SOLVER <solver(task)> ANS                       then <= maxAnswer + 1 generated
//   two roles       messenger  BOS MESSENGER <messenger(task)> SEP                 then <= maxMessage + 1 generated (a message: it counts in tokens)
//                   solver     BOS SOLVER <solver(task)> SEP <message> ANS          then <= maxAnswer + 1 generated
// One policy plays every role (the role token tells it which), as in relay.
//
// The boundary: each role's view is computed with the task in the sampler's batch (one call per
// sampleTasks), and the scores of a rollout in one call too: score(state) of the first episode
// scores every finished episode started since (they are pure functions of the task and the text).
import { clip, hasKey, InputError, quote } from '../../contract/errors';
import type { Demonstration, Environment, Score, TranscriptLine, Turn } from '../types';
import { readSpec, TOK, Tokens, vocabOf, type Described, type TaskSpec } from './format';
import { TaskError, TaskSandbox, type SandboxLimits } from './sandbox';

/** A sampled task: the task's own data and each role's view as token ids. */
export interface UserTaskItem {
  task: unknown;
  split: 'train' | 'eval';
  index: number; // its place in the stream (for messages)
  solver: number[];
  messenger: number[] | null;
}

export interface UserTaskState {
  item: UserTaskItem;
  replica: number;
  /** What the messenger generated (EOS included when generated); null before its turn or with one role. */
  generated: number[] | null;
  message: number[] | null; // as sent: before EOS, at most maxMessage
  answerGenerated: number[] | null;
  answer: number[] | null; // before EOS, at most maxAnswer
  score: Score | null;
}

/** What a view or demo function returned, as the sandbox sends it. */
interface RawItem { task: unknown; solver: unknown; messenger?: unknown; demo?: unknown }

/** Tasks measured at load to size the block when the task declares no maxPrompt. */
export const MEASURE_TASKS = 256;
/** A score's `reward` (the training signal in place of the score) must lie within +-this. */
export const REWARD_MAX = 100;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;
/** An eval record's own fields: an extra of the same name would overwrite one. */
const RECORD_FIELDS = new Set(['step', 'accuracy', 'tokens', 'turns', 'lambdaTok', 'reward', 'silence', 'messageTokens']);

/** A loaded task: its sandbox, declarations and tokens (one per code; environments made from it share them). */
export class UserTask {
  readonly spec: TaskSpec;
  readonly tokens: Tokens;
  readonly vocab: string[];

  constructor(readonly sandbox: TaskSandbox) {
    this.spec = readSpec(sandbox.call<Described>('describe', {}));
    this.tokens = new Tokens(this.spec);
    this.vocab = vocabOf(this.spec);
  }

  static fromCode(code: string, limits?: SandboxLimits): UserTask {
    return new UserTask(new TaskSandbox(code, limits));
  }

  /** Tasks index..index+count-1 of a stream, each with its views, in one call. */
  sample(split: 'train' | 'eval', count: number, seed: number, index: number): UserTaskItem[] {
    const raw = this.sandbox.call<RawItem[]>('sample', { split, seed, index, count });
    return raw.map((r, i) => this.item(r, split, index + i, seed));
  }

  item(r: RawItem, split: 'train' | 'eval', index: number, seed: number): UserTaskItem {
    const where = `${split} task ${index} (seed ${seed}, task ${clip(JSON.stringify(r.task) ?? '', 60)})`;
    const view = (fn: string, x: unknown) => {
      try { return this.tokens.encode(x); } catch (e) { throw new TaskError(`${fn}(task) for ${where} returned ${(e as Error).message}`, { fn, item: index }); }
    };
    return { task: r.task, split, index, solver: view('solver', r.solver), messenger: this.spec.roles.length === 2 ? view('messenger', r.messenger) : null };
  }

  /** Demo episodes index..: each task with its views and what demo(task, rand) returned. */
  demoItems(count: number, seed: number, index: number): { item: UserTaskItem; demo: unknown }[] {
    const raw = this.sandbox.call<RawItem[]>('demos', { count, seed, index });
    return raw.map((r, i) => ({ item: this.item(r, 'train', index + i, seed), demo: r.demo }));
  }

  /** The context of a role's view (before what it generates). */
  context(role: 'solver' | 'messenger', item: UserTaskItem, message: number[] = []): number[] {
    if (role === 'messenger') return [TOK.BOS, TOK.MESSENGER, ...item.messenger!, TOK.SEP];
    return this.spec.roles.length === 2 ? [TOK.BOS, TOK.SOLVER, ...item.solver, TOK.SEP, ...message, TOK.ANS] : [TOK.BOS, TOK.SOLVER, ...item.solver, TOK.ANS];
  }

  /** Scores of (task, answer text, message text) triples in one call, checked: `label(i)` names item i's episode. */
  scoreBatch(items: [unknown, string, string | null][], label: (i: number) => string): Score[] {
    let raw: unknown[];
    try {
      raw = this.sandbox.call<unknown[]>('score', { items });
    } catch (e) {
      // the episode it was scoring when it failed (a loop, memory, a throw): named, with its task and answer
      const i = e instanceof TaskError ? e.where.item : -1;
      if (e instanceof TaskError && i >= 0 && i < items.length) throw new TaskError(`${e.message} for ${label(i)}`, e.where, e.kind);
      throw e;
    }
    if (!Array.isArray(raw) || raw.length !== items.length) throw new InputError(`score: the sandbox returned ${quote(raw)} for ${items.length} episodes`);
    return raw.map((r, i) => checkScore(r, label(i)));
  }
}

/** A score's return value as a Score, or a TaskError naming the episode and the value. */
export function checkScore(r: unknown, episode: string): Score {
  const bad = (what: string): never => { throw new TaskError(`score ${what} for ${episode}`, { fn: 'score', item: -1 }); };
  const inRange = (x: unknown, what: string): number => {
    const w = what ? `${what} ` : '';
    if (typeof x !== 'number') bad(`returned ${w}${quote(x)}: not a number`);
    if (Number.isNaN(x)) bad(`returned ${w}NaN`);
    if (!((x as number) >= 0 && (x as number) <= 1)) bad(`returned ${w}${x as number}: out of [0, 1]`);
    return x as number;
  };
  if (typeof r === 'number' || r === null || typeof r !== 'object' || Array.isArray(r)) {
    // JSON turns NaN and Infinity into null: a null is one of those (or null itself)
    if (r === null) bad('returned NaN, Infinity or null (not a number in [0, 1])');
    if (typeof r === 'boolean') return { rTask: r ? 1 : 0, extras: {} };
    return { rTask: inRange(r, ''), extras: {} };
  }
  const o = r as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'score' && k !== 'reward' && k !== 'extras') bad(`returned an object with ${quote(k)}: it may have score, reward and extras`);
  if (o.score === null) bad('returned score NaN, Infinity or null (not a number in [0, 1])');
  const out: Score = { rTask: inRange(o.score, 'score'), extras: Object.create(null) as Record<string, number> };
  if (o.reward !== undefined) {
    if (typeof o.reward !== 'number' || !(Math.abs(o.reward) <= REWARD_MAX)) bad(`returned reward ${quote(o.reward)}: it must be a finite number within +-${REWARD_MAX}`);
    out.reward = o.reward as number;
  }
  if (o.extras !== undefined) {
    if (typeof o.extras !== 'object' || o.extras === null || Array.isArray(o.extras)) bad(`returned extras ${quote(o.extras)}: an object of named numbers`);
    for (const [k, v] of Object.entries(o.extras as object)) {
      if (!NAME.test(k)) bad(`returned an extra named ${quote(k)}: names are identifiers (letters, digits, _)`);
      if (k === '__proto__' || RECORD_FIELDS.has(k)) bad(`returned an extra named ${quote(k)}: the name is taken (an eval's own field, or JavaScript's)`);
      if (typeof v !== 'number' && typeof v !== 'boolean') bad(`returned extras.${k} = ${quote(v)}: not a number`);
      out.extras[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
  }
  return out;
}

/** Ids before the first EOS, at most `max`. */
function cut(generated: number[], max: number): number[] {
  const end = generated.indexOf(TOK.EOS);
  return (end < 0 ? generated : generated.slice(0, end)).slice(0, max);
}

/** The longest view over sampled tasks of both streams (the block size when the task declares no maxPrompt). */
function measuredPrompt(task: UserTask, seed: number): { solver: number; messenger: number } {
  const items = [...task.sample('train', MEASURE_TASKS, seed, 0), ...task.sample('eval', MEASURE_TASKS, seed, 0)];
  return { solver: Math.max(...items.map((x) => x.solver.length)), messenger: Math.max(0, ...items.map((x) => x.messenger?.length ?? 0)) };
}

/** Builds the Environment over a loaded task. */
export function userTaskEnvironment(task: UserTask): Environment<UserTaskItem, UserTaskState> {
  const { spec, tokens } = task;
  const two = spec.roles.length === 2;
  const longest = spec.maxPrompt !== null ? { solver: spec.maxPrompt, messenger: spec.maxPrompt } : measuredPrompt(task, 0);
  const solverLen = (two ? 4 + longest.solver + spec.maxMessage : 3 + longest.solver) + spec.maxAnswer + 1;
  const messengerLen = two ? 3 + longest.messenger + spec.maxMessage + 1 : 0;
  const blockSize = Math.ceil(Math.max(solverLen, messengerLen) / 8) * 8;
  const checkLength = (item: UserTaskItem) => {
    for (const [fn, view] of [['solver', item.solver], ['messenger', item.messenger]] as const) {
      if (view && view.length > longest[fn]) {
        throw new TaskError(`${fn}(task) for ${item.split} task ${item.index} is ${view.length} tokens, longer than the ${longest[fn]} the block was sized for${spec.maxPrompt === null ? ` (the longest of ${MEASURE_TASKS} tasks per stream drawn at load): declare maxPrompt` : ' (maxPrompt)'}`, { fn, item: item.index });
      }
    }
  };
  let pending: UserTaskState[] = [];
  const episode = (s: UserTaskState) => `${s.item.split} task ${s.item.index} (replica ${s.replica}, task ${clip(JSON.stringify(s.item.task) ?? '', 60)}, answer ${quote(tokens.decode(s.answer ?? []))}${two ? `, message ${quote(tokens.decode(s.message ?? []))}` : ''})`;

  const scoreAll = (first: UserTaskState) => {
    const ready = pending.filter((s) => s.answer !== null && s.score === null);
    if (!ready.includes(first)) ready.push(first);
    pending = pending.filter((s) => s.answer === null); // the rest wait for their turns
    const scores = task.scoreBatch(ready.map((s) => [s.item.task, tokens.decode(s.answer!), two ? tokens.decode(s.message!) : null]), (i) => episode(ready[i]));
    ready.forEach((s, i) => {
      const sc = scores[i];
      if (two) Object.assign(sc.extras, { silent: s.generated![0] === TOK.EOS ? 1 : 0, messageTokens: s.message!.length });
      s.score = sc;
    });
  };

  const env: Environment<UserTaskItem, UserTaskState> = {
    id: 'custom',
    vocab: task.vocab,
    eos: TOK.EOS,
    blockSize,

    sampleTasks(split, count, seed, index) {
      const items = task.sample(split, count, seed, index);
      items.forEach(checkLength);
      return items;
    },

    start(item, replica = 0) {
      const s: UserTaskState = { item, replica, generated: null, message: null, answerGenerated: null, answer: null, score: null };
      if (pending.length > 1 << 16) pending = pending.filter((p) => p.answer !== null); // abandoned episodes do not pile up
      pending.push(s);
      return s;
    },

    turn(s, k): Turn[] {
      if (two && k === 0) return [{ role: 'messenger', agent: 0, context: task.context('messenger', s.item), maxNew: spec.maxMessage + 1, message: true }];
      if (k === (two ? 1 : 0)) {
        if (two && s.message === null) throw new Error('custom: the solver\'s turn before the messenger\'s was applied');
        return [{ role: 'solver', agent: two ? 1 : 0, context: task.context('solver', s.item, s.message ?? []), maxNew: spec.maxAnswer + 1, message: false }];
      }
      return [];
    },

    applyTurn(s, k, generated) {
      if (two && k === 0) {
        s.generated = generated[0].slice();
        s.message = cut(s.generated, spec.maxMessage);
      } else if (k === (two ? 1 : 0)) {
        s.answerGenerated = generated[0].slice();
        s.answer = cut(s.answerGenerated, spec.maxAnswer);
      } else throw new Error(`custom: no turn ${k}`);
    },

    score(s): Score {
      if (s.answer === null) throw new Error('custom: score before the solver answered');
      if (s.score === null) scoreAll(s);
      return s.score!;
    },

    evalExtras(scores) {
      const keys = [...new Set(scores.flatMap((sc) => Object.keys(sc.extras)))].filter((k) => k !== 'messageTokens');
      // over the episodes that report it: an extra given only on some tasks is a rate on those (NaN: none)
      const mean = (k: string) => { const xs = scores.filter((sc) => hasKey(sc.extras, k)); return xs.reduce((a, sc) => a + sc.extras[k], 0) / xs.length; };
      return Object.fromEntries(keys.map((k) => [k === 'silent' ? 'silence' : k, mean(k)]));
    },

    demonstrations(count, seed) {
      if (!spec.hasDemo || count <= 0) return [];
      const demos: Demonstration[] = [];
      const withTargets = (context: number[], gen: number[]): Demonstration => ({ tokens: [...context, ...gen], target: [...context.map(() => 0), ...gen.map(() => 1)] });
      for (let index = 0; demos.length < count;) {
        const batch = Math.min(4096, two ? Math.ceil((count - demos.length) / 2) + 1 : count - demos.length);
        for (const { item, demo } of task.demoItems(batch, seed, index)) {
          const d = demoParts(demo, two, item, seed);
          const enc = (what: string, x: unknown, max: number) => {
            let ids: number[];
            try { ids = tokens.encode(x); } catch (e) { throw new TaskError(`demo(task) for ${item.split} task ${item.index} (seed ${seed}): its ${what} ${(e as Error).message}`, { fn: 'demo', item: item.index }); }
            if (ids.length > max) throw new TaskError(`demo(task) for ${item.split} task ${item.index} (seed ${seed}): its ${what} is ${ids.length} tokens, more than ${what === 'message' ? 'maxMessage' : 'maxAnswer'} = ${max}`, { fn: 'demo', item: item.index });
            return ids;
          };
          checkLength(item);
          const message = two ? enc('message', d.message ?? '', spec.maxMessage) : [];
          if (two && demos.length < count) demos.push(withTargets(task.context('messenger', item), [...message, TOK.EOS]));
          if (d.answer !== null && demos.length < count) demos.push(withTargets(task.context('solver', item, message), [...enc('answer', d.answer, spec.maxAnswer), TOK.EOS]));
        }
        index += batch;
        if (index > 64 * count + 4096) throw new TaskError(`demo: ${index} demo episodes gave ${demos.length} of the ${count} demonstrations asked (every answer null?)`, { fn: 'demo', item: -1 });
      }
      return demos;
    },

    render(s): TranscriptLine[] {
      const lines: TranscriptLine[] = [];
      const text = (ids: number[]) => tokens.decode(ids);
      const view = (ids: number[]) => (ids.length === 0 ? '(nothing)' : text(ids));
      if (two) {
        lines.push({ role: 'messenger', text: `Messenger sees ${view(s.item.messenger!)}`, generated: false, tokens: task.context('messenger', s.item) });
        if (s.generated === null) return lines;
        lines.push({ role: 'messenger', text: s.message!.length === 0 ? '(silent)' : text(s.message!), generated: true, tokens: s.generated.slice() });
      }
      lines.push({ role: 'solver', text: `Solver sees ${view(s.item.solver)}${two ? `, message: ${s.message!.length === 0 ? '(silent)' : text(s.message!)}` : ''}`, generated: false, tokens: task.context('solver', s.item, s.message ?? []) });
      if (s.answerGenerated === null) return lines;
      const sc = s.score ?? (() => { try { return env.score(s); } catch { return null; } })();
      lines.push({ role: 'solver', text: `answers ${quote(text(s.answer!))}${sc ? ` (score ${+sc.rTask.toFixed(3)})` : ''}`, generated: true, tokens: s.answerGenerated.slice() });
      return lines;
    },
  };
  return env;
}

/** demo(task, rand)'s return: one role, the answer (or { answer }); two roles, { message, answer } (answer null: no solver demo). */
function demoParts(d: unknown, two: boolean, item: UserTaskItem, seed: number): { message?: unknown; answer: unknown } {
  const where = `${item.split} task ${item.index} (seed ${seed})`;
  if (!two && (typeof d === 'string' || Array.isArray(d))) return { answer: d };
  if (typeof d !== 'object' || d === null || Array.isArray(d)) {
    throw new TaskError(`demo(task) for ${where} returned ${quote(d)}: ${two ? 'it must return { message, answer }' : 'it must return the answer (a string) or { answer }'}`, { fn: 'demo', item: item.index });
  }
  const o = d as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'answer' && k !== 'message') throw new TaskError(`demo(task) for ${where} returned an object with ${quote(k)}: it may have answer${two ? ' and message' : ''}`, { fn: 'demo', item: item.index });
  if (!two && o.message !== undefined) throw new TaskError(`demo(task) for ${where} returned a message, but the task has one role (no messenger)`, { fn: 'demo', item: item.index });
  return { message: o.message, answer: o.answer === undefined ? null : o.answer };
}
