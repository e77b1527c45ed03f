// Your own task (docs/your-task.md): a hand-written tiny task's episode scored by hand, the token
// layout, the config carrying the code, and the Environment the Trainer gets. Expected values are
// worked out here from the format's layout, not read from the code under test.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, taskCodeOf, validateConfig } from '../../src/config';
import { InputError } from '../../src/contract/errors';
import { createEnv } from '../../src/envs/registry';
import { loadUserTask, prepareUserTasks, userTaskPreset, type UserTaskState } from '../../src/envs/userTask';
import { exportRecipe } from '../../src/export/recipe';

beforeAll(() => prepareUserTasks(), 30_000);

// one role: copy three letters; vocab 'abc' -> ids PAD 0 BOS 1 EOS 2 SEP 3 ANS 4 SOLVER 5, a 6, b 7, c 8
const COPY = `export default {
  vocab: 'abc',
  maxAnswer: 3,
  sample: (rand) => rand.pick(['a', 'b', 'c']) + rand.pick(['a', 'b', 'c']) + rand.pick(['a', 'b', 'c']),
  solver: (t) => t,
  score: (t, answer) => (answer === t ? 1 : answer.length === 3 && answer[0] === t[0] ? 0.5 : 0),
  demo: (t) => t,
};`;

// two roles: the messenger sees a digit, the solver sees nothing and answers it; ids as above with
// MESSENGER 6, then '0' 7, '1' 8, 'X' 9
const PASS = `export default {
  vocab: ['0', '1', 'X'],
  maxMessage: 2,
  maxAnswer: 1,
  sample: (rand) => ({ d: rand.int(2), n: rand.int(1000) }),
  messenger: (t) => String(t.d),
  solver: (t) => 'X',
  score: (t, answer, message) => ({ score: answer === String(t.d) ? 1 : 0, extras: { said: message.length } }),
  demo: (t) => ({ message: String(t.d), answer: String(t.d) }),
};`;

describe('a one-role task, by hand', () => {
  it('lays out the vocabulary, the context and the block size as the format says', () => {
    const { env, spec } = loadUserTask(COPY);
    expect(env.vocab).toEqual(['PAD', 'BOS', 'EOS', 'SEP', 'ANS', 'SOLVER', 'a', 'b', 'c']);
    expect(env.eos).toBe(2);
    expect(spec.roles).toEqual(['solver']);
    // BOS SOLVER t1 t2 t3 ANS (6) + maxAnswer 3 + EOS = 10 -> 16
    expect(env.blockSize).toBe(16);
    const [task] = env.sampleTasks('train', 1, 0, 0) as { task: string }[];
    const ids = [...task.task].map((c) => 6 + 'abc'.indexOf(c));
    const s = env.start(task);
    const [turn] = env.turn(s, 0);
    expect(turn).toMatchObject({ role: 'solver', context: [1, 5, ...ids, 4], maxNew: 4, message: false });
    expect(env.turn(s, 1)).toEqual([]);
  });

  it('scores an episode as score(task, answer) does by hand: exact 1, first letter 0.5, else 0', () => {
    const { env } = loadUserTask(COPY);
    const tasks = env.sampleTasks('eval', 4, 5, 0) as { task: string }[];
    const id = (c: string) => 6 + 'abc'.indexOf(c);
    const play = (t: { task: string }, answer: number[]) => { const s = env.start(t); env.applyTurn(s, 0, [answer]); return env.score(s); };
    const t = tasks[0], [x, y, z] = [...t.task];
    const other = y === 'a' ? 'b' : 'a';
    expect(play(t, [id(x), id(y), id(z), 2]).rTask).toBe(1);
    expect(play(t, [id(x), id(other), id(z), 2]).rTask).toBe(0.5);
    expect(play(t, [2]).rTask).toBe(0); // EOS first: the empty answer
    expect(play(t, [id(x), 2]).rTask).toBe(0); // one letter
    // a fourth token past maxAnswer is cut: the answer is its first three
    expect(play(t, [id(x), id(y), id(z), id('a')]).rTask).toBe(1);
  });

  it('draws a task from (split, seed, index) alone, and the streams apart', () => {
    const { env } = loadUserTask(COPY);
    const batch = env.sampleTasks('train', 8, 3, 0) as { task: string }[];
    const alone = env.sampleTasks('train', 1, 3, 5) as { task: string }[];
    expect(alone[0].task).toBe(batch[5].task);
    // 27 tasks, about one in five held out: the eval stream's tasks never appear in the train stream
    const train = new Set((env.sampleTasks('train', 200, 0, 0) as { task: string }[]).map((x) => x.task));
    const evals = new Set((env.sampleTasks('eval', 200, 0, 0) as { task: string }[]).map((x) => x.task));
    for (const e of evals) expect(train.has(e)).toBe(false);
    expect(evals.size).toBeGreaterThan(0);
  });

  it('builds demonstrations with targets on the answer and EOS only', () => {
    const { env } = loadUserTask(COPY);
    const [d] = env.demonstrations(1, 0);
    // BOS SOLVER t1 t2 t3 ANS | t1 t2 t3 EOS
    expect(d.tokens).toHaveLength(10);
    expect(d.target).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(d.tokens.slice(2, 5)).toEqual(d.tokens.slice(6, 9));
    expect(d.tokens[9]).toBe(2);
  });
});

