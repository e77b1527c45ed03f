// Steps 11-30's mean step, rollout and update (ms) of a bench case on the CPU engine, after 10 untimed steps (the JIT's
// compiles): for an A/B of two checkouts run alternately. `npx tsx scripts/stepPhases.ts [threads] [case] [label]`.
import '../src/cli/wasmFeatures';
import { benchCase, caseConfig } from '../src/cli/commands/benchCompare';
import { createEnv } from '../src/envs/registry';
import { Trainer } from '../src/rl/trainer';
import { WasmBackend } from '../src/simd/wasmBackend';
const cfg = caseConfig(benchCase(process.argv[3] ?? 'default'), false);
const b = new WasmBackend({ threads: Number(process.argv[2] ?? 2) });
const trainer = new Trainer(b, createEnv(cfg), cfg);
const s = { step: 0, rollout: 0, update: 0 };
for (let i = 0; i < 30; i++) {
  const t0 = performance.now(); await trainer.step(); const dt = performance.now() - t0;
  if (i >= 10) { s.step += dt / 20; s.rollout += trainer.phases.rollout / 20; s.update += trainer.phases.update / 20; }
}
console.log(`${process.argv[4] ?? ''} step ${s.step.toFixed(1)} rollout ${s.rollout.toFixed(1)} update ${s.update.toFixed(1)}`);
trainer.destroy(); b.destroy();
