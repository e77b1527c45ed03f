// `bench --compare`'s population case: K members of the default model at P32 x G8 stepping
// together, K = 1, 4, 16. On the CPU backend each member is a Trainer on its own worker thread
// (as a sweep's population runs); on WebGPU the members are one stacked population (one GPT of
// K members in lock step), so the counters show the dispatches and submissions per step of
// K = 1 at every K. Step time is the wall time for every member to take a step.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { Backend } from '../../backend';
import { findPreset, presetConfig } from '../../envs/presets';
import { createEnv } from '../../envs/registry';
import { Trainer } from '../../rl/trainer';
import type { RunConfig } from '../../config';
import { THREAD_BOOT } from '../memberPool';
import { log } from '../io';
import { fmt } from './benchTable';

type Counted = Backend & { counters?: Readonly<Record<string, number>> };

export interface PopulationRow { K: number; ms: number; ratio: number; gflops: number; perStep?: Record<string, number>; error?: string }
export interface PopulationResult { how: string; model: string; P: number; G: number; steps: number; cores: number; rows: PopulationRow[] }

function caseConfig(quick: boolean, seed: number): RunConfig {
  return presetConfig(findPreset('relay-silence'), { nLayer: 2, nHead: 4, nEmbd: 64, promptsPerStep: quick ? 1 : 32, groupSize: quick ? 2 : 8, evalEpisodes: 8, seed });
}

/** K threads, each a Trainer; the clock runs from "go" until every member has taken `reps` steps. */
async function threaded(K: number, reps: number, quick: boolean): Promise<{ ms: number; flops: number }> {
  const workers = Array.from({ length: K }, (_, k) => new Worker(THREAD_BOOT, { workerData: { entry: './benchThread.ts', job: { cfg: caseConfig(quick, 1 + k), reps } } }));
  const next = (w: Worker) => new Promise<{ flops?: number }>((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
  try {
    await Promise.all(workers.map(next)); // every member warmed up
    const t0 = performance.now();
    const done = workers.map(next);
    for (const w of workers) w.postMessage('go');
    const res = await Promise.all(done);
    return { ms: (performance.now() - t0) / reps, flops: res.reduce((a, r) => a + (r.flops ?? 0), 0) / reps };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** K members as one stacked population on the device, in lock step (members differ in their seed). */
async function stacked(b: Counted, K: number, reps: number, quick: boolean): Promise<{ ms: number; flops: number; perStep?: Record<string, number> }> {
  const configs = Array.from({ length: K }, (_, k) => caseConfig(quick, 1 + k));
  const t = new Trainer(b, createEnv(configs[0]), configs);
  try {
    await t.stepAll(); // warm: pipelines and buffers
    const before = b.counters ? { ...b.counters } : undefined;
    let flops = 0, updateReads = 0, atUpdate = 0;
    // the update's readbacks: counted from the rollout's end (progress 0) to the step's end
    const hooks = { progress: (done: number) => { if (done === 0) atUpdate = b.counters?.readbacks ?? 0; } };
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) {
      for (const m of await t.stepAll(hooks)) flops += m.step_flops;
      updateReads += (b.counters?.readbacks ?? 0) - atUpdate;
    }
    const ms = (performance.now() - t0) / reps;
    const after = b.counters;
    const perStep = before && after ? Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / reps])) : undefined;
    if (perStep) perStep.readbacksPerMinibatch = updateReads / (reps * t.lastStepUpdates);
    return { ms, flops: flops / reps, perStep };
  } finally {
    t.destroy();
  }
}

export async function benchPopulation(b: Counted, quick: boolean): Promise<PopulationResult> {
  const Ks = quick ? [1, 2, 4] : [1, 4, 16], reps = quick ? 1 : 3;
  const cpu = b.name === 'cpu';
  const rows: PopulationRow[] = [];
  for (const K of Ks) {
    log(`bench --compare: population K=${K} (${cpu ? 'one thread per member' : 'one stacked population on the device'})`);
    let r: { ms: number; flops: number; perStep?: Record<string, number> };
    try {
      r = cpu ? await threaded(K, reps, quick) : await stacked(b, K, reps, quick);
    } catch (e) {
      // a K that does not fit (the wasm engine's 4 GiB, a GPU's budget) is a row of the table, not the end of the run
      rows.push({ K, ms: Number.NaN, ratio: Number.NaN, gflops: Number.NaN, error: (e as Error).message });
      break;
    }
    rows.push({ K, ms: r.ms, ratio: rows.length ? r.ms / rows[0].ms : 1, gflops: r.flops / r.ms / 1e6, perStep: r.perStep });
  }
  const c = caseConfig(quick, 1);
  return {
    how: cpu ? 'one worker thread per member (CPU backend)' : 'one stacked population in lock step (one set of dispatches)',
    model: '2x4x64', P: c.promptsPerStep, G: c.groupSize, steps: reps, cores: availableParallelism(), rows,
  };
}

export function formatPopulation(p: PopulationResult): string {
  const head = ['K', 'step ms', 'x K=1', 'per member ms', 'GFLOP/s', 'dispatch', 'clear', 'submit', 'readback/minibatch', 'GPU wait ms', 'host ms'];
  const ok = p.rows.filter((r) => r.error === undefined);
  const body = ok.map((r) => [String(r.K), fmt(r.ms), `${r.ratio.toFixed(2)}x`, fmt(r.ms / r.K), fmt(r.gflops, 2), fmt(r.perStep?.dispatches, 0), fmt(r.perStep?.clears, 0), fmt(r.perStep?.submissions, 0),
    fmt(r.perStep?.readbacksPerMinibatch, 2), fmt(r.perStep?.waitMs), fmt(r.perStep?.waitMs === undefined ? undefined : r.ms - r.perStep.waitMs)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((x, i) => x.padEnd(widths[i])).join('  ').trimEnd();
  return `\npopulation: K members of ${p.model} at P${p.P} x G${p.G}, ${p.how}, ${p.cores} cores; step = every member takes one step (mean of ${p.steps})\n`
    + [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n') + '\n'
    + p.rows.filter((r) => r.error !== undefined).map((r) => `K=${r.K}: not measured: ${r.error}\n`).join('');
}
