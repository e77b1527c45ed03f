// The worker methods the page uses beyond training: transcripts with log-probs,
// the anatomy of a step, restoring the best weights, exporting only the run
// asked for, choosing the backend, and resuming after a lost GPU device.
// In-process TrainerApi on the CPU backend (a small model, a 3-step warm start).
import { afterEach, describe, expect, it } from 'vitest';
import type { Tensor } from '../../src/backend';
import type { RunConfig } from '../../src/config';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { LOSSES } from '../../src/contract/losses';
import { readCheckpoint } from '../../src/model/checkpoint';
import { WasmBackend } from '../../src/simd/wasmBackend';
import type { BackendPreference } from '../../src/worker/protocol';
import { TrainerApi } from '../../src/worker/trainerApi';

const PRESET = 'relay-silence';
const SMALL: Partial<RunConfig> = { promptsPerStep: 4, groupSize: 4, minibatches: 2, evalEpisodes: 16, evalEvery: 1, nLayer: 1, nHead: 2, nEmbd: 16, steps: 1000 };
const WARM = { warmStartSteps: 3 };

/** The CPU engine (WebAssembly SIMD: the reference's oracle tests are elsewhere) with a switch that makes it behave like a lost WebGPU device (every read fails). */
class LosableBackend extends WasmBackend {
  lost = false;
  override async read(t: Tensor, offset?: number, size?: number) {
    if (this.lost) throw new Error('WebGPU device lost (test: unknown: the device went away)');
    return super.read(t, offset, size);
  }
}

let api: TrainerApi | null = null;
afterEach(async () => { await api?.destroy(); api = null; });

function make(backends: LosableBackend[] = [], prefs: BackendPreference[] = []): TrainerApi {
  api = new TrainerApi(async (prefer) => { prefs.push(prefer); const b = new LosableBackend(); backends.push(b); return b; }, async () => null,
    async () => ({ ok: false, reason: 'test: no adapter' }));
  return api;
}

const weightsOf = async (a: TrainerApi, which: 'last' | 'best') => readCheckpoint(await a.exportCheckpoint(which)).weights;

