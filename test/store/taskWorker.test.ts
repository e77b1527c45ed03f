// The page's limit on its task worker (src/store/taskWorker.ts): a Check the worker never answers (a task
// that outran even the sandbox's own limits) ends that worker after the limit, says so in one line, and the
// next question starts a fresh worker.
import { describe, expect, it } from 'vitest';
import { connectTaskWorker } from '../../src/store/taskWorker';

/** A worker that takes every message and answers none (as a worker stuck in a task's loop). */
function stuckWorker(log: string[]): Worker {
  const n = log.filter((x) => x.startsWith('new')).length;
  log.push(`new ${n}`);
  return {
    postMessage() { /* never answers */ },
    addEventListener() {}, removeEventListener() {},
    terminate() { log.push(`terminate ${n}`); },
  } as unknown as Worker;
}

describe('the page\'s task worker', () => {
  it('a Check that does not answer within the limit ends the worker, names the limit, and the next Check starts another', async () => {
    const log: string[] = [];
    const tasks = connectTaskWorker(100, () => stuckWorker(log));
    const t0 = performance.now();
    await expect(tasks.check('export default {}')).rejects.toThrow('Check did not finish within 0.1 s: the task\'s worker was stopped (a task function that never returns?)');
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(log).toEqual(['new 0', 'terminate 0']);
    await expect(tasks.preset('export default {}')).rejects.toThrow(/^Loading the task did not finish within 0.1 s/);
    expect(log).toEqual(['new 0', 'terminate 0', 'new 1', 'terminate 1']);
  });
});
