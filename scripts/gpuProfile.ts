// Where a step's GPU time goes, per kernel, from timestamp queries (src/gpu/profiler.ts): relay-silence at a
// bench --compare size, K members stacked, after a warm-up. Needs a hardware adapter with 'timestamp-query'
// (SwiftShader has it too, but its times are a CPU's). A pass per dispatch inflates the step: compare kernels
// with each other, and the plain step time (timed first, without the profiler) with their sum.
// Usage: npx tsx scripts/gpuProfile.ts [--P 32] [--G 8] [--layers 2] [--heads 4] [--embd 64] [--K 1] [--steps 3] [--top 25]
//        [--decode auto|fused|hybrid|per-op]   (the rollout's path: the engine's choice; or forced: every call fused,
//                                              the per-op prefill then fused steps, or every call per op)
//        [--submit-every N]             (the per-op rollout submits every N tokens; 1 by default)
import { parseArgs } from 'node:util';
import { presetConfig, findPreset } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { createNodeBackend } from '../src/gpu/node';
import { Trainer } from '../src/rl/trainer';
import type { WebGpuBackend } from '../src/gpu/webgpuBackend';
import { decodeSampleFits } from '../src/gpu/kernels/decodeSample';
import { GpuRuntime } from '../src/gpu/runtime';
import { ROLLOUT_SUBMIT } from '../src/rl/rollout';

// the host's share: time inside the runtime's recording calls (JS and Dawn's validation), the rest is the trainer's and model's JS
const host: Record<string, { ms: number; calls: number }> = {};
const rt = GpuRuntime.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
for (const name of ['dispatch', 'submit', 'write', 'upload']) {
  const f = rt[name];
  if (typeof f !== 'function') continue;
  rt[name] = function (this: unknown, ...a: unknown[]) {
    const t0 = performance.now();
    try { return f.apply(this, a); } finally { const e = (host[name] ??= { ms: 0, calls: 0 }); e.ms += performance.now() - t0; e.calls++; }
  };
}

const { values: v } = parseArgs({ options: { ...Object.fromEntries(
  [['P', '32'], ['G', '8'], ['submit-every', '1'], ['layers', '2'], ['heads', '4'], ['embd', '64'], ['K', '1'], ['steps', '3'], ['top', '25']]
    .map(([k, d]) => [k, { type: 'string' as const, default: d }])), decode: { type: 'string', default: 'auto' } } });
if (!['auto', 'fused', 'hybrid', 'per-op'].includes(v.decode!)) throw new Error(`--decode takes auto, fused, hybrid or per-op, not ${v.decode}`);
const n = (k: string) => Number(v[k]);
const configs = Array.from({ length: n('K') }, (_, k) => presetConfig(findPreset('relay-silence'), {
  nLayer: n('layers'), nHead: n('heads'), nEmbd: n('embd'), promptsPerStep: n('P'), groupSize: n('G'), evalEpisodes: 8, seed: 1 + k,
}));
ROLLOUT_SUBMIT.perOpTokens = n('submit-every');
const shape = `${n('layers')}x${n('heads')}x${n('embd')} P${n('P')} x G${n('G')}, K=${n('K')}${v.decode !== 'auto' ? `, ${v.decode} decode` : ''}${n('submit-every') !== 1 ? `, submit every ${n('submit-every')} tokens` : ''}`;

async function steps(b: WebGpuBackend, profile: boolean): Promise<{ ms: number; waitMs: number; trainer: Trainer }> {
  const t = new Trainer(b, createEnv(configs[0]), configs);
  const obj = (t as unknown as { objective: { recordMinibatch: (...a: unknown[]) => void } }).objective;
  const rec = obj.recordMinibatch.bind(obj);
  obj.recordMinibatch = (...a: unknown[]) => { if (b.profiler) b.profiler.phase = 'update'; return rec(...a); };
  if (b.profiler) b.profiler.phase = 'rollout';
  await t.stepAll(); // warm-up: pipelines, buffers
  await b.profiler?.times(true);
  for (const k of Object.keys(host)) delete host[k];
  const w0 = b.counters.waitMs, t0 = performance.now();
  for (let i = 0; i < n('steps'); i++) {
    if (b.profiler) b.profiler.phase = 'rollout';
    await t.stepAll();
  }
  return { ms: (performance.now() - t0) / n('steps'), waitMs: (b.counters.waitMs - w0) / n('steps'), trainer: t };
}

for (const profile of [false, true]) {
  const { backend: b, reason } = await createNodeBackend({ prepare: 'lazy', profile });
  if (!b) throw new Error(reason);
  if (v.decode === 'per-op') b.decodeSampleFused = () => false;
  if (v.decode === 'fused') b.decodeSampleFused = (s) => decodeSampleFits(s);
  if (v.decode === 'hybrid') b.decodeSampleFused = (s) => !s.prefill && decodeSampleFits(s);
  const { ms, waitMs, trainer } = await steps(b, profile);
  console.log(`${shape} on ${b.adapterInfo}${profile ? ', a timed pass per dispatch' : ''}: step ${ms.toFixed(2)} ms, ` +
    `host awaiting the GPU ${waitMs.toFixed(2)} ms, host working ${(ms - waitMs).toFixed(2)} ms`);
  if (!profile) {
    const parts = Object.entries(host).map(([k, e]) => `${k} ${(e.ms / n('steps')).toFixed(2)} ms (${(e.calls / n('steps')).toFixed(0)} calls)`);
    const rest = ms - waitMs - Object.values(host).reduce((a, e) => a + e.ms, 0) / n('steps');
    console.log(`  host working, by part: ${parts.join(', ')}; the rest (trainer, model, env JS) ${rest.toFixed(2)} ms`);
  }
  if (profile) {
    const times = await b.profiler!.times();
    const per = (x: number) => x / n('steps');
    for (const phase of ['rollout', 'update']) {
      const rows = times.filter((r) => r.phase === phase);
      const sum = rows.reduce((a, r) => a + r.ms, 0), calls = rows.reduce((a, r) => a + r.calls, 0);
      console.log(`\n${phase}: ${per(sum).toFixed(3)} ms of kernels a step in ${per(calls).toFixed(0)} dispatches`);
      console.log('   ms/step  calls/step  us/call  kernel');
      for (const r of rows.slice(0, n('top'))) {
        console.log(`${per(r.ms).toFixed(3).padStart(10)}  ${per(r.calls).toFixed(1).padStart(10)}  ${(1000 * r.ms / r.calls).toFixed(1).padStart(7)}  ${r.name}`);
      }
    }
  }
  trainer.destroy();
  b.destroy();
}
