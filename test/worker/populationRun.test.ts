// A run of K = 2 members in the one worker API (TrainerApi), on the CPU engine (WebAssembly SIMD) in process:
// every guarantee of a lone run holds per member. A member that diverges pauses the run and
// is named (its flag, not the other's); a lost device resumes every member from its last
// eval with its optimizer state (the retried step equals the first try, member by member);
// a live change the stacking rules refuse is refused at the call, naming member and field.
import { afterEach, describe, expect, it } from 'vitest';
import type { MemberStack, Tensor } from '../../src/backend';
import type { RunConfig } from '../../src/config';
import { readCheckpoint } from '../../src/model/checkpoint';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { TrainerApi } from '../../src/worker/trainerApi';

const PRESET = 'relay-silence';
const SMALL: Partial<RunConfig> = { promptsPerStep: 4, groupSize: 4, minibatches: 2, evalEpisodes: 8, evalEvery: 1, nLayer: 1, nHead: 2, nEmbd: 16, steps: 1000 };
const MEMBERS: Partial<RunConfig>[] = [{ ...SMALL, seed: 1, lambdaTok: 0.05 }, { ...SMALL, seed: 2, lambdaTok: 0.3 }];
const WARM = { warmStartSteps: 3 };

/** The CPU engine (WebAssembly SIMD) that can act as a lost device (every read fails) or make one member's gradient norm NaN. */
class FaultyBackend extends WasmBackend {
  lost = false;
  poisonMember: number | null = null;
  override async read(t: Tensor, offset?: number, size?: number) {
    if (this.lost) throw new Error('WebGPU device lost (test: unknown: the device went away)');
    return super.read(t, offset, size);
  }
  override sumSquares(out: Tensor, x: Tensor, n: number, members?: MemberStack): void {
    super.sumSquares(out, x, n, members);
    if (this.poisonMember !== null) (out as unknown as { data: Float32Array }).data[this.poisonMember] = NaN;
  }
}

let api: TrainerApi | null = null;
afterEach(async () => { await api?.destroy(); api = null; });

function make(backends: FaultyBackend[]): TrainerApi {
  api = new TrainerApi(async () => { const b = new FaultyBackend(); backends.push(b); return b; }, async () => null);
  return api;
}

const weightsOf = async (a: TrainerApi, runId: string) => readCheckpoint(await a.exportCheckpoint('last', runId)).weights;

describe('a population in the one worker API', () => {
  it('a member that diverges pauses the run and is named; the other member trained on and carries no flag', async () => {
    const backends: FaultyBackend[] = [];
    const a = make(backends);
    await a.init(PRESET, MEMBERS, WARM);
    const [s0, s1] = await a.getStates();
    expect(s0.runId).not.toBe(s1.runId);
    await a.step(1);
    const before = [await weightsOf(a, s0.runId!), await weightsOf(a, s1.runId!)];
    backends[0].poisonMember = 1;
    const metrics = await a.step(10);
    expect(metrics.length).toBeLessThan(10); // it paused: 2 skipped updates a step, 3 in a row trip the watch
    const [m0, m1] = await a.getStates();
    expect(m0.status).toBe('paused');
    expect(m0.message).toMatch(new RegExp(`member 1 \\(${s1.runId}\\) diverged: \\d+ consecutive updates were skipped`));
    expect(m1.flags.filter((f) => f.kind === 'diverged')).toHaveLength(1);
    expect(m0.flags.filter((f) => f.kind === 'diverged' || f.kind === 'nonfinite-update')).toHaveLength(0);
    expect(m1.skippedUpdates).toBeGreaterThanOrEqual(3);
    expect(m0.skippedUpdates).toBe(0);
    expect(await weightsOf(a, s1.runId!)).toEqual(before[1]); // its updates were all skipped
    expect(await weightsOf(a, s0.runId!)).not.toEqual(before[0]);
  });

  it('a lost device mid-run resumes every member from its last eval with its optimizer state: the retried step equals the first try', async () => {
    const backends: FaultyBackend[] = [];
    const a = make(backends);
    await a.init(PRESET, MEMBERS.map((m) => ({ ...m, evalEvery: 2 })), WARM);
    const ids = (await a.getStates()).map((s) => s.runId!);
    await a.step(2); // evals at 0 and 2: the resume point is step 2
    await a.step(1);
    const firstTry = (await a.getStates()).map((s) => s.evals.length);
    const afterFirst = await Promise.all(ids.map((id) => weightsOf(a, id)));
    backends[0].lost = true;
    await a.step(1); // fails on the lost device, recovers, takes step 2 again
    expect(backends).toHaveLength(2);
    const states = await a.getStates();
    expect(states.map((s) => s.runId)).toEqual(ids);
    for (const [k, s] of states.entries()) {
      expect(s.stepCount).toBe(3);
      expect(s.recovery).toMatchObject({ step: 2, lostAtStep: 3, count: 1 });
      expect(s.evals.map((e) => e.step)).toEqual([0, 2]);
      expect(s.evals).toHaveLength(firstTry[k]);
      // the retried step sampled from member k's step-2 weights with its seed, and AdamW's moments came back: bit for bit
      expect(await weightsOf(a, ids[k])).toEqual(afterFirst[k]);
    }
  });

  it('refuses at the call a live change the members cannot take together, naming member and field; a member\'s own field goes to it alone', async () => {
    const a = make([]);
    await a.init(PRESET, MEMBERS, WARM);
    const [s0, s1] = await a.getStates();
    await expect(a.setHyperparams({ dynamicSampling: 'on' })).rejects.toThrow(/dynamicSampling for every member: refused, dynamic sampling/);
    await expect(a.setHyperparams({ advantage: 'batch' })).rejects.toThrow(/advantage for every member: refused, advantage=batch/);
    await expect(a.setHyperparams({ groupSize: 2 }, s1.runId)).rejects.toThrow(/groupSize for member 1: one value for every member/);
    await expect(a.setHyperparams({ lambdaTok: 0.5 }, 'run-nope')).rejects.toThrow(/run "run-nope" is no longer in the trainer/);
    expect((await a.getStates()).map((s) => s.pending)).toEqual([{}, {}]); // nothing was kept of the refused changes
    const changed = await a.setHyperparams({ lambdaTok: 0.5 }, s1.runId);
    expect(changed.runId).toBe(s1.runId);
    await a.setHyperparams({ groupSize: 2 });
    await a.step(1);
    const [m0, m1] = await a.getStates();
    expect(m0.runId).toBe(s0.runId);
    expect([m0.config!.groupSize, m1.config!.groupSize]).toEqual([2, 2]);
    expect([m0.lambdaTok, m1.lambdaTok]).toEqual([0.05, 0.5]);
  });
});
