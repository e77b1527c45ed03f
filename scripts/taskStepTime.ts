// The boundary's cost (docs/your-task.md "Speed"): one RL step of the shipped relay against the relay
// written as a task (examples/tasks/relay.js), same settings (relay-silence's config), same seed, from
// random weights, on the CPU engine. Steps alternate between the two so that the machine's load
// falls on both alike; the time spent in the environment's methods is measured on its own.
//   npx tsx scripts/taskStepTime.ts [--steps 8] [--file examples/tasks/relay.js]
import { readFileSync } from 'node:fs';
import { presetConfig, findPreset } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { prepareUserTasks } from '../src/envs/userTask';
import type { Environment } from '../src/envs/types';
import { Trainer } from '../src/rl/trainer';
import { cpuEngine } from '../src/cli/io';

const arg = (name: string, d: string) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : d; };
const steps = Number(arg('steps', '8'));
const file = arg('file', 'examples/tasks/relay.js');
await prepareUserTasks();
const base = presetConfig(findPreset('relay-silence'), { evalEpisodes: 64, seed: 3 });

/** The env with its methods timed (ms spent inside them, the sandbox's calls included). */
function timed(env: Environment): { env: Environment; ms: () => number } {
  let ms = 0;
  const wrap = <F extends (...a: never[]) => unknown>(f: F): F => ((...a: never[]) => { const t = performance.now(); try { return f(...a); } finally { ms += performance.now() - t; } }) as F;
  const e = { ...env } as Environment;
  for (const k of ['sampleTasks', 'start', 'turn', 'applyTurn', 'score', 'evalExtras'] as const) (e as unknown as Record<string, unknown>)[k] = wrap((env[k] as (...a: never[]) => unknown).bind(env));
  return { env: e, ms: () => ms };
}

const backend = cpuEngine('wasm');
const shipped = timed(createEnv(base));
const customConfig = { ...base, env: 'custom' as const, taskCode: readFileSync(file, 'utf8') };
const custom = timed(createEnv(customConfig));
const runs = [
  { name: 'shipped relay', t: new Trainer(backend, shipped.env, base), env: shipped, times: [] as number[], envMs: 0 },
  { name: `relay as a task (${file})`, t: new Trainer(backend, custom.env, customConfig), env: custom, times: [] as number[], envMs: 0 },
];
for (const r of runs) await r.t.step(); // warm-up
for (let i = 0; i < steps; i++) {
  for (const r of runs) {
    const e0 = r.env.ms(), t0 = performance.now();
    await r.t.step();
    r.times.push(performance.now() - t0);
    r.envMs += r.env.ms() - e0;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = runs.map((r) => ({ name: r.name, medianStepMs: +median(r.times).toFixed(1), meanStepMs: +(r.times.reduce((a, b) => a + b, 0) / r.times.length).toFixed(1), envMsPerStep: +(r.envMs / steps).toFixed(2) }));
console.log(JSON.stringify({ backend: backend.name, config: `P${base.promptsPerStep} G${base.groupSize} L${base.nLayer} C${base.nEmbd}`, steps, runs: out, ratio: +(out[1].medianStepMs / out[0].medianStepMs).toFixed(3) }, null, 1));
for (const r of runs) r.t.destroy();
backend.destroy();
