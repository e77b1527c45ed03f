// The format's checks (docs/your-task.md "Check"): what Check on the page and every CLI --task
// run before anything trains. Each problem names its rule and the task function it is about.
import { InputError } from '../../contract/errors';
import type { TranscriptLine } from '../types';
import { UserTask, userTaskEnvironment, type UserTaskItem, type UserTaskState } from './environment';
import type { TaskSpec } from './format';
import { MESSAGE_MAX, oneLine } from './failure';
import { TaskError, TaskSandbox, type SandboxLimits } from './sandbox';

/**
 * The rules: loads (the module evaluates and declares a task), deterministic (the same seed gives the
 * same tasks and views), streams-apart (no task is in both the train and the eval stream),
 * vocabulary (views and demonstrations use only the vocabulary), score (finite, in [0, 1], the same
 * for the same episode), demo (demonstrations build; their answers score), runs (no function throws).
 */
export type TaskRule = 'loads' | 'deterministic' | 'streams-apart' | 'vocabulary' | 'score' | 'demo' | 'runs';

export interface TaskProblem { rule: TaskRule; fn: string; message: string }

export interface TaskCheck {
  ok: boolean;
  problems: TaskProblem[];
  spec: TaskSpec | null;
  /** A few held-out episodes played as the demonstrations would (or silent and empty without them), as Transcripts show them. */
  episodes: TranscriptLine[][];
  /** A few demonstrations as text: each role's context and what it is taught to generate. */
  demos: string[];
}

/** Tasks per stream the checks draw. */
export const CHECK_TASKS = 200;

const fnOf = (e: unknown, fallback: string): string => (e instanceof TaskError ? e.where.fn : fallback);
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
/** The rule a failure breaks: a token outside the vocabulary, else the function's own. */
const ruleOf = (e: unknown, fallback: TaskRule): TaskRule => (/is not in the vocabulary/.test(messageOf(e)) ? 'vocabulary' : fallback);

