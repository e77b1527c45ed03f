// The page's sweep as a population, against fake workers: every member trains in a
// worker of its own, all at once (none finishes before the last starts), the main
// worker is left alone, each member's telemetry reaches its run record and the
// metrics hub, its checkpoints are stored, a live change reaches one member or all,
// Stop pauses every member, and a population that does not fit is refused.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { PopulationLimits } from '../../src/store/types';
import { parseSweepRecord } from '../../src/store/sweepSlice';
import { FakeTrainer, fakeClient, fakeLane, settle } from './fakeClient';

/** A member worker: emits a step of metrics when started, and finishes (final eval from lambda_tok) when released. */
class MemberTrainer extends FakeTrainer {
  disposed = false;
  startedAt = -1;
  constructor(private readonly clock: { t: number }, private readonly gate: Promise<void>) { super(); }
  override async start() {
    const snap = await super.start();
    this.startedAt = this.clock.t++;
    const runId = this.state.runId!;
    this.emitSteps(0, 1);
    void this.gate.then(() => {
      if (this.state.runId !== runId || this.state.status !== 'running') return;
      this.finishRun(runId);
    });
    return snap;
  }
}

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(population: Partial<PopulationLimits> = {}) {
  const clock = { t: 0 };
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const members: MemberTrainer[] = [];
  const main = new FakeTrainer();
  const storage = new MemoryRunStorage();
  const hub = new MetricsHub();
  const store = createAppStore({
    client: fakeClient(main), storage, hub, replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv(), population,
    spawnTrainer: () => fakeLane(() => { const m = new MemberTrainer(clock, gate); members.push(m); return m; }, (ms) => { for (const m of ms) (m as MemberTrainer).disposed = true; }),
  });
  stores.push(store);
  return { store, main, members, release, storage, hub };
}

const until = async (cond: () => boolean) => { for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5)); };

