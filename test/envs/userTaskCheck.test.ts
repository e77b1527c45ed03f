// The format's checks (checkUserTask): each broken rule gets its own problem, naming the rule and
// the task function, and a message naming the episode or task and the value where there is one.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkUserTask, loadUserTask, prepareUserTasks, type UserTaskState } from '../../src/envs/userTask';

beforeAll(() => prepareUserTasks(), 30_000);

// a valid task: copy three letters of 'abcd' (64 tasks, about 13 held out)
const GOOD = {
  vocab: "'abcd'",
  sample: "(rand) => rand.pick(['a', 'b', 'c', 'd']) + rand.pick(['a', 'b', 'c', 'd']) + rand.pick(['a', 'b', 'c', 'd'])",
  solver: '(t) => t',
  score: '(t, answer) => (answer === t ? 1 : 0)',
  demo: '(t) => t',
  extra: 'maxAnswer: 3,',
};
type Parts = Partial<typeof GOOD> & { header?: string };
const task = (p: Parts = {}) => {
  const q = { ...GOOD, ...p };
  return `${p.header ?? ''}
export default {
  vocab: ${q.vocab},
  ${q.extra}
  sample: ${q.sample},
  solver: ${q.solver},
  score: ${q.score},
  demo: ${q.demo},
};`;
};
const only = (p: Parts) => {
  const r = checkUserTask(task(p));
  expect(r.ok).toBe(false);
  return r.problems;
};

