// The first visit: no link, nothing remembered: the page opens on a population over
// lambda_tok of the quick noisy relay, in the URL; Start trains it side by side and
// Pause stops it; a preset picked by hand is one run again. A population in a link is
// read like any parameter (a bad one is reported, and nothing else is lost).
import { afterEach, describe, expect, it } from 'vitest';
import { createAppStore, memoryKv, type AppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryPrefs } from '../../src/store/pagePrefs';
import { MemoryRunStorage } from '../../src/store/runsDb';
import { decodeSetup, encodeSetup, FIRST_VISIT, isFirstVisit } from '../../src/store/urlState';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { readStoredRun, readStoredRuns } from '../../src/store/storedRun';
import { FakeTrainer, fakeClient, fakeLane } from './fakeClient';

const stores: AppStore[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.ctx.recorder.stop(); });

function world(prefs: unknown = null) {
  const main = new FakeTrainer();
  const members: FakeTrainer[] = [];
  const urls: string[] = [];
  const store = createAppStore({
    client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: (q) => urls.push(q), download: () => {},
    persistIntervalMs: 60_000, kv: memoryKv(), prefs: new MemoryPrefs(prefs),
    spawnTrainer: () => fakeLane(() => { const m = new FakeTrainer(); members.push(m); return m; }),
  });
  stores.push(store);
  return { store, main, members, urls };
}
const until = async (cond: () => boolean) => { for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5)); };

describe('a first visit', () => {
  it('is a bare link with nothing remembered', () => {
    expect(isFirstVisit('', null, 0, false)).toBe(true);
    expect(isFirstVisit('?', null, 0, false)).toBe(true);
    expect(isFirstVisit('?preset=relay-silence', null, 0, false)).toBe(false); // a link names a setup
    expect(isFirstVisit('', { guideDismissed: true }, 0, false)).toBe(false); // prefs saved: been here
    expect(isFirstVisit('', null, 1, false)).toBe(false); // a stored run
    expect(isFirstVisit('', null, 0, true)).toBe(false); // a stored sweep
  });

  it('opens on the population over lambda_tok of the quick noisy relay, written in the URL', async () => {
    const { store, main, urls } = world();
    await store.getState().boot('');
    const s = store.getState();
    expect(s.preset).toBe('relay-noisy-quick');
    expect(s.population).toEqual([0, 0.03, 0.1, 0.3]);
    expect(s.config.channelNoise).toBe(0.3);
    expect(s.config.advantage).toBe('none'); // r - mean: lambda_tok keeps its units, so the runs spread along a curve
    expect(main.callsOf('init')).toEqual([['relay-noisy-quick', {}]]); // the task card's policy, loaded
    expect(urls.at(-1)).toBe('v=1&preset=relay-noisy-quick&population=0%2C0.03%2C0.1%2C0.3&until=paused');
  });

  it('a return visit with a bare link opens on the default preset, one run', async () => {
    const { store } = world({ guideDismissed: true });
    await store.getState().boot('');
    expect(store.getState().preset).toBe('relay-silence');
    expect(store.getState().population).toBeNull();
  });

  it('Start trains one member per value side by side, Pause stops them; picking a preset makes the setup one run', async () => {
    const { store, main, members, urls } = world();
    await store.getState().boot('');
    await store.getState().start();
    await until(() => members.length === 4 && store.getState().sweep!.runs.every((r) => r.status === 'running' && r.runId !== null));
    const sweep = store.getState().sweep!;
    expect(sweep.status).toBe('running');
    expect(sweep.preset).toBe('relay-noisy-quick');
    expect(sweep.runs.map((r) => r.value)).toEqual([0, 0.03, 0.1, 0.3]);
    expect(members.map((m) => m.callsOf('init')[0])).toEqual([0, 0.03, 0.1, 0.3].map((v) => ['relay-noisy-quick', { lambdaMode: 'manual', lambdaTok: v }]));
    expect(main.callsOf('start')).toEqual([]); // the main worker does not train
    // each member's record says which sweep and value it is (the chart groups by it)
    for (const r of sweep.runs) expect(store.getState().runs.find((m) => m.id === r.runId)?.member).toEqual({ sweep: sweep.id, axis: 'lambdaTok', value: r.value });
    await store.getState().pause();
    expect(store.getState().sweep!.status).toBe('stopped');
    await until(() => store.getState().sweep!.runs.every((r) => r.status === 'interrupted'));
    // Start again goes on with the same population (not a new sweep)
    const id = store.getState().sweep!.id;
    await store.getState().start();
    expect(store.getState().sweep!.id).toBe(id);
    expect(store.getState().sweep!.status).toBe('running');
    await store.getState().pause();
    await until(() => store.getState().sweep!.runs.every((r) => r.status === 'interrupted'));
    await store.getState().choosePreset('relay-silence');
    expect(store.getState().population).toBeNull();
    expect(urls.at(-1)).toBe('v=1&preset=relay-silence');
  });

  it('typing other values in the Sweep panel changes the population Start trains, and the URL', async () => {
    const { store, urls } = world();
    await store.getState().boot('');
    store.getState().setSweepDraft('0, 0.2');
    expect(store.getState().population).toEqual([0, 0.2]);
    expect(urls.at(-1)).toBe('v=1&preset=relay-noisy-quick&population=0%2C0.2&until=paused');
    store.getState().setSweepDraft('0, x'); // not valid: the population stays
    expect(store.getState().population).toEqual([0, 0.2]);
    store.getState().setPopulation(null); // one run, still until paused (the page's choice, kept)
    expect(urls.at(-1)).toBe('v=1&preset=relay-noisy-quick&until=paused');
  });
});

