// The thread pool's polling between ops, A/B: `npx tsx scripts/threadSpinAB.ts [default|batch] [threads] [steps] [spins] [rounds]`
// (spins: a comma list of THREAD_SPIN values, e.g. 16384,0; rounds alternate them so drift in the machine's speed
// falls on both). The RL step's wall time alone (no op timing), the median per value. docs/cpu-engine.md, "Threads".
import { benchCase, caseConfig } from '../src/cli/commands/benchCompare';
import { createEnv } from '../src/envs/registry';
import { Trainer } from '../src/rl/trainer';
import { WasmBackend } from '../src/simd/wasmBackend';
const which = process.argv[2] ?? 'default', threads = Number(process.argv[3] ?? 2), steps = Number(process.argv[4] ?? 8);
const spins = (process.argv[5] ?? '16384,0').split(',').map(Number), rounds = Number(process.argv[6] ?? 3);
const cfg = caseConfig(benchCase(which), false); // bench --compare's case of that short name
const res: Record<number, number[]> = {};
for (let r = 0; r < rounds; r++) for (const spin of spins) {
  const b = new WasmBackend({ threads, threadSpin: spin });
  const t = new Trainer(b, createEnv(cfg), cfg);
  await t.step(); await t.step();
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) await t.step();
  (res[spin] ??= []).push((performance.now() - t0) / steps);
  await b.destroyAndWait();
}
for (const [k, v] of Object.entries(res)) console.log(`spin ${k}: ${v.map((x) => x.toFixed(1)).join(' ')} ms/step; median ${[...v].sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(1)}`);
