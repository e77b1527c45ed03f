// The run buttons as one machine, table-driven against fake workers (docs/page.md, "The run's machine"):
// every action (Start/Continue, Pause, Step, Reset, Warm start) in every state (idle, training, paused,
// finished), for a lone run (K = 1) and a population (K = 4). The table's rows are written by hand from the
// doc's table, not read from the code: a state that goes elsewhere, a question not asked, or a member that
// keeps training after Reset fails its row.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { lifecycleOf, populationRun, type Lifecycle } from '../../src/store/currentRun';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { FakeTrainer, fakeClient, fakeLane, settle } from './fakeClient';

/** A trainer whose start takes one step at once and whose Step takes one; `finish()` ends it at its count. */
class Trainer extends FakeTrainer {
  disposed = false;
  override async start() {
    const snap = await super.start();
    this.emitSteps(this.state.stepCount, this.state.stepCount + 1);
    return snap;
  }
  override async step(n = 1) {
    await super.step(n);
    this.emitSteps(this.state.stepCount, this.state.stepCount + n);
    this.state.status = 'paused';
    return [];
  }
  finish() {
    if (this.state.status !== 'running') return;
    this.emitSteps(this.state.stepCount, this.state.config!.steps);
    this.finishRun(this.state.runId!);
  }
}

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });
const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
};

const STEPS = 5;
const LINKS = { 1: `?v=1&preset=relay-noisy-dr&steps=${STEPS}`, 4: `?v=1&preset=relay-noisy-dr&steps=${STEPS}&population=0,0.03,0.1,0.3` } as const;

function world(k: 1 | 4) {
  const main = new Trainer(), members: Trainer[] = [];
  const store = createAppStore({
    client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {}, persistIntervalMs: 60_000, kv: memoryKv(),
    spawnTrainer: () => fakeLane(() => { const m = new Trainer(); members.push(m); return m; }, (ms) => { for (const m of ms) (m as Trainer).disposed = true; }),
  });
  stores.push(store);
  const s = () => store.getState();
  /** The trainers of the current run: the lone run's worker, or the population's live members. */
  const trainers = (): Trainer[] => (k === 1 ? [main] : members.filter((m) => !m.disposed));
  /** Steps done: the lone run's, or the least of the population's members (they step together). */
  const steps = () => {
    if (k === 1) return store.ctx.currentSteps();
    const runs = (populationRun(s())?.runs ?? []).filter((r) => r.runId !== null);
    return runs.length === 0 ? 0 : Math.min(...runs.map((r) => store.ctx.meta(r.runId!)?.steps ?? 0));
  };
  const life = (): Lifecycle => lifecycleOf(s(), k === 1 ? store.ctx.currentSteps() : 0);
  const training = () => [main, ...members].filter((m) => !m.disposed && m.state.status === 'running').length;
  return { k, store, s, main, members, trainers, steps, life, training };
}
type World = ReturnType<typeof world>;

/** Brings a fresh page to `state`. */
async function reach(w: World, state: Lifecycle) {
  await w.s().boot(LINKS[w.k]);
  expect(w.life()).toBe('idle');
  if (state === 'idle') return;
  await w.s().start();
  await until(() => w.life() === 'training' && w.trainers().length === w.k && w.training() === w.k, 'training');
  if (state === 'training') return;
  if (state === 'paused') { await w.s().pause(); await until(() => w.life() === 'paused', 'paused'); return; }
  for (const t of w.trainers()) t.finish();
  await until(() => w.life() === 'finished', 'finished');
  await settle();
}

/** Presses `action`; answers a question if one is asked, and returns whether one was. */
async function press(w: World, action: Action): Promise<boolean> {
  const call = { start: () => w.s().start(), pause: () => w.s().pause(), step: () => w.s().stepOnce(), reset: () => w.s().reset(), warm: () => w.s().warmStart() }[action];
  await call();
  const asked = w.s().confirm !== null;
  if (asked) await w.s().answerConfirm(true);
  await settle();
  return asked;
}

type Action = 'start' | 'pause' | 'step' | 'reset' | 'warm';
/** A row of the machine: from a state, an action leads to a state; `asks`: the page asks first. */
interface Row { from: Lifecycle; action: Action; to: Lifecycle; asks?: boolean }
const TABLE: Row[] = [
  { from: 'idle', action: 'start', to: 'training' },
  { from: 'idle', action: 'step', to: 'paused' },
  { from: 'idle', action: 'reset', to: 'idle', asks: false },
  { from: 'idle', action: 'warm', to: 'idle', asks: false },
  { from: 'training', action: 'pause', to: 'paused' },
  { from: 'training', action: 'reset', to: 'idle', asks: true },
  { from: 'training', action: 'warm', to: 'idle', asks: true },
  { from: 'paused', action: 'start', to: 'training' },
  { from: 'paused', action: 'step', to: 'paused' },
  { from: 'paused', action: 'reset', to: 'idle', asks: true },
  { from: 'paused', action: 'warm', to: 'idle', asks: true },
  { from: 'finished', action: 'start', to: 'training' },
  { from: 'finished', action: 'step', to: 'paused' },
  { from: 'finished', action: 'reset', to: 'idle', asks: true },
  { from: 'finished', action: 'warm', to: 'idle', asks: true },
];

for (const k of [1, 4] as const) {
  describe(`the run's machine, K = ${k}`, () => {
    for (const row of TABLE) {
      it(`${row.from} + ${row.action} -> ${row.to}${row.asks ? ' (asks first)' : ''}`, async () => {
        const w = world(k);
        await reach(w, row.from);
        const before = w.steps();
        const asked = await press(w, row.action);
        if (row.asks !== undefined) expect(asked).toBe(row.asks);
        if (row.to === 'training') await until(() => w.life() === 'training', 'training again');
        if (row.to === 'paused') await until(() => w.life() === 'paused', 'paused after the step');
        expect(w.life()).toBe(row.to);
        if (row.to === 'idle') {
          // nothing trains that the chart does not show: no worker of the old run is running, no member trail stays
          expect(w.training()).toBe(0);
          expect(w.steps()).toBe(0);
          expect(w.s().overlay.filter((id) => w.s().runs.find((r) => r.id === id)?.member)).toEqual([]);
        }
        if (row.action === 'step') expect(w.steps()).toBe(before + 1);
        // no status reads a step past its total: the run's count (or each member's) was raised first
        for (const t of w.trainers()) expect(t.state.stepCount).toBeLessThanOrEqual(t.state.config!.steps);
      });
    }

    it('finished, Step, then Continue trains on (the count raised once by the setup\'s steps)', async () => {
      const w = world(k);
      await reach(w, 'finished');
      await press(w, 'step');
      await until(() => w.life() === 'paused', 'paused');
      await press(w, 'start');
      await until(() => w.life() === 'training', 'training');
      for (const t of w.trainers()) {
        expect(t.state.config!.steps).toBe(2 * STEPS);
        expect(t.state.stepCount).toBe(STEPS + 2); // the step, then Continue's first step
      }
    });

    it('Reset asks with what is lost: the steps of the K runs', async () => {
      const w = world(k);
      await reach(w, 'paused');
      await w.s().reset();
      expect(w.s().confirm?.body).toMatch(k === 1 ? /The current run \(1 steps\)/ : /The current population \(1 steps of 4 runs\)/);
      await w.s().answerConfirm(false);
      expect(w.life()).toBe('paused'); // No keeps everything
    });
  });
}