/** A member worker whose evaluate() records the warm start's point (the fake's throws). */
class EvalTrainer extends FakeTrainer {
  disposed = false;
  override async evaluate() { this.emitEval(this.state.stepCount, 1, 6); return this.state.evals.at(-1)!; }
}

describe('members loaded ahead of Start', () => {
  function cpuWorld() {
    const main = new FakeTrainer();
    const members: EvalTrainer[] = [];
    const store = createAppStore({
      client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {},
      persistIntervalMs: 60_000, kv: memoryKv(), prefs: new MemoryPrefs(null),
      spawnTrainer: () => { const m = new EvalTrainer(); members.push(m); return { ...fakeClient(m), dispose: () => { m.disposed = true; } }; },
    });
    stores.push(store);
    return { store, main, members };
  }

  it('on the CPU backend a first visit loads each member (CPU, warm start, its step-0 eval) before Start, and Start trains those', async () => {
    const { store, members } = cpuWorld();
    await store.getState().boot('');
    expect(members).toHaveLength(0); // WebGPU answered: nothing is loaded until the CPU is chosen
    await store.getState().useCpu();
    await until(() => members.length === 4 && members.every((m) => m.state.evals.length === 1));
    await until(() => store.getState().populationLoaded === 4);
    expect(store.getState().populationLoaded).toBe(4);
    expect(members.map((m) => m.calls.map((c) => c.method).filter((x) => x !== 'getState'))).toEqual(members.map(() => ['useBackend', 'init']));
    // the four train at once: each is told so (its CPU engine takes a quarter of the cores' threads)
    expect(members.map((m) => m.callsOf('useBackend')[0])).toEqual(members.map(() => ['cpu', 4]));
    expect(members.map((m) => m.callsOf('init')[0])).toEqual([0, 0.03, 0.1, 0.3].map((v) => ['relay-noisy-quick', { lambdaMode: 'manual', lambdaTok: v }]));
    await store.getState().start();
    await until(() => store.getState().sweep!.runs.every((r) => r.runId !== null) && members.every((m) => m.state.status === 'running'));
    expect(members).toHaveLength(4); // no new worker: the loaded ones train
    expect(store.getState().populationLoaded).toBe(0); // all taken
    const runs = store.getState().sweep!.runs;
    expect(runs.map((r) => r.runId)).toEqual(members.map((m) => m.state.runId));
    // each record holds the step-0 eval made while loading
    for (const r of runs) expect(store.getState().runs.find((m) => m.id === r.runId)!.evals.map((e) => [e.step, e.accuracy, e.tokens])).toEqual([[0, 1, 6]]);
    await store.getState().pause();
  });

  it('lets go of the loaded members when the setup no longer asks for them', async () => {
    const { store, members } = cpuWorld();
    await store.getState().boot('');
    await store.getState().useCpu();
    await until(() => members.length === 4);
    store.getState().setSweepDraft('0, 0.03, 0.1'); // 0.3 is no longer asked for
    expect(members.map((m) => m.disposed)).toEqual([false, false, false, true]);
    await until(() => store.getState().populationLoaded === 3);
    expect(store.getState().populationLoaded).toBe(3);
    await store.getState().choosePreset('relay-silence'); // one run: none is
    expect(members.map((m) => m.disposed)).toEqual([true, true, true, true]);
    expect(members).toHaveLength(4);
  });
});

