// A task of your own that goes wrong mid-run: a score that loops forever after a while is
// stopped within its time limit, with a message naming the function; the run stops (its steps so far and
// its checkpoints kept), and the worker still answers.
import { afterEach, describe, expect, it } from 'vitest';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { TrainerApi } from '../../src/worker/trainerApi';
import { CALL_MS } from '../../src/envs/userTask';

/** Copy, whose score loops forever from its 3,000th call on (past the checks', in the steps). */
const LOOPS = `let calls = 0;
export default {
  name: 'copy-loops',
  vocab: 'abc',
  maxAnswer: 4,
  sample: (rand) => Array.from({ length: 1 + rand.int(3) }, () => rand.pick(['a', 'b', 'c'])).join(''),
  solver: (w) => w,
  score: (w, a) => { calls++; if (calls > 3000) { while (true) {} } return a === w ? 1 : 0; },
  demo: (w) => w,
  settings: { steps: 400, evalEvery: 1000, evalEpisodes: 16, groupSize: 4, promptsPerStep: 8, minibatches: 1, nEmbd: 32 },
  pretrain: { steps: 8 },
};
`;

let api: TrainerApi | null = null;
afterEach(async () => { await api?.destroy(); api = null; });

describe('a task that loops mid-run', () => {
  it('is stopped within its limit naming score; the run stops with its steps, and the worker answers', async () => {
    api = new TrainerApi(async () => new WasmBackend(), async () => null, async () => ({ ok: false, reason: 'test: no adapter' }));
    await api.init('task-copy-loops', { taskCode: LOOPS } as never);
    const t0 = performance.now();
    await api.start();
    let s = await api.getState();
    while (s.status === 'running' && performance.now() - t0 < 120_000) { await new Promise((r) => setTimeout(r, 100)); s = await api.getState(); }
    expect(s.status).not.toBe('running');
    expect(s.message).toMatch(/score/);
    expect(s.message).toMatch(/time|limit|ms/i);
    expect(s.stepCount).toBeGreaterThan(0); // the steps before it are kept
    const again = await api.getState(); // the worker still answers
    expect(again.stepCount).toBe(s.stepCount);
    expect(CALL_MS).toBeLessThanOrEqual(5000);
    // the page's banner reads which function, in which step; Continue (start, step) is refused until the task changes
    expect(s.taskFailure).toMatchObject({ fn: 'score', step: s.stepCount + 1 });
    expect(s.message).toMatch(new RegExp(`^your task's score stopped the run in step ${s.stepCount + 1}: score did not return within`));
    await expect(api.start()).rejects.toThrow(/start: your task's score stopped this run in step \d+; change the task/);
    await expect(api.step(1)).rejects.toThrow(/step: your task's score stopped this run/);
    await api.init('task-copy-loops', { taskCode: LOOPS } as never); // the same code again: still refused
    await expect(api.start()).rejects.toThrow(/your task's score stopped this run/);
    const fixed = LOOPS.replace('calls > 3000', 'calls > 3e9');
    const f = await api.init('task-copy-loops', { taskCode: fixed, steps: 1 } as never);
    expect(f.taskFailure).toBeNull();
    await api.step(1); // a changed task trains
    expect((await api.getState()).stepCount).toBe(1);
  }, 180_000);
});