describe('the page sweep as a population', () => {
  it('trains every member at once in its own worker and records each one', async () => {
    const { store, main, members, release, storage, hub } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5&recipe=off'); // each setting as typed (the recipe has its own test)
    const mainRun = store.getState().runId;
    store.getState().setSweepDraft('0, 0.1, 0.3');
    const done = store.getState().startSweep();
    await until(() => members.length === 3 && members.every((m) => m.startedAt >= 0));
    // all three started before any finished: side by side, not one after another
    expect(members.map((m) => m.state.status)).toEqual(['running', 'running', 'running']);
    expect(members.map((m) => m.callsOf('init')[0])).toEqual([0, 0.1, 0.3].map((v) => ['relay-noisy-dr', { steps: 5, lambdaMode: 'manual', lambdaTok: v }]));
    release();
    await done;
    const s = store.getState().sweep!;
    expect(s.status).toBe('done');
    expect(s.runs.map((r) => [r.accuracy, r.tokens])).toEqual([[1, 4], [0.9, 3], [0.7, 1]]);
    // the main worker was not used: one init (boot), its run still the current one
    expect(main.callsOf('init')).toHaveLength(1);
    expect(store.getState().runId).toBe(mainRun);
    for (const [i, r] of s.runs.entries()) {
      const meta = store.getState().runs.find((m) => m.id === r.runId)!;
      expect(meta.name).toBe(`relay-noisy-dr sweep ${r.label}`);
      expect(meta.evals.map((e) => e.accuracy)).toEqual([r.accuracy]);
      expect(meta.status).toBe('finished');
      expect(hub.get(r.runId!)?.rows).toBe(1); // its step's metrics reached the hub
      expect(store.getState().overlay).toContain(r.runId); // its trail is drawn
      expect(await storage.getCheckpoint(r.runId!, 'last')).toEqual(members[i].checkpointBytes);
      expect(members[i].disposed).toBe(false); // kept while the population is the current run (Step, Continue, the panels)
    }
    store.getState().setPopulation(null); // one run again: the members' workers go
    expect(members.map((m) => m.disposed)).toEqual([true, true, true]);
  });

  it('a setup that carries its recipe gives each member its own (not the schedule of the lambda on screen); the record keeps it', async () => {
    const { store, members, release } = world();
    // eps 0.5 at lambda 0.03 with its recipe applied (by hand: test/cli/sweep.test.ts)
    await store.getState().boot('?v=1&preset=relay-noisy-dr&channelNoise=0.5&lambdaTok=0.03&lambdaStart=0.08&lambdaHold=130&steps=170&temperature=0.7');
    store.getState().setSweepDraft('0.03, 0.3');
    const done = store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.startedAt >= 0));
    const got = members.map((m) => { const c = m.state.config!; return [c.channelNoise, c.lambdaTok, c.lambdaStart, c.lambdaHold, c.steps, c.temperature, c.promptsPerStep]; });
    // lambda 0.3 keeps one copy on (0.225, 0.45]: start 0.2475 -> 0.248 held 80 steps, 160 in all, temperature 1, the calibrated 16 prompts
    expect(got).toEqual([[0.5, 0.03, 0.08, 130, 170, 0.7, 16], [0.5, 0.3, 0.248, 80, 160, 1, 16]]);
    const s = store.getState().sweep!;
    expect(s.recipe).toBe(true);
    expect(parseSweepRecord(JSON.stringify(s)).sweep!.recipe).toBe(true); // a reload resumes the members with their own recipes
    expect(parseSweepRecord(JSON.stringify({ ...s, recipe: 'yes' })).problem).toMatch(/sweep\.recipe "yes" is not true or false/);
    release();
    await done;
    // by default the recipe applies off the calibrated point, and what was typed by hand (a start penalty, a hold,
    // the steps) stays: each member gets only the recipe's other field, the temperature (0.7 at 0.03, 1 at 0.3)
    const typed = world();
    await typed.store.getState().boot('?v=1&preset=relay-noisy-dr&channelNoise=0.5&lambdaStart=0.2&lambdaHold=10&steps=5');
    typed.store.getState().setSweepDraft('0.03, 0.3');
    const done2 = typed.store.getState().startSweep();
    await until(() => typed.members.length === 2 && typed.members.every((m) => m.startedAt >= 0));
    expect(typed.members.map((m) => [m.state.config!.lambdaStart, m.state.config!.lambdaHold, m.state.config!.steps, m.state.config!.temperature])).toEqual([[0.2, 10, 5, 0.7], [0.2, 10, 5, 1]]);
    expect(typed.store.getState().sweep!.recipe).toBe(true);
    expect(typed.store.getState().sweep!.recipeKept).toEqual(['lambdaStart', 'lambdaHold', 'steps']);
    typed.release();
    await done2;
    // recipe=off: every member keeps the setup's schedule
    const plain = world();
    await plain.store.getState().boot('?v=1&preset=relay-noisy-dr&channelNoise=0.5&lambdaStart=0.2&lambdaHold=10&steps=5&recipe=off');
    plain.store.getState().setSweepDraft('0.03, 0.3');
    const done3 = plain.store.getState().startSweep();
    await until(() => plain.members.length === 2 && plain.members.every((m) => m.startedAt >= 0));
    expect(plain.members.map((m) => [m.state.config!.lambdaStart, m.state.config!.lambdaHold, m.state.config!.steps, m.state.config!.temperature])).toEqual([[0.2, 10, 5, 1], [0.2, 10, 5, 1]]);
    expect(plain.store.getState().sweep!.recipe).toBeUndefined();
    plain.release();
    await done3;
  });

  it('by default a population off the calibrated point trains each member with its own recipe; on the point, none', async () => {
    const { store, members, release } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&channelNoise=0.5');
    store.getState().setSweepDraft('0.03, 0.3');
    const done = store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.startedAt >= 0));
    // by hand (test/cli/sweep.test.ts): 0.03 starts from below at 0.08 for 130 of 170 steps at temperature 0.7 (0.03 sits
    // 0.0019 over copy 5's value); 0.3 at 0.248 for 80 of 160
    expect(members.map((m) => { const c = m.state.config!; return [c.lambdaTok, c.lambdaStart, c.lambdaHold, c.steps, c.temperature, c.promptsPerStep]; })).toEqual([[0.03, 0.08, 130, 170, 0.7, 16], [0.3, 0.248, 80, 160, 1, 16]]);
    expect(store.getState().sweep!.recipeKept).toBeUndefined();
    release();
    await done;
    // the calibrated point (eps 0.3, lambda 0.1) has no recipe line: a population of it alone is trained as typed
    const cal = world();
    await cal.store.getState().boot('?v=1&preset=relay-noisy-dr');
    cal.store.getState().setSweepDraft('0.1, 0.1000001');
    const done2 = cal.store.getState().startSweep();
    await until(() => cal.members.length === 2 && cal.members.every((m) => m.startedAt >= 0));
    expect(cal.store.getState().sweep!.recipe).toBeUndefined();
    cal.release();
    await done2;
  });

  it('a live change reaches one member, or every member, and each records it', async () => {
    const { store, members, release } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1, 0.3');
    const done = store.getState().startSweep();
    await until(() => members.length === 3 && members.every((m) => m.startedAt >= 0));
    const ids = store.getState().sweep!.runs.map((r) => r.runId!);
    await store.getState().setMemberField(ids[1], 'lr', 0.002);
    expect(members.map((m) => m.callsOf('setHyperparams'))).toEqual([[], [[{ lr: 0.002 }]], []]);
    await store.getState().setMemberField(null, 'temperature', 0.5);
    expect(members.map((m) => m.callsOf('setHyperparams').length)).toEqual([1, 2, 1]);
    const changes = ids.map((id) => store.getState().runs.find((m) => m.id === id)!.changes);
    expect(changes[1]).toEqual([{ step: 1, field: 'lr', value: 0.002 }, { step: 1, field: 'temperature', value: 0.5 }]);
    expect(changes[0]).toEqual([{ step: 1, field: 'temperature', value: 0.5 }]);
    await store.getState().setMemberField(ids[0], 'nLayer', 3);
    expect(store.getState().error).toMatch(/nLayer cannot change during a run/);
    release();
    await done;
  });

  it('Stop pauses every member; their runs are interrupted', async () => {
    const { store, members } = world();
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1');
    const done = store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.startedAt >= 0));
    await store.getState().stopSweep();
    await done;
    expect(store.getState().sweep!.status).toBe('stopped');
    expect(store.getState().sweep!.runs.map((r) => r.status)).toEqual(['interrupted', 'interrupted']);
    expect(members.map((m) => m.callsOf('pause').length)).toEqual([1, 1]);
    await settle();
  });

  it('on the CPU each lane\'s worker is told how many lanes train at once (their engines share the cores)', async () => {
    const { store, members, release } = world({ maxMembers: 2 });
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    await store.getState().useCpu();
    store.getState().setSweepDraft('0, 0.1, 0.3');
    const done = store.getState().startSweep();
    await until(() => members.length === 2 && members.every((m) => m.startedAt >= 0));
    release();
    await done;
    expect(store.getState().sweep!.status).toBe('done');
    expect(members.map((m) => m.callsOf('useBackend'))).toEqual([0, 1, 2].map(() => [['cpu', 2]])); // 3 members, 2 at once
  });

  it('refuses a population that does not fit in memory, naming the limit; no worker is spawned', async () => {
    const { store, members } = world({ memoryBytes: 1024 });
    await store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5');
    store.getState().setSweepDraft('0, 0.1');
    await store.getState().startSweep();
    const s = store.getState().sweep!;
    expect(s.status).toBe('stopped');
    expect(s.message).toMatch(/a population member needs about \d+ MiB .* more than the limit of 1 MiB/);
    expect(members).toHaveLength(0);
  });
});