describe('page-facing TrainerApi methods', () => {
  it('transcripts carry each generated token with its sampling log-prob, matching the rendered lines', async () => {
    const a = make();
    await a.init(PRESET, SMALL, WARM);
    await a.step(1);
    const tr = await a.lastTranscripts(8);
    const eps = [...tr.train!.episodes, ...tr.eval!.episodes];
    expect(eps.length).toBe(16);
    for (const ep of eps) {
      expect(ep.turns.length).toBeGreaterThan(0);
      // the env's own record of what was generated (TranscriptLine.tokens) is the same as the sampled ids, role by role
      const generatedLines = ep.lines.filter((l) => l.generated);
      for (const role of new Set(ep.turns.map((t) => t.role))) {
        expect(ep.turns.filter((t) => t.role === role).map((t) => t.ids)).toEqual(generatedLines.filter((l) => l.role === role).map((l) => l.tokens));
      }
      for (const t of ep.turns) {
        expect(t.logp).toHaveLength(t.ids.length);
        expect(t.tokens).toHaveLength(t.ids.length);
        for (const lp of t.logp) { expect(Number.isFinite(lp)).toBe(true); expect(lp).toBeLessThanOrEqual(1e-6); }
        expect(t.silent).toBe(t.message && t.tokens[0] === 'EOS');
      }
    }
    // greedy eval tokens are the most likely ones: each has probability >= 1/V
    for (const ep of tr.eval!.episodes) for (const t of ep.turns) for (const lp of t.logp) expect(Math.exp(lp)).toBeGreaterThan(1 / 64);
  });

  it('stepAnatomy: ratios are exactly 1 when the step did not move the weights (lr 0), advantages follow docs/rl.md section 3', async () => {
    const a = make();
    await a.init(PRESET, { ...SMALL, lr: 0 }, WARM);
    const vocab = createEnv(presetConfig(findPreset(PRESET), SMALL as Record<string, unknown>)).vocab;
    await a.step(1);
    for (let g = 0; g < 4; g++) {
      const an = await a.stepAnatomy(g);
      expect(an).toMatchObject({ step: 0, group: g, groups: 4, groupSize: 4, algorithm: 'gspo', advantageMode: 'group' });
      expect(an.episodes.map((e) => e.episode)).toEqual([4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3]);
      const r = an.episodes.map((e) => e.reward.reward);
      const mean = r.reduce((x, y) => x + y, 0) / 4;
      const std = Math.sqrt(r.reduce((x, y) => x + (y - mean) ** 2, 0) / 3);
      expect(an.mean).toBeCloseTo(mean, 12);
      expect(an.std).toBeCloseTo(std, 12);
      const allEqual = r.every((x) => x === r[0]);
      expect(an.zeroStd).toBe(allEqual);
      an.episodes.forEach((e, i) => {
        expect(e.advantage).toBeCloseTo(allEqual ? 0 : (r[i] - mean) / (std + 1e-4), 6);
        expect(e.sequences.length).toBeGreaterThan(0);
        // each sequence's tokens are what the env recorded as generated (relay: no continued turns)
        expect(e.sequences.map((q) => q.tokens)).toEqual(e.lines.filter((l) => l.generated).map((l) => l.tokens.map((id) => vocab[id])));
        expect(e.sequences.map((q) => q.length)).toEqual(e.sequences.map((q) => q.tokenRatios.length));
        for (const s of e.sequences) {
          expect(Math.abs(s.ratio - 1)).toBeLessThan(1e-5); // same weights as at sampling
          for (const rho of s.tokenRatios) expect(Math.abs(rho - 1)).toBeLessThan(1e-5);
          expect(s.clipped).toBe(false);
          expect(s.loss).toBeCloseTo(-e.advantage, 4); // -min(1*A, clip(1)*A)
        }
      });
    }
    await expect(a.stepAnatomy(4)).rejects.toThrow(/group must be an integer in \[0, 3\]/);
    // addressed by run id (a member in a lane of its own): the same answer; another run's id is refused by name
    const runId = (await a.getState()).runId!;
    expect(await a.stepAnatomy(2, runId)).toEqual(await a.stepAnatomy(2));
    await expect(a.stepAnatomy(0, 'run-elsewhere')).rejects.toThrow(/run-elsewhere/);
  });

  it('stepAnatomy after a real update: s_i = exp(mean log rho_t), and the clip rule of docs/rl.md section 4', async () => {
    const a = make();
    await a.init(PRESET, { ...SMALL, lr: 0.01 }, WARM);
    await a.step(1);
    const an = await a.stepAnatomy(1);
    let moved = 0;
    for (const e of an.episodes) for (const s of e.sequences) {
      const meanLog = s.tokenRatios.reduce((x, rho) => x + Math.log(rho), 0) / s.tokenRatios.length;
      expect(s.logRatio).toBeCloseTo(meanLog, 5);
      expect(s.ratio).toBeCloseTo(Math.exp(s.logRatio), 6);
      const A = e.advantage, lo = 1 - an.epsLow, hi = 1 + an.epsHigh;
      expect(s.clipped).toBe((s.ratio < lo && A < 0) || (s.ratio > hi && A > 0));
      expect(s.loss).toBeCloseTo(-Math.min(s.ratio * A, Math.min(hi, Math.max(lo, s.ratio)) * A), 6);
      if (Math.abs(s.ratio - 1) > 1e-4) moved++;
    }
    expect(moved).toBeGreaterThan(0); // lr 0.01 moved the policy on these sequences
  });

  // Each token-level row of the loss table after a real update: terms recomputed here from the token ratios by the
  // rule written in docs/losses.md, the aggregation weight from the group's own lengths, and the text naming them.
  for (const algorithm of ['dapo', 'dr-grpo', 'cispo', 'two-sided', 'gspo-token'] as const) {
    it(`stepAnatomy names ${algorithm}'s terms with the group's numbers`, async () => {
      const a = make();
      await a.init(PRESET, { ...SMALL, lr: 0.05, algorithm, epsLow: 0.01, epsHigh: 0.01, delta: 1.02 }, WARM);
      await a.step(1);
      const an = await a.stepAnatomy(1);
      const seqLevel = algorithm === 'gspo-token';
      expect(an).toMatchObject({ algorithm, level: seqLevel ? 'sequence' : 'token', lossLabel: LOSSES[algorithm].label, formula: LOSSES[algorithm].formula });
      const lo = 1 - an.epsLow, hi = 1 + an.epsHigh, seqs = an.episodes.flatMap((e) => e.sequences);
      // Dr. GRPO's L_max: the Scout turn's token limit, maxMessage + EOS (docs/losses.md)
      const lMax = presetConfig(findPreset(PRESET), SMALL as Record<string, unknown>).maxMessage + 1;
      const N = seqs.reduce((x, s) => x + s.length, 0), S = seqs.length;
      let clippedSeen = 0;
      for (const e of an.episodes) for (const s of e.sequences) {
        const A = e.advantage;
        const term = (r: number) => {
          const w = Math.min(hi, Math.max(lo, r));
          if (algorithm === 'cispo') return -w * A;
          const u = (algorithm === 'two-sided' ? Math.min(r, 1.02) : r) * A;
          return -Math.min(u, w * A);
        };
        // GSPO-token: every token carries the sequence's term of s_i
        const sum = seqLevel ? Math.max(1, s.length) * term(s.ratio) : s.tokenRatios.reduce((x, r) => x + term(r), 0);
        expect(s.loss).toBeCloseTo(sum / Math.max(1, s.length), 9);
        // GSPO-token aggregates as GSPO: the sequence mean of token means
        const c = algorithm === 'dr-grpo' ? 1 / (S * lMax) : algorithm === 'gspo-token' ? 1 / (S * Math.max(1, s.length)) : 1 / N;
        expect(s.weight).toBeCloseTo(c, 12);
        expect(s.share).toBeCloseTo(c * sum, 12);
        expect(s.termsText).toMatch(algorithm === 'dr-grpo' ? /1\/\(S·L_max\)/ : algorithm === 'gspo-token' ? /1\/\(S·\|y_i\|\)/ : /1\/N = /);
        if (s.clippedTokens > 0) {
          clippedSeen++;
          expect(s.termsText).toMatch(algorithm === 'cispo' ? /capped at 1\+ε_high|raised to 1−ε_low/ : /clipped|above δ/);
        }
      }
      expect(clippedSeen, 'the narrow clip range clips some tokens').toBeGreaterThan(0);
    });
  }

  it('restoreBest puts the best eval weights back; exportCheckpoint refuses another run id', async () => {
    const a = make();
    const s = await a.init(PRESET, { ...SMALL, lr: 0.01 }, WARM);
    await a.step(3);
    const best = await weightsOf(a, 'best');
    const st = await a.restoreBest();
    expect(st.message).toMatch(/best eval|already/);
    expect(await weightsOf(a, 'last')).toEqual(best);
    await expect(a.exportCheckpoint('last', 'run-that-is-not-here')).rejects.toThrow(/no longer in the trainer/);
    expect(readCheckpoint(await a.exportCheckpoint('last', s.runId!)).weights).toEqual(best);
  });

  it('restoreEval puts back the weights of a frontier eval, as they were at that eval; a dominated eval\'s are not kept', async () => {
    const a = make();
    await a.init(PRESET, { ...SMALL, lr: 0.01 }, WARM);
    const at: Record<number, Float32Array> = {};
    for (let k = 1; k <= 4; k++) { await a.step(1); at[k] = Float32Array.from(await weightsOf(a, 'last')); }
    const { evals } = await a.getState();
    const { stepsToKeep } = await import('../../src/worker/keptWeights');
    const kept = stepsToKeep(evals);
    const sorted = [...kept].sort((x, y) => x - y);
    const k = sorted.find((s) => s >= 1 && s < 4) ?? sorted.find((s) => s >= 1)!; // a kept eval after a step, before the last if one is kept
    expect(k).toBeDefined();
    await a.restoreEval(k);
    expect(Float32Array.from(await weightsOf(a, 'last'))).toEqual(at[k]);
    const dropped = evals.map((e) => e.step).find((s) => !kept.has(s));
    if (dropped !== undefined) await expect(a.restoreEval(dropped)).rejects.toThrow(/were not kept/);
    await expect(a.restoreEval(99)).rejects.toThrow(/were not kept/);
  });

  it('probe and useBackend: the factory is asked for the CPU after useBackend("cpu")', async () => {
    const prefs: BackendPreference[] = [];
    const a = make([], prefs);
    expect(await a.probe()).toEqual({ ok: false, reason: 'test: no adapter' });
    await a.init(PRESET, SMALL, WARM);
    expect(prefs).toEqual(['auto']);
    const s = await a.useBackend('cpu');
    expect(s.config).toBeNull(); // the run on the old backend ended
    await a.init(PRESET, SMALL, WARM);
    expect(prefs).toEqual(['auto', 'cpu']);
    await expect(a.useBackend('gpu' as BackendPreference)).rejects.toThrow(/"auto" or "cpu"/);
  });

  it('a lost device mid-run resumes from the last eval\'s checkpoint and optimizer state on a new backend, with a notice', async () => {
    const backends: LosableBackend[] = [];
    const a = make(backends);
    const s0 = await a.init(PRESET, { ...SMALL, evalEvery: 2 }, WARM);
    const atZero = await weightsOf(a, 'last');
    await a.step(2); // evals at 0 and 2: the resume point is step 2
    const atTwo = await weightsOf(a, 'last');
    const [first] = await a.step(1);
    expect(first.step).toBe(2);
    const afterFirst = await weightsOf(a, 'last');
    expect(afterFirst).not.toEqual(atTwo);
    backends[0].lost = true;
    const [m] = await a.step(1); // fails on the lost device, recovers, takes step 2 again
    expect(backends).toHaveLength(2);
    expect(m.step).toBe(2);
    const s = await a.getState();
    expect(s.runId).toBe(s0.runId);
    expect(s.stepCount).toBe(3);
    expect(s.recovery).toMatchObject({ step: 2, lostAtStep: 3, count: 1 });
    expect(s.recovery!.reason).toMatch(/device lost/);
    expect(s.evals.map((e) => e.step)).toEqual([0, 2]);
    // the retried step sampled from the step-2 weights with step 2's seed: the very same rollout as the first time
    expect(m.reward).toBe(first.reward);
    expect(m.tokens).toBe(first.tokens);
    expect(m.r_task).toBe(first.r_task);
    // and the update too, bit for bit: AdamW's moments came back with the weights (a restarted optimizer moves them otherwise)
    expect(await weightsOf(a, 'last')).toEqual(afterFirst);
    // and the best eval's weights survived the loss
    expect(await weightsOf(a, 'best')).toEqual(s.bestEval!.step === 2 ? atTwo : atZero);
  });
});
