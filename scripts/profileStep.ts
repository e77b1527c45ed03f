// Where the CPU engine's RL step goes: `npx tsx scripts/profileStep.ts [default|largest|batch] [threads] [steps]`.
// Every Backend method is wrapped with a timer (host time from call to return, the kernel and its JS around it), per
// op name and per shape; the step's phases come from the Trainer. The wrapper costs about a microsecond a call, so
// "untimed" (the step less the ops) is the host's own work: the model's and trainer's JS between ops.
import { findPreset, presetConfig } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { Trainer } from '../src/rl/trainer';
import { WasmBackend } from '../src/simd/wasmBackend';

const which = process.argv[2] ?? 'default', threads = Number(process.argv[3] ?? 2), steps = Number(process.argv[4] ?? 3);
const shapes: Record<string, object> = {
  default: { nLayer: 2, nHead: 4, nEmbd: 64, promptsPerStep: 32, groupSize: 8 },
  batch: { nLayer: 2, nHead: 4, nEmbd: 64, promptsPerStep: 128, groupSize: 16 },
  largest: { nLayer: 8, nHead: 8, nEmbd: 256, promptsPerStep: 32, groupSize: 8 },
};
const cfg = presetConfig(findPreset('relay-silence'), { ...shapes[which], evalEpisodes: 64 });
const b = new WasmBackend({ threads });
const t: Record<string, { ms: number; calls: number }> = {};
const byShape: Record<string, { ms: number; calls: number }> = {};
let on = false, depth = 0;
const proto = Object.getPrototypeOf(b) as Record<string, unknown>;
for (const name of Object.getOwnPropertyNames(proto)) {
  const desc = Object.getOwnPropertyDescriptor(proto, name);
  const f = desc?.value;
  if (typeof f !== 'function' || name === 'constructor' || name.startsWith('_')) continue;
  (b as unknown as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
    // only the outermost call: the backend's own helpers (own, ptr, embed) are part of the op that called them
    if (!on || depth > 0) return (f as (...a: unknown[]) => unknown).apply(b, args);
    depth++;
    const t0 = performance.now();
    const r = (f as (...a: unknown[]) => unknown).apply(b, args);
    const ms = performance.now() - t0;
    depth--;
    (t[name] ??= { ms: 0, calls: 0 }).ms += ms;
    t[name].calls++;
    if (name.startsWith('matmul') || name.startsWith('attention') || name === 'layernormMatmulForward') {
      const dims = args.filter((a) => typeof a === 'number').join('x');
      const key = `${name} ${dims}`;
      (byShape[key] ??= { ms: 0, calls: 0 }).ms += ms;
      byShape[key].calls++;
    }
    return r;
  };
}
const trainer = new Trainer(b, createEnv(cfg), cfg);
await trainer.step();
on = true;
const phases = { rollout: 0, reward: 0, update: 0 };
const c0 = process.cpuUsage(); // the process's CPU time (every thread): on one thread, what other jobs on the machine do not inflate
const t0 = performance.now();
for (let i = 0; i < steps; i++) {
  await trainer.step();
  for (const k of Object.keys(phases) as (keyof typeof phases)[]) phases[k] += trainer.phases[k];
}
const total = (performance.now() - t0) / steps;
const cpu = process.cpuUsage(c0), cpuMs = (cpu.user + cpu.system) / 1000 / steps;
on = false;
const opsMs = Object.values(t).reduce((a, x) => a + x.ms, 0) / steps;
console.log(`${which} threads=${threads} steps=${steps}: ${total.toFixed(1)} ms/step (CPU ${cpuMs.toFixed(1)} ms/step); rollout ${(phases.rollout / steps).toFixed(1)}, reward ${(phases.reward / steps).toFixed(1)}, update ${(phases.update / steps).toFixed(1)}; ops ${opsMs.toFixed(1)} ms, untimed ${(total - opsMs).toFixed(1)} ms; worker chunks ${b.workerChunks}`);
for (const [k, v] of Object.entries(t).sort((x, y) => y[1].ms - x[1].ms)) {
  console.log(`  ${k.padEnd(24)} ${(v.ms / steps).toFixed(2).padStart(9)} ms ${String(v.calls / steps).padStart(7)} calls ${((1000 * v.ms) / v.calls).toFixed(1).padStart(9)} us/call`);
}
console.log('by shape (top 60):');
for (const [k, v] of Object.entries(byShape).sort((x, y) => y[1].ms - x[1].ms).slice(0, 60)) {
  console.log(`  ${k.padEnd(48)} ${(v.ms / steps).toFixed(2).padStart(9)} ms ${String(v.calls / steps).padStart(7)} calls ${((1000 * v.ms) / v.calls).toFixed(1).padStart(9)} us/call`);
}
trainer.destroy();
b.destroy();