describe('a population in a link', () => {
  it('round-trips, on the axis of the preset (budgets in budget mode)', () => {
    const q = encodeSetup('relay-noisy-dr', presetConfig(findPreset('relay-noisy-dr')), [0, 0.1, 0.3]);
    expect(q).toBe('v=1&preset=relay-noisy-dr&population=0%2C0.1%2C0.3');
    expect(decodeSetup(`?${q}`)).toEqual({ preset: 'relay-noisy-dr', overrides: {}, population: [0, 0.1, 0.3], untilPaused: false, recipeAtStart: true, problems: [] });
    // training until paused travels in the link too; any other value of until is reported by name
    const open = encodeSetup('relay-noisy-dr', presetConfig(findPreset('relay-noisy-dr')), [0, 0.1], true);
    expect(open).toBe('v=1&preset=relay-noisy-dr&population=0%2C0.1&until=paused');
    expect(decodeSetup(`?${open}`).untilPaused).toBe(true);
    const bad = decodeSetup('?preset=relay-noisy-dr&until=forever');
    expect(bad.untilPaused).toBe(false);
    expect(bad.problems).toEqual(['until=forever: the one value read is until=paused; Start trains to steps']);
    expect(decodeSetup('?preset=relay-budget&population=4,2,1').population).toEqual([4, 2, 1]);
    expect(decodeSetup(`?preset=${FIRST_VISIT.preset}&population=0,0.03,0.1,0.3`).population).toEqual(FIRST_VISIT.population);
  });
  it('a bad population is reported by name and not applied; every other parameter still is', () => {
    const d = decodeSetup('?preset=relay-noisy-dr&lambdaTok=0.2&population=0,x');
    expect(d.population).toBeNull();
    expect(d.overrides).toEqual({ lambdaTok: 0.2 });
    expect(d.problems).toEqual([expect.stringMatching(/^population \(lambda_tok values\): entry 2 \("x"\): .*; Start trains one run$/)]);
    expect(decodeSetup('?preset=relay-noisy-dr&population=0.1').problems).toEqual([expect.stringMatching(/population needs at least two values, got "0\.1"; Start trains one run/)]);
    expect(decodeSetup('?preset=relay-noisy-dr&population=0,11').problems[0]).toMatch(/entry 2 \("11"\)/); // lambda_tok's range: [0, 10]
    expect(decodeSetup(`?preset=relay-noisy-dr&population=${Array.from({ length: 17 }, (_, i) => i / 100).join(',')}`).problems[0]).toMatch(/at most 16 values \(members\), got 17/);
  });
  it('boot applies it and lists the problem of a bad one', async () => {
    const { store } = world({});
    await store.getState().boot('?preset=relay-noisy-dr&population=0,0.3');
    expect(store.getState().population).toEqual([0, 0.3]);
    const b = world({});
    await b.store.getState().boot('?preset=relay-noisy-dr&population=0,,1');
    expect(b.store.getState().population).toBeNull();
    expect(b.store.getState().urlProblems).toEqual([expect.stringMatching(/^population \(lambda_tok values\) must be comma-separated numbers/)]);
  });
});

describe('the hovered run', () => {
  it('is kept in the store until the mouse leaves (a repeat changes nothing)', () => {
    const { store } = world();
    let updates = 0;
    store.subscribe(() => { updates++; });
    store.getState().setHoveredRun('r1');
    store.getState().setHoveredRun('r1');
    expect(store.getState().hoveredRun).toBe('r1');
    expect(updates).toBe(1);
    store.getState().setHoveredRun(null);
    expect(store.getState().hoveredRun).toBeNull();
  });
});

/** A member that takes one step and finishes at once (final eval from its lambda_tok). */
class QuickMember extends FakeTrainer {
  override async start() {
    const snap = await super.start();
    const runId = this.state.runId!;
    this.emitSteps(0, 1);
    queueMicrotask(() => {
      this.finishRun(runId);
    });
    return snap;
  }
}

