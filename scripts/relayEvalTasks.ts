// The engine's held-out eval tasks of a relay preset (EVAL_SEED: the set every run's eval uses), as JSON on
// stdout, for scripts/relay_eval_check.py (docs/export.md, "The first TRL eval beside the page's last").
//   npx tsx scripts/relayEvalTasks.ts [PRESET] > tasks.json
import { findPreset, presetConfig } from '../src/envs/presets';
import { createEnv } from '../src/envs/registry';
import { EVAL_SEED } from '../src/rl/runRecord';

const c = presetConfig(findPreset(process.argv[2] ?? 'relay-silence'), {});
if (c.env !== 'relay') throw new Error(`${process.argv[2]} is not a relay preset`);
console.log(JSON.stringify({ evalEpisodes: c.evalEpisodes, tasks: createEnv(c).sampleTasks('eval', c.evalEpisodes, EVAL_SEED, 0) }));
