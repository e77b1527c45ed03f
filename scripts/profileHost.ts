// The host's own JS per episode in an RL step (the trainer's, model's and env's, outside the engine's ops), for a
// stacked population of K members: `npx tsx scripts/profileHost.ts [K] [steps] [replays] [P] [G]`.
// relay-silence, 2 layers x 4 heads x 64 wide, random init, member k's seed 1 + k (scripts/gpuProfile.ts's setup), on
// the wasm engine (1 thread); the per-episode JS does not depend on the engine, so this stands for the GPU's too.
// 1. `steps` real steps, every Backend method timed (as scripts/profileStep.ts): host JS = the step less the ops.
// 2. `replays` replays of one step without the ops, the same step each time (its step counter reset): the engine's
//    reads give back what they gave in the recorded step, the compute and writes are skipped (alloc, view and free
//    run), so the replay is the host's JS alone, the same work each time: a figure other jobs on the machine and
//    the ops' cost do not blur (min and median of the later half, once V8 has optimized the code).
// Where it goes: node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx scripts/profileHost.ts 16 1 20
import { findPreset, presetConfig } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { Trainer } from '../src/rl/trainer';
import { WasmBackend } from '../src/simd/wasmBackend';

const [K, steps, replays, P, G] = [2, 3, 4, 5, 6].map((i, j) => Number(process.argv[i] ?? [1, 3, 20, 32, 8][j]));
const configs = Array.from({ length: K }, (_, k) => presetConfig(findPreset('relay-silence'), {
  nLayer: 2, nHead: 4, nEmbd: 64, promptsPerStep: P, groupSize: G, evalEpisodes: 8, seed: 1 + k,
}));
const b = new WasmBackend({ threads: 1 });
let mode: 'off' | 'time' | 'record' | 'replay' = 'off', opsMs = 0, calls = 0, depth = 0;
const reads: (Float32Array | Int32Array)[] = [], skipped = new Set<string>();
let nextRead = 0;
const always = new Set(['alloc', 'view', 'free', 'destroy']); // the replay's buffers are real
const proto = Object.getPrototypeOf(b) as Record<string, unknown>;
for (const name of Object.getOwnPropertyNames(proto)) {
  const f = Object.getOwnPropertyDescriptor(proto, name)?.value as ((...a: unknown[]) => unknown) | undefined;
  if (typeof f !== 'function' || name === 'constructor' || name.startsWith('_')) continue;
  (b as unknown as Record<string, unknown>)[name] = function (...args: unknown[]) {
    if (mode === 'off' || depth > 0) return f.apply(b, args); // the outermost call only
    if (mode === 'replay' && !always.has(name)) {
      if (name === 'read') return Promise.resolve(reads[nextRead++].slice());
      if (skipped.has(name)) return undefined;
      return f.apply(b, args);
    }
    depth++;
    const t0 = performance.now();
    try {
      const r = f.apply(b, args);
      if (mode === 'record' && name === 'read') (r as Promise<Float32Array | Int32Array>).then((x) => reads.push(x.slice()));
      else if (mode === 'record' && r === undefined) skipped.add(name);
      return r;
    } finally { opsMs += performance.now() - t0; calls++; depth--; }
  };
}
const trainer = new Trainer(b, createEnv(configs[0]), configs);
await trainer.stepAll(); // warm-up: buffers, JIT
const E = K * P * G, per = (ms: number) => `${ms.toFixed(2)} ms a step, ${((1000 * ms) / E).toFixed(2)} us an episode`;
console.log(`K=${K} P${P} x G${G}: ${E} episodes a step`);

if (steps > 0) {
  mode = 'time';
  let total = 0;
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    await trainer.stepAll();
    total += performance.now() - t0;
  }
  console.log(`  ${steps} steps: step ${(total / steps).toFixed(1)} ms, ops ${(opsMs / steps).toFixed(1)} ms (${(calls / steps).toFixed(0)} calls); host JS ${per((total - opsMs) / steps)}`);
}

if (replays > 0) {
  const at = trainer.stepCount;
  mode = 'record';
  await trainer.stepAll();
  mode = 'replay';
  const times: number[] = [];
  for (let i = 0; i < replays; i++) {
    trainer.stepCount = at;
    nextRead = 0;
    const t0 = performance.now();
    await trainer.stepAll();
    times.push(performance.now() - t0);
    if (nextRead !== reads.length) throw new Error(`replay ${i} read ${nextRead} times, the recorded step ${reads.length}`);
  }
  if (process.env.SHOW) console.log(times.map((x) => x.toFixed(1)).join(' '));
  // the first replays still run code V8 has not optimized yet: the later half is the steady state of a long run
  const late = times.slice(replays >> 1).sort((x, y) => x - y);
  console.log(`  ${replays} replays of step ${at} without the ops; the later ${late.length}: min ${per(late[0])}; median ${per(late[late.length >> 1])}`);
}
mode = 'off';
trainer.destroy();
b.destroy();
