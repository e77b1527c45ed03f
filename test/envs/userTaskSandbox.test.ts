// The sandbox (docs/your-task.md "The sandbox"): a task reaches no network, storage, page, process,
// require or import, and is told so; an endless loop is stopped within its time limit and a runaway
// allocation at the memory limit, each naming the task function; the engine is made anew afterwards.
import { beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/contract/errors';
import { checkUserTask, loadUserTask, MEMORY_BYTES, prepareUserTasks, TaskError, type UserTaskState } from '../../src/envs/userTask';
import { IN_THREAD_TASKS, type SandboxLimits } from '../../src/envs/userTask/sandbox';

beforeAll(() => prepareUserTasks(), 30_000);

/** A valid task whose score runs `body` first (the task is a letter; the answer is scored 1 when it matches). */
const scoring = (body: string, header = '') => `${header}
export default {
  vocab: 'abcdefgh',
  sample: (rand) => rand.pick(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']),
  solver: (t) => t,
  score(t, answer) { ${body}; return answer === t ? 1 : 0; },
};`;

/** Plays one episode of `code` and scores it (what a rollout does). */
function scoreOne(code: string, limits?: SandboxLimits) {
  const { env } = loadUserTask(code, limits);
  const [task] = env.sampleTasks('train', 1, 0, 0);
  const s = env.start(task) as UserTaskState;
  env.applyTurn(s, 0, [[2]]);
  return env.score(s);
}

describe('a task gets nothing of the page, the network or the machine', () => {
  for (const name of ['fetch', 'indexedDB', 'localStorage', 'document', 'process', 'require']) {
    it(`${name}: not available, and told so, naming score`, () => {
      let err: unknown;
      try { scoreOne(scoring(`${name}`)); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(TaskError);
      expect((err as Error).message).toMatch(new RegExp(`^score threw ReferenceError: ${name} is not available in a task`));
      expect((err as TaskError).where.fn).toBe('score');
    });
  }

  it('typeof and globalThis lookups do not find them either', () => {
    expect(() => scoreOne(scoring('typeof fetch'))).toThrow(/fetch is not available in a task/);
    expect(() => scoreOne(scoring("globalThis['localStorage'].getItem('runs')"))).toThrow(/localStorage is not available in a task/);
  });

  it('import(): not available, and told so (the Promise it returns is refused too)', () => {
    let err: unknown;
    try { scoreOne(scoring("return import('node:fs')")); } catch (e) { err = e; }
    expect((err as Error).message).toMatch(/^score returned a Promise/);
    expect((err as Error).message).toMatch(/import of "node:fs": import is not available in a task/);
  });

  it('a static import: the module does not load, and says why', () => {
    const r = checkUserTask(scoring('', "import fs from 'node:fs';"));
    expect(r.ok).toBe(false);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ rule: 'loads', fn: 'module' });
    expect(r.problems[0].message).toMatch(/import is not available in a task/);
  });

  it('Math.random: refused with a pointer to the seeded rand', () => {
    expect(() => loadUserTask(scoring('').replace("rand.pick(['a',", "(Math.random() < 2) && rand.pick(['a',"))).toThrow(/Math\.random is not available in a task: use the rand/);
  });
});

describe('limits', () => {
  it('while (true) {} in score is stopped within its time limit, naming score', () => {
    const t0 = performance.now();
    let err: unknown;
    try { scoreOne(scoring('while (true) {}'), { callMs: 200 }); } catch (e) { err = e; }
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(InputError);
    // which episode it was scoring: its task and answer (the page's banner shows them)
    expect((err as Error).message).toBe('score did not return within 200 ms: stopped (an endless loop?) for train task 0 (replica 0, task "b", answer "")');
    // the limit, plus loading the task (a few ms) and the interrupt's polling
    expect(ms).toBeLessThan(1500);
  });

  it('a 1 GB allocation is stopped at the memory limit, naming the function; the next call runs in a fresh engine', () => {
    const code = scoring("if (t === 'a' && answer === '') new Uint8Array(1024 * 1024 * 1024).fill(1)");
    const { env } = loadUserTask(code, { memoryBytes: 32 * 2 ** 20 });
    const tasks = env.sampleTasks('train', 64, 0, 0) as { task: string }[];
    const a = tasks.find((x) => x.task === 'a')!, b = tasks.find((x) => x.task === 'b')!;
    const play = (t: unknown, answer: number[]) => { const s = env.start(t as never); env.applyTurn(s, 0, [answer]); return env.score(s); };
    expect(() => play(a, [2])).toThrow('score ran out of memory: stopped at the task\'s limit of 32 MB');
    // the engine is thrown away and made anew: the task goes on (b = id 7: PAD BOS EOS SEP ANS SOLVER a b ...)
    expect(play(b, [7, 2]).rTask).toBe(1);
  });

  it('a growing array is stopped too (memory, not time)', () => {
    expect(() => scoreOne(scoring('const xs = []; for (;;) xs.push(new Float64Array(1 << 18))'), { memoryBytes: 32 * 2 ** 20, callMs: 10_000 })).toThrow('score ran out of memory: stopped at the task\'s limit of 32 MB');
  });

  // many allocations, each far under the limit: QuickJS's own count misses them (8 bytes each in this build), so the
  // cap is the engine's wasm memory; a task that catches the failure says how much it held
  const held = (mode: 'worker' | 'in-thread') => {
    let err: unknown;
    try { scoreOne(scoring('const xs = []; try { for (;;) xs.push(new Uint8Array(1 << 20)); } catch (e) { throw new Error(`held ${xs.length} MB`); }'), { memoryBytes: 32 * 2 ** 20, mode }); } catch (e) { err = e; }
    const m = /^score threw Error: held (\d+) MB/.exec((err as Error)?.message ?? '');
    expect(m, String(err)).not.toBeNull();
    return Number(m![1]);
  };

  it('kept allocations stop at the limit: the engine\'s whole memory (its own 5 MB or so included)', () => {
    const mb = held('worker');
    expect(mb).toBeLessThanOrEqual(32);
    expect(mb).toBeGreaterThanOrEqual(20);
  });

  it('in-thread, the thread\'s tasks share one engine memory: kept allocations stop at its cap, not at 2 GB', () => {
    const mb = held('in-thread');
    expect(mb).toBeLessThanOrEqual(IN_THREAD_TASKS * MEMORY_BYTES / 2 ** 20);
    expect(mb).toBeGreaterThanOrEqual(32);
  });

  it('an endless loop at the module\'s top level is stopped as the module', () => {
    const r = checkUserTask('for (;;) {}\nexport default {};', { callMs: 200 });
    expect(r.problems).toEqual([{ rule: 'loads', fn: 'module', message: 'the module did not return within 200 ms: stopped (an endless loop?)' }]);
  });
});
