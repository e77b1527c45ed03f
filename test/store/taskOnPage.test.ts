// Your own task in the store: Use makes a run of it (its code in every init), the link carries the code,
// and code from a link or an imported run file runs only after the person confirms, the code shown whole.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { PickedFile } from '../../src/store/types';
import { encodeTask, decodeTask } from '../../src/store/taskLink';
import { parseSweepRecord } from '../../src/store/sweepSlice';
import { FakeTrainer, fakeClient } from './fakeClient';
import { copyTask } from '../fixtures/copyTask';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world() {
  const downloads: { name: string; blob: Blob }[] = [];
  const urls: string[] = [];
  const storage = new MemoryRunStorage(), fake = new FakeTrainer();
  const store = createAppStore({ client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: (q) => urls.push(q), download: (name, blob) => downloads.push({ name, blob }), persistIntervalMs: 60_000 });
  stores.push(store);
  return { store, fake, storage, downloads, urls };
}
const file = (name: string, content: string): PickedFile => {
  const bytes = new TextEncoder().encode(content);
  return { name, size: bytes.length, text: async () => content, arrayBuffer: async () => bytes.slice().buffer };
};

describe('your own task in the store', () => {
  it('the link\'s code round-trips (deflated, base64url); a broken one is named', () => {
    const code = copyTask({ maxWord: 3 });
    const t = encodeTask(code);
    expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(t.length).toBeLessThan(code.length); // deflated
    expect(decodeTask(t)).toBe(code);
    expect(() => decodeTask('abc$')).toThrow(/task= is not a task's code/);
    expect(() => decodeTask('AAAA')).toThrow(/task= could not be read as a task's code/);
  });

  it('Use: a failing task trains nothing; a passing one is the current run, its code in the init and the link', async () => {
    const { store, fake, urls } = world();
    await store.getState().boot('?v=1&preset=relay-silence');
    const inits = () => fake.callsOf('init');
    expect(inits()).toHaveLength(1);
    await store.getState().useTask(copyTask({ maxWord: 3 }).replace('score: (w, a) => (a === w ? 1 : 0),', 'score: (w, a) => 2,'));
    expect(inits()).toHaveLength(1); // nothing new
    expect(store.getState().taskCheck!.problems.map((p) => [p.rule, p.fn])).toContainEqual(['score', 'score']);
    await store.getState().useTask(copyTask({ maxWord: 3 }));
    expect(store.getState().preset).toBe('task-copy');
    expect(inits().at(-1)).toEqual(['task-copy', { taskCode: copyTask({ maxWord: 3 }) }]);
    const q = new URLSearchParams(urls.at(-1)!);
    expect(q.get('preset')).toBe('task-copy');
    expect(decodeTask(q.get('task')!)).toBe(copyTask({ maxWord: 3 }));
  });

  it('a link with other code asks first, showing it; nothing of it runs until confirmed; then the link\'s fields apply', async () => {
    const { store, fake, urls } = world();
    const other = copyTask({ maxWord: 4 }); // same name, other code: asks even where a "copy" is known
    await store.getState().boot(`?v=1&preset=task-copy&task=${encodeTask(other)}&lambdaTok=0.2`);
    const c = store.getState().confirm!;
    expect(c.title).toBe('Run the task in this link?');
    expect(c.code).toBe(other);
    expect(store.getState().preset).toBe('relay-silence');
    expect(fake.callsOf('init').map((x) => x[0])).toEqual(['relay-silence']);
    expect(urls).toEqual([]); // the address keeps the task's link while the question is open (a reload asks again)
    await store.getState().answerConfirm(true);
    expect(new URLSearchParams(urls.at(-1)).get('task')).toBe(encodeTask(other));
    expect(store.getState().preset).toBe('task-copy');
    expect(store.getState().config.lambdaTok).toBe(0.2);
    expect(fake.callsOf('init').at(-1)).toEqual(['task-copy', { lambdaTok: 0.2, taskCode: other }]);
    // declined: the page stays on its preset
    const b = world();
    await b.store.getState().boot(`?v=1&preset=task-copy&task=${encodeTask(copyTask({ maxWord: 6 }))}`);
    expect(b.urls).toEqual([]);
    await b.store.getState().answerConfirm(false);
    expect(b.store.getState().preset).toBe('relay-silence');
    expect(new URLSearchParams(b.urls.at(-1)).get('preset')).toBe('relay-silence'); // declined: the address follows the page again
    expect(b.fake.callsOf('init')).toHaveLength(1);
  });

  it('an imported run of a task with other code asks first, then imports it with its task', async () => {
    const a = world();
    await a.store.getState().boot('?v=1&preset=relay-silence');
    await a.store.getState().useTask(copyTask({ maxWord: 3 }));
    const id = a.store.getState().runId!;
    a.fake.emitSteps(0, 2);
    a.fake.emitEval(2, 0.5, 3);
    await a.store.getState().exportRun(id, 'json');
    const json = await a.downloads[0].blob.text();
    const changed = json.replace('rand.int(3)', 'rand.int(5)'); // another task of the same name
    expect(changed).not.toBe(json);
    const b = world();
    await b.store.getState().boot('?v=1&preset=relay-silence');
    const before = b.store.getState().runs.length;
    await b.store.getState().importFiles([file('copy.run.json', changed)]);
    expect(b.store.getState().confirm!.code).toBe(copyTask({ maxWord: 5 }));
    expect(b.store.getState().runs.length).toBe(before); // nothing yet
    await b.store.getState().answerConfirm(true);
    expect(b.store.getState().importError).toBeNull();
    expect(b.store.getState().runs.length).toBe(before + 1);
  });

  it('a population of a task is kept over a reload: its record carries the code; a task preset without it is refused by name', () => {
    const run = { label: 'lambda_tok=0', value: 0, status: 'pending', runId: null, accuracy: null, tokens: null, startedAt: null, finishedAt: null };
    const record = { id: 's', preset: 'task-copy', axis: 'lambdaTok', base: { taskCode: copyTask({ maxWord: 3 }) }, steps: 5, runs: [run], status: 'stopped', message: null, createdAt: 1 };
    const back = parseSweepRecord(JSON.stringify(record));
    expect(back.problem).toBeNull();
    expect(back.sweep!.base).toEqual({ taskCode: copyTask({ maxWord: 3 }) });
    expect(parseSweepRecord(JSON.stringify({ ...record, base: {} })).problem).toMatch(/sweep\.preset "task-copy" is not one of .* \(nor a task of your own with its code\)/);
  });
});