describe('checkUserTask', () => {
  it('a good task: no problems, sample episodes and demonstrations rendered', () => {
    const r = checkUserTask(task());
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.spec?.words).toEqual(['a', 'b', 'c', 'd']);
    // a demo episode: the solver sees the task and answers it, scored 1
    const [first] = r.episodes;
    expect(first).toHaveLength(2);
    const seen = first[0].text.replace('Solver sees ', '');
    expect(first[1].text).toBe(`answers "${seen}" (score 1)`);
    expect(r.demos[0]).toMatch(/^<BOS> <SOLVER> ([a-d]{3}) <ANS> -> \1 <EOS>$/);
  });

  it('loads: a syntax error, at its line', () => {
    const p = only({ score: '(t, answer) => { return answer === }' });
    expect(p).toHaveLength(1);
    expect(p[0].rule).toBe('loads');
    expect(p[0].fn).toBe('module');
    // the header line, 'export default {', vocab, maxAnswer, sample, solver, then score on line 7
    expect(p[0].message).toMatch(/^the task has a syntax error \(task\.js line 7\): /);
  });

  it('loads: a missing function, an unknown field, a bad vocabulary: each names its field', () => {
    expect(checkUserTask(task().replace(/ {2}score: .*\n/, '')).problems).toEqual([{ rule: 'loads', fn: 'module', message: 'the task has no score(...) function: every task needs sample, solver and score' }]);
    expect(only({ extra: 'maxAnswer: 3, scroe: 1,' })[0].message).toMatch(/^unknown field "scroe" in the task/);
    expect(only({ vocab: "['a', 'a']" })[0].message).toBe('vocab has "a" twice');
    expect(only({ vocab: "['BOS', 'a']" })[0].message).toMatch(/^vocab\[0\] is "BOS", a name the format reserves/);
    expect(only({ extra: 'maxAnswer: 0,' })[0].message).toBe('maxAnswer must be an integer in 1..32; got 0');
    expect(checkUserTask('export const x = 1;').problems[0].message).toMatch(/^the module has no `export default/);
  });

  it('deterministic: a sampler that keeps state between calls', () => {
    const p = only({ header: 'let n = 0;', sample: "(rand) => { if (++n > 300) rand(); return rand.pick(['a', 'b', 'c', 'd']) + rand.pick(['a', 'b']) + rand.pick(['a', 'b']); }" });
    expect(p.map((x) => [x.rule, x.fn])).toContainEqual(['deterministic', 'sample']);
    expect(p.find((x) => x.rule === 'deterministic')!.message).toMatch(/^sample is not deterministic: train task \d+ of seed 0 was "[a-d]{3}" and then "[a-d]{3}"/);
  });

  it('streams-apart: a heldOut that does not depend only on the task', () => {
    const p = only({ header: 'let c = 0;', extra: 'maxAnswer: 3, heldOut: (t) => c++ % 5 === 0,' });
    const apart = p.find((x) => x.rule === 'streams-apart')!;
    expect(apart.fn).toBe('heldOut');
    expect(apart.message).toMatch(/^the train and eval streams share the task "[a-d]{3}": heldOut\(task\) must depend only on the task$/);
  });

  it('vocabulary: a view with a token outside it names the function, the task and the token', () => {
    const p = only({ solver: "(t) => t + 'z'" });
    expect(p[0].rule).toBe('vocabulary');
    expect(p[0].fn).toBe('solver');
    expect(p[0].message).toMatch(/^solver\(task\) for train task 0 \(seed 0, task "[a-d]{3}"\) returned "[a-d]{3}z": "z" \(token 3\) is not in the vocabulary$/);
  });

  it('vocabulary: a demonstration outside it names demo', () => {
    const p = only({ demo: "(t) => t.toUpperCase()" });
    expect(p[0]).toMatchObject({ rule: 'vocabulary', fn: 'demo' });
    expect(p[0].message).toMatch(/^demo\(task\) for train task 0 \(seed 1\): its answer "[A-D]{3}": "[A-D]" \(token 0\) is not in the vocabulary$/);
  });

  it('score: NaN, out of [0, 1], not a number: each named, with the episode', () => {
    const nan = only({ score: '(t, answer) => 0 / 0' });
    expect(nan[0]).toMatchObject({ rule: 'score', fn: 'score' });
    expect(nan[0].message).toMatch(/^score returned NaN, Infinity or null \(not a number in \[0, 1\]\) for train task \d+ \(replica 0, task "[a-d]{3}", answer "[a-d]{3}"\)$/);
    const high = only({ score: '(t, answer) => (answer === t ? 1.5 : 0)' });
    expect(high[0].message).toMatch(/^score returned 1\.5: out of \[0, 1\] for train task \d+ /);
    const text = only({ score: "(t, answer) => 'yes'" });
    expect(text[0].message).toMatch(/^score returned "yes": not a number for train task \d+ /);
    const field = only({ score: '(t, answer) => ({ score: 1, extras: { x: "a" } })' });
    expect(field[0].message).toMatch(/^score returned extras\.x = "a": not a number for /);
  });

  it('score: a score that changes for the same episode', () => {
    const p = only({ header: 'let k = 0;', score: '(t, answer) => (k++ < 5 ? 1 : 0)' });
    expect(p).toContainEqual({ rule: 'score', fn: 'score', message: expect.stringMatching(/^score is not repeatable: the same episode scored [01] and then [01]/) });
  });

  it('runs: a sampler that throws, with the error and its line', () => {
    const p = only({ sample: "(rand) => { throw new Error('boom'); }" });
    expect(p).toEqual([{ rule: 'runs', fn: 'sample', message: 'sample threw Error: boom (task.js line 5)' }]);
  });

  it('demo: answers that all score 0', () => {
    const p = only({ demo: "(t) => t + 'a'", extra: 'maxAnswer: 4,' });
    expect(p).toContainEqual({ rule: 'demo', fn: 'demo', message: expect.stringMatching(/^the demonstrations' answers all score 0 on \d+ tasks/) });
  });

  it('a score that goes bad during a run stops it with the same message (the Trainer gets an InputError)', () => {
    const { env } = loadUserTask(task({ score: "(t, answer) => (answer === 'ddd' ? NaN : 1)" }));
    const [t] = env.sampleTasks('eval', 1, 0, 0);
    const s = env.start(t) as UserTaskState;
    env.applyTurn(s, 0, [[9, 9, 9, 2]]); // d d d: PAD BOS EOS SEP ANS SOLVER a b c d -> d is 9
    expect(() => env.score(s)).toThrow(/^score returned NaN, Infinity or null \(not a number in \[0, 1\]\) for eval task 0 \(replica 0, task "[a-d]{3}", answer "ddd"\)$/);
  });
});
