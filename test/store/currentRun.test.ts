// One current run on the page, against fake workers: a population keeps its members' workers
// when it pauses or finishes, so the page goes on acting on it: a finished population reads
// finished and Restore best restores its chosen member; Step on a paused population steps every
// member once (no new run); Start after it finished continues the same runs with the change made
// meanwhile (a raised step count, no new init); until paused the members train to MAX_STEPS; the
// chosen member is the one the person chose, whatever is hovered or finishes.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { chosenMember, lifecycleOf } from '../../src/store/currentRun';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { MAX_STEPS } from '../../src/store/sweepPopulation';
import { FakeTrainer, fakeClient, fakeLane } from './fakeClient';

/** A member worker: each start takes one step (metrics), then finishes at its step count once released; Step takes one step. */
class Member extends FakeTrainer {
  disposed = false;
  constructor(private readonly gate: Promise<void>) { super(); }
  override async start() {
    const snap = await super.start();
    const runId = this.state.runId!, at = this.state.stepCount;
    this.emitSteps(at, at + 1);
    // (a member training until paused never reaches its count here)
    void this.gate.then(() => { if (this.state.runId === runId && this.state.status === 'running' && this.state.config!.steps < MAX_STEPS) this.finishRun(runId); });
    return snap;
  }
  override async step(n = 1) {
    await super.step(n);
    this.emitSteps(this.state.stepCount, this.state.stepCount + n);
    this.state.status = 'paused';
    return [];
  }
}

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });
const until = async (cond: () => boolean) => { for (let i = 0; i < 300 && !cond(); i++) await new Promise((r) => setTimeout(r, 5)); };

function world() {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const main = new FakeTrainer(), members: Member[] = [];
  const store = createAppStore({
    client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv(),
    spawnTrainer: () => fakeLane(() => { const m = new Member(gate); members.push(m); return m; }, (ms) => { for (const m of ms) (m as Member).disposed = true; }),
  });
  stores.push(store);
  const life = () => lifecycleOf(store.getState(), 0);
  const of = (runId: string) => members.find((m) => m.state.runId === runId)!;
  return { store, main, members, release, life, of };
}

/** A population of two (0 and 0.3) of 5 steps, started with Start. */
async function started(w: ReturnType<typeof world>) {
  await w.store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5&population=0,0.3');
  expect(w.life()).toBe('idle');
  await w.store.getState().start();
  await until(() => w.members.length === 2 && w.members.every((m) => m.state.status === 'running') && w.store.getState().sweep!.runs.every((r) => r.runId));
  expect(w.life()).toBe('training');
  return w.store.getState().sweep!.runs.map((r) => r.runId!);
}

describe('one current run', () => {
  it('a finished population reads finished; its chosen member answers the panels and Restore best; its workers stay', async () => {
    const w = world();
    const [a, b] = await started(w);
    w.release();
    await until(() => w.store.getState().sweep!.status === 'done');
    expect(w.life()).toBe('finished');
    expect(w.members.map((m) => m.disposed)).toEqual([false, false]);
    await w.store.getState().selectSweepRun(b);
    await w.store.getState().loadTranscripts();
    expect(w.store.getState().panelMember).toEqual({ runId: b, label: 'lambda_tok=0.3' });
    expect(w.of(b).callsOf('lastTranscripts').length).toBeGreaterThan(0);
    await w.store.getState().restoreBest();
    expect(w.of(b).callsOf('restoreBest')).toHaveLength(1);
    expect(w.of(a).callsOf('restoreBest')).toHaveLength(0);
    expect(w.main.callsOf('restoreBest')).toHaveLength(0);
  });

  it('Pause, then Step steps every member once: the same runs, no new one, still paused', async () => {
    const w = world();
    const ids = await started(w);
    await w.store.getState().pause();
    await until(() => w.members.every((m) => m.state.status === 'paused'));
    expect(w.life()).toBe('paused');
    const runs = w.store.getState().runs.length;
    await w.store.getState().stepOnce();
    expect(w.members.map((m) => m.callsOf('step'))).toEqual([[[1]], [[1]]]);
    expect(w.main.callsOf('step')).toHaveLength(0);
    expect(w.store.getState().runs.length).toBe(runs);
    expect(w.store.getState().sweep!.runs.map((r) => r.runId)).toEqual(ids);
    expect(w.members.map((m) => m.state.stepCount)).toEqual([2, 2]);
    expect(w.life()).toBe('paused');
    expect(w.members).toHaveLength(2); // no worker was spawned for it
  });

  it('after it finished, a slider change and Start continue the same runs for the setup\'s count more, with the new lambda_tok', async () => {
    const w = world();
    const [a, b] = await started(w);
    w.release();
    await until(() => w.store.getState().sweep!.status === 'done');
    await w.store.getState().selectSweepRun(b);
    const runs = w.store.getState().runs.length;
    await w.store.getState().setMemberField(chosenMember(w.store.getState())!.runId, 'lambdaTok', 0.5);
    await w.store.getState().start();
    await until(() => w.store.getState().sweep!.status === 'done' && w.members.every((m) => m.callsOf('start').length === 2));
    expect(w.store.getState().runs.length).toBe(runs); // no new run
    expect(w.members.map((m) => m.callsOf('init').length)).toEqual([1, 1]); // not trained again from the warm start
    expect(w.of(b).callsOf('setHyperparams')).toEqual([[{ lambdaTok: 0.5 }], [{ steps: 10 }]]);
    expect(w.of(a).callsOf('setHyperparams')).toEqual([[{ steps: 10 }]]);
    expect(w.of(b).state.config!.lambdaTok).toBe(0.5);
    expect(w.store.getState().sweep!.runs.map((r) => r.runId)).toEqual([a, b]);
    expect(w.members.map((m) => m.state.stepCount)).toEqual([10, 10]);
    expect(w.life()).toBe('finished');
  });

  it('until paused: the members train to MAX_STEPS, and Pause leaves them paused, not finished', async () => {
    const w = world();
    await w.store.getState().boot('?v=1&preset=relay-noisy-dr&steps=5&population=0,0.3&until=paused');
    expect(w.store.getState().untilPaused).toBe(true);
    await w.store.getState().start();
    await until(() => w.members.length === 2 && w.members.every((m) => m.state.status === 'running'));
    expect(w.members.map((m) => m.state.config!.steps)).toEqual([MAX_STEPS, MAX_STEPS]);
    w.release(); // a member at MAX_STEPS does not finish in this test's time: it is still training
    await until(() => false);
    expect(w.life()).toBe('training');
    await w.store.getState().pause();
    await until(() => w.store.getState().sweep!.status !== 'running');
    expect(w.life()).toBe('paused');
    // the setup and its URL keep the person's count (5), not MAX_STEPS
    expect(w.store.getState().config.steps).toBe(5);
  });

  it('the chosen member stays chosen while another is hovered or members finish', async () => {
    const w = world();
    const [a, b] = await started(w);
    expect(chosenMember(w.store.getState())?.runId).toBe(a); // the first until one is chosen
    await w.store.getState().selectSweepRun(b);
    w.store.getState().setHoveredRun(a);
    expect(chosenMember(w.store.getState())?.runId).toBe(b);
    w.of(b).finishRun(b); // b finishes first: it stays the chosen member
    await until(() => w.store.getState().sweep!.runs[1].status === 'done');
    expect(chosenMember(w.store.getState())?.runId).toBe(b);
    w.release();
  });
});