/** Runs the checks on a task's code; never throws for a broken task (its problems say what is wrong). */
export function checkUserTask(code: string, limits?: SandboxLimits): TaskCheck {
  const problems: TaskProblem[] = [];
  const out: TaskCheck = { ok: false, problems, spec: null, episodes: [], demos: [] };
  const add = (rule: TaskRule, fn: string, message: string) => {
    problems.push({ rule, fn, message });
  };
  // a function stopped by a limit (time, memory, stack) is not called again: one limit, not several
  const stopped = () => problems.some((p) => /did not return within|ran out of memory|exceeded the stack depth/.test(p.message));
  let task: UserTask;
  try {
    task = new UserTask(new TaskSandbox(code, limits));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    add('loads', fnOf(e, 'module'), oneLine(messageOf(e)));
    return out;
  }
  try {
    out.spec = task.spec;
    const spec = task.spec;
    const draw = (split: 'train' | 'eval', seed: number): UserTaskItem[] | null => {
      try { return task.sample(split, CHECK_TASKS, seed, 0); } catch (e) { add(ruleOf(e, 'runs'), fnOf(e, 'sample'), messageOf(e)); return null; }
    };
    const train = draw('train', 0);
    if (!train) return out;
    const evalTasks = draw('eval', 0);
    if (!evalTasks) return out;
    if (stopped()) return out;
    // deterministic: the same (split, seed, index) gives the same task and views, drawn alone or in a batch
    const again = draw('train', 0);
    if (stopped()) return out;
    const alone = (() => { try { return task.sample('eval', 1, 0, 7); } catch { return null; } })();
    const key = (x: UserTaskItem) => JSON.stringify([x.task, x.solver, x.messenger]);
    if (again) {
      const i = train.findIndex((x, j) => key(x) !== key(again[j]));
      if (i >= 0) add('deterministic', 'sample', `sample is not deterministic: train task ${i} of seed 0 was ${JSON.stringify(train[i].task)} and then ${JSON.stringify(again[i].task)} (use the rand it receives, not Date or state kept between calls)`);
      else if (alone && key(alone[0]) !== key(evalTasks[7])) add('deterministic', 'sample', `sample is not deterministic: eval task 7 of seed 0 differs when drawn alone (${JSON.stringify(alone[0].task)}) and in a batch (${JSON.stringify(evalTasks[7].task)}): keep no state between calls`);
    }
    // streams apart: no task of the eval stream is in the train stream
    const trainKeys = new Set(train.map((x) => JSON.stringify(x.task)));
    const shared = evalTasks.find((x) => trainKeys.has(JSON.stringify(x.task)));
    if (shared) add('streams-apart', spec.hasHeldOut ? 'heldOut' : 'sample', `the train and eval streams share the task ${JSON.stringify(shared.task)}${spec.hasHeldOut ? ': heldOut(task) must depend only on the task' : ''}`);
    if (new Set(evalTasks.map((x) => JSON.stringify(x.task))).size < 2) add('streams-apart', 'sample', `the eval stream has only one distinct task in ${CHECK_TASKS} draws: accuracy on it would measure one task`);
    // score: finite, in [0, 1] and repeatable on the demonstrations' answers, empty answers and random ones
    // the environment draws a prompt to measure it (a sample call): a call stopped there is a problem, not a throw
    let env: ReturnType<typeof userTaskEnvironment>;
    try { env = userTaskEnvironment(task); } catch (e) { add(ruleOf(e, 'runs'), fnOf(e, 'sample'), messageOf(e)); return out; }
    const demo = new Map<UserTaskItem, { message: number[]; answer: number[] | null }>();
    if (spec.hasDemo) {
      try {
        const demos = env.demonstrations(64, 1);
        out.demos = demos.slice(0, 4).map((d) => `${task.tokens.decode(d.tokens.filter((_, i) => d.target[i] === 0))}  ->  ${task.tokens.decode(d.tokens.filter((_, i) => d.target[i] === 1))}`.replace(/<(BOS|SOLVER|MESSENGER|ANS|SEP|EOS)>/g, (m) => ` ${m} `).replace(/\s+/g, ' ').trim());
      } catch (e) { add(ruleOf(e, 'demo'), fnOf(e, 'demo'), messageOf(e)); }
      if (stopped()) return out;
      try {
        for (const { item, demo: d } of task.demoItems(8, 2, 0)) {
          const o = (typeof d === 'string' || Array.isArray(d) ? { answer: d } : (d ?? {})) as { message?: unknown; answer?: unknown };
          demo.set(item, { message: spec.roles.length === 2 ? task.tokens.encode(o.message ?? '') : [], answer: o.answer === null || o.answer === undefined ? null : task.tokens.encode(o.answer) });
        }
      } catch (e) { if (!problems.some((p) => p.fn === 'demo')) add(ruleOf(e, 'demo'), fnOf(e, 'demo'), messageOf(e)); }
      if (stopped()) return out;
    }
    const words = task.tokens.offset, V = task.vocab.length;
    let r = 12345;
    const randomIds = (n: number) => Array.from({ length: n }, () => { r = (Math.imul(r, 1103515245) + 12345) >>> 0; return words + (r % (V - words)); });
    const play = (item: UserTaskItem, message: number[], answer: number[]): UserTaskState => {
      const s = env.start(item, 0);
      if (spec.roles.length === 2) env.applyTurn(s, 0, [[...message, 2]]);
      env.applyTurn(s, spec.roles.length === 2 ? 1 : 0, [[...answer, 2]]);
      return s;
    };
    const episodes: UserTaskState[] = [];
    for (const [item, d] of demo) if (d.answer !== null) episodes.push(play(item, d.message, d.answer));
    const demoEpisodes = episodes.length;
    evalTasks.slice(0, 8).forEach((item, i) => {
      episodes.push(play(item, [], []));
      episodes.push(play(item, randomIds(1 + (i % spec.maxMessage || 0)).slice(0, spec.maxMessage), randomIds(1 + (i % spec.maxAnswer))));
    });
    try {
      const first = episodes.map((s) => env.score(s));
      const second = task.scoreBatch(episodes.map((s) => [s.item.task, task.tokens.decode(s.answer!), spec.roles.length === 2 ? task.tokens.decode(s.message!) : null]), (i) => `episode ${i}`);
      const i = first.findIndex((sc, j) => sc.rTask !== second[j].rTask || sc.reward !== second[j].reward);
      if (i >= 0) add('score', 'score', `score is not repeatable: the same episode scored ${first[i].rTask} and then ${second[i].rTask} (keep no state between calls)`);
      const demoScores = first.slice(0, demoEpisodes);
      if (demoScores.length > 0 && demoScores.every((sc) => sc.rTask === 0)) add('demo', 'demo', `the demonstrations' answers all score 0 on ${demoScores.length} tasks: demo(task) should show answers that score (score or demo may be wrong)`);
    } catch (e) { add(ruleOf(e, 'score'), fnOf(e, 'score'), messageOf(e)); }
    if (stopped()) return out;
    const shown = [...episodes.slice(0, Math.min(2, demoEpisodes)), ...episodes.slice(demoEpisodes, demoEpisodes + 2)];
    try { out.episodes = shown.map((s) => env.render(s)); } catch (e) { add('runs', fnOf(e, 'render'), messageOf(e)); }
  } finally {
    task.sandbox.close();
    for (const p of problems) p.message = oneLine(p.message);
  }
  out.ok = problems.length === 0;
  return out;
}

/** The checks as one line for the CLI: every problem, rule and function first (empty when none). */
export function problemsLine(check: TaskCheck): string {
  const all = check.problems.map((p) => `[${p.rule}: ${p.fn}] ${p.message}`);
  let line = oneLine(all[0] ?? ''); // the tag goes before a message already at its cap: cut the whole again
  let shown = all.length > 0 ? 1 : 0;
  while (shown < all.length && line.length + all[shown].length + 2 <= MESSAGE_MAX) line += `; ${all[shown++]}`;
  return shown < all.length ? `${line}; and ${all.length - shown} more` : line;
}
