// The verl recipe: run_verl.sh (verl.trainer.main_ppo with Hydra overrides under
// verl's own key names), reward_fn.py (compute_score), prepare_data.py (parquet
// in verl's row format), toy_tasks.py, and a README with the mapping table.
import type { RunConfig } from '../config';
import { mappingRows, verlOptions, type PyValue } from './mapping';
import { hydraValue, py, shellWord } from './literal';
import { rewardWeights } from '../rl/reward';
import { pyVerlScore } from './python/common';
import { ENV_PYTHON } from './python';
import { toyTasksPy } from './toyTasks';
import { recipeReadme, type ExportFile } from './readme';

/** Every verl key the script sets: the mapping rows plus data paths, lengths and the trainer's bookkeeping. */
export function verlOverrides(c: RunConfig, presetName: string): Record<string, PyValue> {
  const maxLen = ENV_PYTHON[c.env].maxCompletion(c);
  return {
    'data.train_files': '$DATA/train.parquet',
    'data.val_files': '$DATA/eval.parquet',
    'data.max_prompt_length': 256,
    'data.max_response_length': maxLen,
    'actor_rollout_ref.model.path': '$MODEL',
    'actor_rollout_ref.rollout.name': 'vllm',
    'actor_rollout_ref.rollout.tensor_model_parallel_size': 1,
    // micro-batches by token count (verl requires a micro-batch setting); the sums, hence the update, are the same
    'actor_rollout_ref.actor.use_dynamic_bsz': true,
    ...verlOptions(c),
    'trainer.project_name': 'gspo-playground',
    'trainer.experiment_name': presetName,
    'trainer.logger': '[console]',
    'trainer.n_gpus_per_node': '$GPUS',
    'trainer.nnodes': '$NODES',
  };
}

/** The only values the script expands (its own variables); every other value is single-quoted. */
const EXPANDED: ReadonlySet<string> = new Set(['$DATA/train.parquet', '$DATA/eval.parquet', '$MODEL', '$GPUS', '$NODES', '$PWD/reward_fn.py']);

function runScript(c: RunConfig, presetName: string): string {
  const lines = Object.entries(verlOverrides(c, presetName)).map(([k, v]) => `    ${k}=${shellWord(hydraValue(v), EXPANDED)} \\`);
  return `#!/usr/bin/env bash
# GRPO/GSPO with verl for a GSPO Playground preset (trainer.experiment_name below; generated, see README.md).
# usage: MODEL=Qwen/Qwen2.5-0.5B-Instruct GPUS=1 bash run_verl.sh
#        NODES=2 GPUS=8 ...: on the head of a Ray cluster of 2 machines with 8 GPUs each (README.md)
set -euo pipefail
cd "$(dirname "$0")"
MODEL=\${MODEL:?set MODEL to a causal LM (Hub id or path)}
GPUS=\${GPUS:-1}
NODES=\${NODES:-1}
DATA=\${DATA:-$PWD/data}
python3 prepare_data.py "$DATA"
python3 -m verl.trainer.main_ppo \\
${lines.join('\n').replace(/ \\$/, '')}
`;
}

function prepareData(c: RunConfig): string {
  return `"""Writes train.parquet and eval.parquet in verl's row format from toy_tasks.py (generated).

python prepare_data.py DATA_DIR
"""
import os
import sys

import pandas as pd

from toy_tasks import make_dataset


def rows(split, count):
    out = []
    for i, r in enumerate(make_dataset(split, count)):
        out.append({
            "data_source": ${py(`gspo-playground-${c.env}`)},
            "prompt": [{"role": "user", "content": r["prompt"]}],
            "ability": ${py(c.env)},
            "reward_model": {"style": "rule", "ground_truth": r["task"]},
            "extra_info": {"split": split, "index": i},
        })
    return out


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    pd.DataFrame(rows("train", ${py(Math.max(c.steps, 1) * c.promptsPerStep)})).to_parquet(os.path.join(out, "train.parquet"))
    pd.DataFrame(rows("eval", ${py(c.evalEpisodes)})).to_parquet(os.path.join(out, "eval.parquet"))
`;
}

function rewardFn(c: RunConfig): string {
  // verl imports this file by path, so it carries the environment itself rather than importing toy_tasks
  return `"""verl custom reward for the GSPO Playground's ${c.env} environment (generated).
custom_reward_function.path=reward_fn.py custom_reward_function.name=compute_score
"""
${toyTasksPy(c).replace(/^"""[\s\S]*?"""\n/, '').replace(/\nif __name__ == "__main__":[\s\S]*$/, '\n')}${pyVerlScore(rewardWeights(c, c.lambdaTok))}`;
}

export function verlFiles(c: RunConfig, presetName: string): ExportFile[] {
  const run = [
    'pip install verl pandas pyarrow   # see verl\'s install guide for vLLM / SGLang (verl needs CUDA GPUs)',
    'MODEL=Qwen/Qwen2.5-0.5B-Instruct GPUS=1 bash run_verl.sh          # one GPU',
    'MODEL=Qwen/Qwen2.5-0.5B-Instruct GPUS=8 bash run_verl.sh          # 8 GPUs on one machine (trainer.n_gpus_per_node)',
    '# several machines: a Ray cluster (ray comes with verl), then the script on its head (trainer.nnodes=$NODES)',
    'ray start --head --port 6379                                      # on the first machine (HOST)',
    'ray start --address HOST:6379                                     # on each other machine (the same GPUs each, and this folder)',
    'MODEL=Qwen/Qwen2.5-0.5B-Instruct NODES=2 GPUS=8 bash run_verl.sh  # on the first machine: 2 machines x 8 GPUs',
  ];
  return [
    { path: 'run_verl.sh', text: runScript(c, presetName) },
    { path: 'reward_fn.py', text: rewardFn(c) },
    { path: 'prepare_data.py', text: prepareData(c) },
    { path: 'toy_tasks.py', text: toyTasksPy(c) },
    { path: 'README.md', text: recipeReadme('verl', c, presetName, mappingRows(c), run) },
  ];
}