describe('the same values on a sister preset', () => {
  it('keeps the first population on the chart and trains the sister\'s beside it: two sweeps, two groups of members', async () => {
    const main = new FakeTrainer();
    const store = createAppStore({
      client: fakeClient(main), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {},
      persistIntervalMs: 60_000, kv: memoryKv(), prefs: new MemoryPrefs({}), spawnTrainer: () => fakeClient(new QuickMember()),
    });
    stores.push(store);
    await store.getState().boot('?preset=relay-noisy&groupSize=4&steps=5&population=0,0.1');
    await store.getState().start();
    await until(() => store.getState().sweep?.status === 'done');
    const first = store.getState().sweep!;
    expect(first.preset).toBe('relay-noisy');
    await store.getState().sweepSister('relay-noisy-dr');
    await until(() => store.getState().sweep?.status === 'done' && store.getState().sweep!.id !== first.id);
    const second = store.getState().sweep!;
    expect(second.preset).toBe('relay-noisy-dr');
    expect(second.runs.map((r) => r.value)).toEqual([0, 0.1]);
    expect(second.base).toEqual({ groupSize: 4, steps: 5 }); // the size of the first; not the field the two differ in (advantage)
    expect(main.callsOf('init').at(-1)).toEqual(['relay-noisy-dr', { groupSize: 4, steps: 5 }]);
    expect(store.getState().population).toEqual([0, 0.1]);
    // both sweeps' members are shown, each recording its own sweep
    const shownMembers = store.getState().runs.filter((m) => store.getState().overlay.includes(m.id) && m.member).map((m) => [m.preset, m.member!.sweep, m.member!.value]);
    expect(shownMembers.sort()).toEqual([
      ['relay-noisy', first.id, 0], ['relay-noisy', first.id, 0.1], ['relay-noisy-dr', second.id, 0], ['relay-noisy-dr', second.id, 0.1],
    ].sort());
  });
});

describe('a member\'s record in storage', () => {
  const stored = (member: unknown) => ({
    id: 'r1', name: 'relay-noisy-dr sweep lambda_tok=0.1', preset: 'relay-noisy-dr', config: presetConfig(findPreset('relay-noisy-dr')), createdAt: 1, updatedAt: 2,
    status: 'finished', steps: 5, evals: [], bestEval: null, flags: [], warmStart: null, backend: 'cpu', checkpoints: {}, colorIndex: 0, source: 'trained', member,
  });
  it('keeps its sweep, axis and value; a wrong one is refused by name and the run left in storage', () => {
    expect(readStoredRun(stored({ sweep: 'sweep-1', axis: 'lambdaTok', value: 0.1 })).meta.member).toEqual({ sweep: 'sweep-1', axis: 'lambdaTok', value: 0.1 });
    expect(readStoredRuns([stored({ sweep: 'sweep-1', axis: 'lr', value: 0.1 })]).notice).toMatch(/run\.member\.axis "lr" is not lambdaTok or budget/);
    expect(readStoredRuns([stored({ sweep: 'sweep-1', axis: 'budget', value: 'x' })]).runs).toEqual([]);
  });
});

describe('members loaded ahead of Start, within the limits', () => {
  it('loads only as many as train at once (the member limit), the first values first', async () => {
    const members: FakeTrainer[] = [];
    const store = createAppStore({
      client: fakeClient(new FakeTrainer()), storage: new MemoryRunStorage(), hub: new MetricsHub(), replaceUrl: () => {}, download: () => {},
      persistIntervalMs: 60_000, kv: memoryKv(), prefs: new MemoryPrefs({ backend: 'cpu' }), population: { maxMembers: 2 },
      spawnTrainer: () => { const m = new FakeTrainer(); members.push(m); return fakeClient(m); },
    });
    stores.push(store);
    await store.getState().boot('?preset=relay-noisy-quick&population=0,0.03,0.1,0.3');
    await until(() => members.length === 2 && members.every((m) => m.callsOf('init').length === 1));
    await new Promise((r) => setTimeout(r, 20));
    expect(members.map((m) => m.callsOf('init')[0])).toEqual([0, 0.03].map((v) => ['relay-noisy-quick', { lambdaMode: 'manual', lambdaTok: v }]));
  });
});
