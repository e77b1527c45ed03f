// Resume after a page reload (docs/trust.md): a run's last checkpoint and
// the state stored with it (counters, dual lambda, AdamW's moments) put into a
// fresh TrainerApi continue the same run. The oracle is the uninterrupted twin:
// the same TrainerApi stepping on, on the CPU engine (WebAssembly SIMD), bit for bit.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/config';
import { WasmBackend } from '../../src/simd/wasmBackend';
import type { StepMetrics } from '../../src/rl/runRecord';
import type { ResumeExport } from '../../src/worker/protocol';
import { TrainerApi } from '../../src/worker/trainerApi';

const SMALL: Partial<RunConfig> = {
  promptsPerStep: 2, groupSize: 3, minibatches: 2, evalEpisodes: 8, evalEvery: 2, nLayer: 1, nHead: 2, nEmbd: 16, steps: 10000,
  lambdaMode: 'budget', budget: 1, dualEta: 0.05,
};
const untimed = ({ step_time_ms: _a, tokens_per_s: _b, ...m }: StepMetrics) => m;
const apis: TrainerApi[] = [];
const newApi = () => { const a = new TrainerApi(async () => new WasmBackend(), async () => null); apis.push(a); return a; };
afterEach(async () => { for (const a of apis.splice(0)) await a.destroy(); });

/** A run stepped 3 steps (an eval at step 2), and what the page stores at that point (cloned as IndexedDB would). */
async function stepped() {
  const a = newApi();
  const s = await a.init('relay-silence', SMALL, { warmStartSteps: 2 });
  await a.step(3);
  const saved: ResumeExport = structuredClone(await a.exportResume(s.runId!));
  const best = await a.exportCheckpoint('best');
  return { a, runId: s.runId!, saved, best };
}

describe('resume (a page reload continues the same run)', () => {
  it('a fresh worker resumed from the stored checkpoint and state steps bit for bit as the uninterrupted run', async () => {
    const { a, runId, saved, best } = await stepped();
    expect(saved.state.step).toBe(3);
    expect(saved.state.optimizer!.step).toBe(6); // 3 steps x 2 minibatches
    const before = await a.getState();

    const b = newApi(); // the reloaded page's worker: no run in it
    const r = await b.resume(runId, saved.checkpoint, best, saved.state);
    expect(r.runId).toBe(runId);
    expect(r.stepCount).toBe(3);
    expect(r.evals).toEqual(before.evals);
    expect(r.bestEval).toEqual(before.bestEval);
    expect(r.lambdaTok).toBe(before.lambdaTok);
    expect(r.message).toBe('resumed the run at step 3 (optimizer state restored)');

    const [ma, mb] = [await a.step(2), await b.step(2)]; // steps 4 and 5, with an eval at 4
    expect(mb.map((m) => m.step)).toEqual([3, 4]);
    expect(mb.map(untimed)).toEqual(ma.map(untimed));
    expect(await b.exportCheckpoint('last')).toEqual(await a.exportCheckpoint('last'));
    const [ea, eb] = [await a.getState(), await b.getState()];
    expect(eb.evals).toEqual(ea.evals);
    expect(eb.lambdaTok).toBe(ea.lambdaTok);
  });

  it('without an optimizer state the run goes on from its weights and counters, the status says the optimizer restarts, and the steps differ', async () => {
    const { a, runId, saved, best } = await stepped();
    const { optimizer: _o, ...counters } = saved.state;
    const b = newApi();
    const r = await b.resume(runId, saved.checkpoint, best, counters);
    expect(r.runId).toBe(runId);
    expect(r.stepCount).toBe(3);
    expect(r.message).toBe('resumed the run at step 3 (the optimizer restarts: no optimizer state was stored with this run)');
    await Promise.all([a.step(1), b.step(1)]);
    expect(await b.exportCheckpoint('last')).not.toEqual(await a.exportCheckpoint('last'));
  });

  it('with no state at all (an older run) the step is read from the checkpoint', async () => {
    const { runId, saved } = await stepped();
    const r = await newApi().resume(runId, saved.checkpoint, null, null);
    expect([r.runId, r.stepCount, r.evals.length]).toEqual([runId, 3, 0]);
    expect(r.message).toMatch(/the optimizer restarts: no optimizer state was stored with this run/);
  });

  it('an optimizer state that does not fit is dropped with a notice naming why; unreadable counters refuse the resume and change nothing', async () => {
    const { runId, saved, best } = await stepped();
    const n = saved.state.optimizer!.m.length;
    const b = newApi();
    const short = { ...saved.state, optimizer: { ...saved.state.optimizer!, m: new Float32Array(5) } };
    expect((await b.resume(runId, saved.checkpoint, best, short)).message)
      .toBe(`resumed the run at step 3 (the optimizer restarts: the stored optimizer state has 5 / ${n} moments; the model has ${n} parameters)`);
    const nan = { ...saved.state, optimizer: { ...saved.state.optimizer!, v: saved.state.optimizer!.v.map((x, i) => (i === 7 ? NaN : x)) } };
    expect((await b.resume(runId, saved.checkpoint, best, nan)).message).toMatch(/the stored optimizer state has a non-finite second moment at index 7\)$/);
    const otherStep = { ...saved.state, step: 2 };
    expect((await b.resume(runId, saved.checkpoint, best, otherStep)).message).toMatch(/the stored optimizer state is of step 2, the last checkpoint of step 3\)$/);

    const held = await b.getState();
    const badEval = { ...saved.state, evals: [{ ...saved.state.evals[0], accuracy: 'high' as unknown as number }] };
    await expect(b.resume('run-other', saved.checkpoint, best, badEval)).rejects.toThrow('resume: the stored run state evals[0].accuracy is "high", not a number');
    await expect(b.resume('run-other', new Uint8Array([1, 2, 3]), best, saved.state)).rejects.toThrow(/^checkpoint rejected: /);
    const after = await b.getState();
    expect([after.runId, after.stepCount]).toEqual([held.runId, held.stepCount]);
  });
});
