// Importing a run: its live changes and its population membership come back
// with it, and importing the same run again adds no second copy (it is
// recognised, shown, and named in the notice); a different run of the same
// name comes in under a name of its own.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { PickedFile } from '../../src/store/types';
import { FakeTrainer, fakeClient } from './fakeClient';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world() {
  const downloads: { name: string; blob: Blob }[] = [];
  const storage = new MemoryRunStorage(), fake = new FakeTrainer();
  const store = createAppStore({ client: fakeClient(fake), storage, hub: new MetricsHub(), replaceUrl: () => {}, download: (name, blob) => downloads.push({ name, blob }), persistIntervalMs: 60_000 });
  stores.push(store);
  return { store, fake, storage, downloads };
}
const file = (name: string, content: string): PickedFile => {
  const bytes = new TextEncoder().encode(content);
  return { name, size: bytes.length, text: async () => content, arrayBuffer: async () => bytes.slice().buffer };
};

/** A run of 4 steps with lambda_tok moved to 0.3 after 2 of them, exported as JSON. */
async function exported(): Promise<{ json: string; name: string }> {
  const a = world();
  await a.store.getState().boot('?preset=relay-silence');
  const id = a.store.getState().runId!;
  a.fake.emitSteps(0, 2);
  await a.store.getState().setField('lambdaTok', '0.3');
  a.fake.emitSteps(2, 4);
  a.fake.emitEval(4, 0.75, 2);
  const meta = a.store.getState().runs.find((r) => r.id === id)!;
  expect(meta.changes).toEqual([{ step: 2, field: 'lambdaTok', value: 0.3 }]);
  await a.store.getState().exportRun(id, 'json');
  return { json: await a.downloads[0].blob.text(), name: meta.name };
}

describe('importing a run', () => {
  it('keeps its live changes: the runs table\'s "changed live" and the marks come back', async () => {
    const { json } = await exported();
    const b = world();
    await b.store.getState().boot('?preset=relay-silence');
    await b.store.getState().importFiles([file('r.run.json', json)]);
    expect(b.store.getState().importError).toBeNull();
    const imported = b.store.getState().runs.find((r) => r.source === 'imported')!;
    expect(imported.changes).toEqual([{ step: 2, field: 'lambdaTok', value: 0.3 }]);
  });

  it('keeps its population membership (its sweep and value)', async () => {
    const { json } = await exported();
    const doc = JSON.parse(json);
    doc.run.member = { sweep: 'sweep-1', axis: 'lambdaTok', value: 0.1 };
    const b = world();
    await b.store.getState().boot('?preset=relay-silence');
    await b.store.getState().importFiles([file('m.run.json', JSON.stringify(doc))]);
    expect(b.store.getState().importError).toBeNull();
    expect(b.store.getState().runs.find((r) => r.source === 'imported')!.member).toEqual({ sweep: 'sweep-1', axis: 'lambdaTok', value: 0.1 });
  });

  it('the same file twice: one copy, the second import recognised and named, nothing lost', async () => {
    const { json, name } = await exported();
    const b = world();
    await b.store.getState().boot('?preset=relay-silence');
    await b.store.getState().importFiles([file('r.run.json', json)]);
    const first = b.store.getState().runs.filter((r) => r.source === 'imported');
    expect(first).toHaveLength(1);
    b.store.setState({ overlay: [] });
    await b.store.getState().importFiles([file('r.run.json', json)]);
    const s = b.store.getState();
    expect(s.runs.filter((r) => r.source === 'imported')).toHaveLength(1);
    expect((await b.storage.listRuns()).filter((r) => r.source === 'imported')).toHaveLength(1);
    expect(s.importError).toBe(`r.run.json was not imported again: "${name}" is already in the runs table (the same run: created at the same moment, ${4} steps, 1 eval). It is shown on the charts.`);
    expect(s.overlay).toEqual([first[0].id]);
  });

  it('another run under a name already taken comes in under its own name', async () => {
    const { json, name } = await exported();
    const doc = JSON.parse(json);
    doc.run.createdAt += 1000; // another run, the same name
    const b = world();
    await b.store.getState().boot('?preset=relay-silence');
    await b.store.getState().importFiles([file('r.run.json', json)]);
    await b.store.getState().importFiles([file('r2.run.json', JSON.stringify(doc))]);
    const names = b.store.getState().runs.filter((r) => r.source === 'imported').map((r) => r.name).sort();
    expect(names).toEqual([name, `${name} (2)`].sort());
    expect(b.store.getState().notice).toMatch(new RegExp(`a run named "${name.replace(/[#()]/g, '\\$&')}" is already in the runs table, so this one is called "${name.replace(/[#()]/g, '\\$&')} \\(2\\)"`));
  });
});
