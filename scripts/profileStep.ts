// Where the CPU engine's RL step goes: `npx tsx scripts/profileStep.ts [default|largest|batch] [threads] [steps] [spin]`
// (spin: the thread pool's polls before it sleeps, THREAD_SPIN by default; 0 sleeps at once).
// Every Backend method is timed (benchParts.ts splitByOp: host time from call to return, the kernel and its JS
// around it), per op name and per shape; the step's phases come from the Trainer. The wrapper costs about a
// microsecond a call, so "untimed" (the step less the ops) is the host's own work: the model's and trainer's JS
// between ops. `bench --compare` prints the same split grouped by kind of op.
import '../src/cli/wasmFeatures'; // the CLI's kernels: the fused build unless GSPO_KERNELS=simd
import { splitByOp } from '../src/cli/commands/benchParts';
import { benchCase, caseConfig } from '../src/cli/commands/benchCompare';
import { createEnv } from '../src/envs/registry';
import { Trainer } from '../src/rl/trainer';
import { WasmBackend } from '../src/simd/wasmBackend';

const which = process.argv[2] ?? 'default', threads = Number(process.argv[3] ?? 2), steps = Number(process.argv[4] ?? 3);
const threadSpin = process.argv[5] === undefined ? undefined : Number(process.argv[5]);
// bench --compare's cases, by short name (one table of the shapes: src/cli/commands/benchCompare.ts)
const cfg = caseConfig(benchCase(which), false);
const b = new WasmBackend({ threads, threadSpin });
const byShape: Record<string, { ms: number; calls: number }> = {};
const trainer = new Trainer(b, createEnv(cfg), cfg);
await trainer.step();
const phases = { rollout: 0, reward: 0, update: 0 };
const c0 = process.cpuUsage(); // the process's CPU time (every thread): on one thread, what other jobs on the machine do not inflate
const split = await splitByOp(b, async () => {
  await trainer.step();
  for (const k of Object.keys(phases) as (keyof typeof phases)[]) phases[k] += trainer.phases[k];
  return { dense: 0, attention: 0 };
}, steps, (name, args, ms) => {
  if (!name.startsWith('matmul') && !name.startsWith('attention') && name !== 'layernormMatmulForward') return;
  const o = (byShape[`${name} ${args.filter((a) => typeof a === 'number').join('x')}`] ??= { ms: 0, calls: 0 });
  o.ms += ms;
  o.calls++;
});
const cpu = process.cpuUsage(c0), cpuMs = (cpu.user + cpu.system) / 1000 / steps;
const total = split.stepMs, opsMs = Object.values(split.ops).reduce((a, x) => a + x.ms, 0);
console.log(`${which} threads=${threads} steps=${steps}: ${total.toFixed(1)} ms/step (CPU ${cpuMs.toFixed(1)} ms/step); rollout ${(phases.rollout / steps).toFixed(1)}, reward ${(phases.reward / steps).toFixed(1)}, update ${(phases.update / steps).toFixed(1)}; ops ${opsMs.toFixed(1)} ms, untimed ${(total - opsMs).toFixed(1)} ms; worker chunks ${b.workerChunks}`);
// split.ops is a step's mean already
for (const [k, v] of Object.entries(split.ops).sort((x, y) => y[1].ms - x[1].ms)) {
  console.log(`  ${k.padEnd(24)} ${v.ms.toFixed(2).padStart(9)} ms ${String(v.calls).padStart(7)} calls ${((1000 * v.ms) / v.calls).toFixed(1).padStart(9)} us/call`);
}
console.log('by shape (top 60):');
for (const [k, v] of Object.entries(byShape).sort((x, y) => y[1].ms - x[1].ms).slice(0, 60)) {
  console.log(`  ${k.padEnd(48)} ${(v.ms / steps).toFixed(2).padStart(9)} ms ${String(v.calls / steps).padStart(7)} calls ${((1000 * v.ms) / v.calls).toFixed(1).padStart(9)} us/call`);
}
trainer.destroy();
b.destroy();
