// A run of two members in the one worker API (TrainerApi) on WebGPU, against the oracle of
// lone runs in the same API on the same device: two members of the first screen's preset,
// stacked, one of them changed live before its first step, each equal to its lone run (evals,
// transcripts; optimizer moments to tolerance); each member's telemetry under its own run id; a
// member's resume export continued by a lone trainer; and the refusals (members that cannot
// stack, a shared field changed for one member, an unknown run). Small shapes: SwiftShader is slow.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/config';
import { CpuBackend } from '../../src/reference/cpuBackend';
import type { TelemetryEvent, TrainerState } from '../../src/worker/protocol';
import { TrainerApi } from '../../src/worker/trainerApi';
import { noGpu, theGpu } from './device';

const dir = new URL('../../public/checkpoints/', import.meta.url);
const load = async (file: string) => new Uint8Array(await readFile(new URL(file, dir)));
const PRESET = 'relay-noisy-quick';
const SMALL: Partial<RunConfig> = { promptsPerStep: 2, groupSize: 4, minibatches: 2, evalEpisodes: 8, evalEvery: 1, steps: 2 };

async function untilIdle<T extends { status: string }>(get: () => Promise<T>): Promise<T> {
  for (;;) {
    const s = await get();
    if (s.status !== 'running') return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A lone run of `overrides` in the trainer worker on the same device, to its last step. */
async function lone(overrides: Partial<RunConfig>, change?: Partial<RunConfig>) {
  const api = new TrainerApi(async () => theGpu(), load);
  const { runId } = await api.init(PRESET, overrides);
  if (change) await api.setHyperparams(change); // pending until its first step, as the member's
  await api.start();
  const state = await untilIdle(() => api.getState());
  return { state, transcripts: await api.lastTranscripts(2), resume: await api.exportResume(runId!) };
}

describe.skipIf(noGpu)('a population in the one worker API on WebGPU', () => {
  it('two stacked members equal their lone runs; telemetry, transcripts and resume exports are each member\'s own', async () => {
    const events: TelemetryEvent[] = [];
    const pop = new TrainerApi(async () => theGpu(), load);
    await pop.telemetryPort({ postMessage: (m: unknown) => events.push(m as TelemetryEvent) });
    const members = [{ ...SMALL, lambdaTok: 0.1 }, { ...SMALL, lambdaTok: 0.3 }]; // lambda_tok > 0: every group has a reward spread to learn from
    await pop.init(PRESET, members);
    const loaded = await pop.getStates();
    const ids = loaded.map((s) => s.runId!);
    expect(new Set(ids).size).toBe(2);
    expect(loaded.map((s) => s.warmStart)).toEqual([expect.stringMatching(/relay-noisy-warm/), expect.stringMatching(/relay-noisy-warm/)]);
    // a shared field for one member is refused, naming it; a member field moves only that member
    await expect(pop.setHyperparams({ temperature: 0.5 }, ids[0])).rejects.toThrow(/temperature for member 0: one value for every member/);
    await pop.setHyperparams({ lambdaTok: 0.2 }, ids[1]);
    expect((await pop.getStates()).map((s) => s.config!.lambdaTok)).toEqual([0.1, 0.2]);
    await pop.start();
    const states: TrainerState[] = (await untilIdle(async () => (await pop.getStates())[0])) && await pop.getStates();
    expect(states.map((s) => [s.status, s.message])).toEqual([['idle', 'finished 2 steps'], ['idle', 'finished 2 steps']]);
    expect(theGpu().takeErrors()).toEqual([]);

    // the oracle: each member alone, its live change made before its first step
    const alone = [await lone(members[0]), await lone(members[1], { lambdaTok: 0.2 })];
    for (const k of [0, 1]) {
      const what = `member ${k}`;
      // greedy evals decide on argmax: equal to the lone run's (the stacked kernels sum in another order only)
      expect(states[k].evals.map((e) => [e.step, e.accuracy, e.tokens, e.lambdaTok]), what).toEqual(alone[k].state.evals.map((e) => [e.step, e.accuracy, e.tokens, e.lambdaTok]));
      const mine = await pop.lastTranscripts(2, ids[k]);
      expect(mine.train!.episodes.map((e) => e.turns.map((t) => t.ids)), `${what}: last step's sampled tokens`).toEqual(alone[k].transcripts.train!.episodes.map((e) => e.turns.map((t) => t.ids)));
      expect(mine.train!.episodes.map((e) => e.advantage)).toEqual(alone[k].transcripts.train!.episodes.map((e) => e.advantage));
      // telemetry under the member's run id: 2 metrics rows, evals at steps 0, 1, 2, and the finish
      const own = events.filter((e) => e.runId === ids[k]);
      expect(own.filter((e) => e.kind === 'metrics').reduce((n, e) => n + (e.kind === 'metrics' ? e.rows : 0), 0), what).toBe(2);
      expect(own.flatMap((e) => (e.kind === 'eval' ? [e.record.step] : [])), what).toEqual([0, 1, 2]);
      expect(own.filter((e) => e.kind === 'status').at(-1)).toMatchObject({ status: 'idle', message: 'finished 2 steps' });
      // its resume export: its own optimizer moments (the lone run's, to f32 tolerance; another member's differ wholly)
      const { state } = await pop.exportResume(ids[k]);
      const m = state.optimizer!.m, want = alone[k].resume.state.optimizer!.m;
      expect(m.length).toBe(want.length);
      expect(state.optimizer!.step).toBe(alone[k].resume.state.optimizer!.step);
      const scale = Math.max(...want.map(Math.abs));
      expect(scale, `${what}: the lone run learned`).toBeGreaterThan(0);
      const err = Math.max(...m.map((x, i) => Math.abs(x - want[i])));
      expect(err, `${what}: AdamW m vs the lone run's (scale ${scale})`).toBeLessThan(1e-2 * scale);
    }

    // a lone trainer continues a member from its export (the page's Resume of a sweep member)
    const exported = await pop.exportResume(ids[1]);
    const best = await pop.exportCheckpoint('best', ids[1]);
    const cpu = new TrainerApi(async () => new CpuBackend(), load);
    const resumed = await cpu.resume(ids[1], exported.checkpoint, best, exported.state);
    expect(resumed.message).toMatch(/^resumed the run at step 2 \(optimizer state restored\)/);
    expect(resumed.config!.lambdaTok).toBe(0.2);
    expect(resumed.evals.map((e) => e.accuracy)).toEqual(states[1].evals.map((e) => e.accuracy));
    await cpu.destroy();
    await pop.destroy();
  }, 900_000);

  it('refuses, starting nothing: members that differ in a shape field, an unknown run', async () => {
    const pop = new TrainerApi(async () => theGpu(), load);
    await expect(pop.init(PRESET, [SMALL, { ...SMALL, groupSize: 8 }])).rejects.toThrow(/members 0 and 1 differ in groupSize \(4 vs 8\)/);
    expect((await pop.getStates()).map((s) => s.runId)).toEqual([null]);
    await expect(pop.start()).rejects.toThrow(/no run yet/);
    await pop.init(PRESET, [SMALL]);
    await expect(pop.exportCheckpoint('last', 'run-nope')).rejects.toThrow(/run "run-nope" is no longer in the trainer/);
    await pop.destroy();
  }, 300_000);
});
