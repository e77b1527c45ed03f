// How long each example task's warm start takes to pretrain (docs/your-task.md "The page": every example's
// warm start is ready within 15 s on 2 cores): the task loaded and checked, then its demonstrations
// pretrained as the page's worker does (warmStarts with no shipped file), on the CPU engine.
//   npx tsx scripts/taskWarmTime.ts [examples/tasks/relay.js ...]
import { readFileSync } from 'node:fs';
import { presetConfig } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { prepareUserTasks, userTaskPreset } from '../src/envs/userTask';
import { warmStarts } from '../src/rl/warmStart';
import { cpuEngine } from '../src/cli/io';

const files = process.argv.slice(2).length ? process.argv.slice(2) : ['priority', 'relay', 'reverse', 'sort-hackable'].map((n) => `examples/tasks/${n}.js`);
await prepareUserTasks();
const backend = cpuEngine('wasm');
for (const file of files) {
  const t0 = performance.now();
  const preset = userTaskPreset(readFileSync(file, 'utf8'));
  const config = presetConfig(preset);
  const env = createEnv(config);
  const t1 = performance.now();
  const w = await warmStarts(backend, preset, config, env, async () => null, undefined);
  const t2 = performance.now();
  console.log(JSON.stringify({ file, pretrainSteps: preset.warmStart?.steps, loadMs: Math.round(t1 - t0), pretrainMs: Math.round(t2 - t1), totalS: +((t2 - t0) / 1000).toFixed(1), source: w.source }));
}
backend.destroy();