describe('a two-role task (messenger and solver)', () => {
  it('plays the relay pattern: the message turn counts as a message, the solver reads it after SEP', () => {
    const { env } = loadUserTask(PASS);
    expect(env.vocab).toEqual(['PAD', 'BOS', 'EOS', 'SEP', 'ANS', 'SOLVER', 'MESSENGER', '0', '1', 'X']);
    const [task] = env.sampleTasks('train', 1, 0, 0) as { task: { d: number } }[];
    const d = 7 + task.task.d;
    const s = env.start(task);
    expect(env.turn(s, 0)).toEqual([{ role: 'messenger', agent: 0, context: [1, 6, d, 3], maxNew: 3, message: true }]);
    env.applyTurn(s, 0, [[d, 2]]);
    expect(env.turn(s, 1)).toEqual([{ role: 'solver', agent: 1, context: [1, 5, 9, 3, d, 4], maxNew: 2, message: false }]);
    env.applyTurn(s, 1, [[d, 2]]);
    const sc = env.score(s);
    expect(sc).toEqual({ rTask: 1, extras: { said: 1, silent: 0, messageTokens: 1 } });
    // a silent messenger: EOS first; the solver guesses wrong
    const s2 = env.start(task);
    env.applyTurn(s2, 0, [[2]]);
    expect(env.turn(s2, 1)[0].context).toEqual([1, 5, 9, 3, 4]);
    env.applyTurn(s2, 1, [[d === 7 ? 8 : 7, 2]]);
    expect(env.score(s2)).toEqual({ rTask: 0, extras: { said: 0, silent: 1, messageTokens: 0 } });
    // eval extras: the mean of each extra; silence from the host's 'silent'
    expect(env.evalExtras([env.score(s), env.score(s2)])).toEqual({ said: 0.5, silence: 0.5 });
    const lines = env.render(s2 as UserTaskState);
    expect(lines.map((l) => l.text)).toEqual([`Messenger sees ${task.task.d}`, '(silent)', 'Solver sees X, message: (silent)', `answers "${d === 7 ? 1 : 0}" (score 0)`]);
  });

  it('scores a rollout\'s episodes in one call to the sandbox', () => {
    const { env } = loadUserTask(PASS);
    const tasks = env.sampleTasks('train', 16, 1, 0);
    const states = tasks.map((t) => env.start(t));
    for (const s of states) { env.applyTurn(s, 0, [[7, 2]]); env.applyTurn(s, 1, [[7, 2]]); }
    const first = env.score(states[0]);
    // every other episode was scored by that one call: its score is already on the state
    expect(states.every((s) => (s as UserTaskState).score !== null)).toBe(true);
    expect(first.extras.messageTokens).toBe(1);
  });
});

describe('the config carries the code', () => {
  it('validateConfig keeps taskCode; createEnv builds the task from it', () => {
    const c = validateConfig({ env: 'custom', taskCode: COPY });
    expect(taskCodeOf(c)).toBe(COPY);
    const copy = JSON.parse(JSON.stringify(c)); // a checkpoint's or a member thread's copy
    expect(createEnv(validateConfig(copy)).vocab).toEqual(['PAD', 'BOS', 'EOS', 'SEP', 'ANS', 'SOLVER', 'a', 'b', 'c']);
    expect(() => createEnv({ ...DEFAULTS, env: 'custom' })).toThrow(/needs a task's code/);
    expect(() => validateConfig({ taskCode: 3 })).toThrow(InputError);
  });

  it('a preset of the task: its settings over the defaults, demonstrations or random weights', () => {
    const p = userTaskPreset(COPY.replace("demo: (t) => t,", ''));
    expect(p.warmStart.random).toMatch(/no demo/);
    const q = userTaskPreset(COPY.replace('maxAnswer: 3,', "maxAnswer: 3, settings: { lambdaTok: 0.2 }, pretrain: { steps: 50 },"));
    expect(q.warmStart.random).toBeUndefined();
    expect(q.warmStart.cap).toBe(50);
    expect(q.config.lambdaTok).toBe(0.2);
  });

  it('the TRL / verl export refuses a task run, saying why (never a script with another reward)', () => {
    const c = validateConfig({ env: 'custom', taskCode: COPY });
    for (const to of ['trl', 'verl'] as const) {
      expect(() => exportRecipe(to, c, 'relay-silence')).toThrow(/^a run of your own task cannot be exported as a TRL or verl recipe: its sampler and reward are JavaScript run in a sandbox/);
    }
  });

  it('each example loads and passes its checks', async () => {
    const { checkUserTask } = await import('../../src/envs/userTask');
    for (const f of ['reverse', 'relay', 'sort-hackable', 'priority']) {
      const check = checkUserTask(readFileSync(`examples/tasks/${f}.js`, 'utf8'));
      expect(check.problems, f).toEqual([]);
      expect(check.episodes.length, f).toBeGreaterThan(0);
      expect(check.demos.length, f).toBeGreaterThan(0);
    }
  });
});
