// The TRL recipe: train_grpo.py (GRPOTrainer + GRPOConfig with the run's settings
// under TRL's own option names), rewards.py (one reward function per term),
// toy_tasks.py, and a README with the mapping table.
import type { RunConfig } from '../config';
import { mappingRows, trlOptions, type PyValue } from './mapping';
import { py } from './literal';
import { PY_TRL_REWARDS } from './python/common';
import { ENV_PYTHON } from './python';
import { toyTasksPy } from './toyTasks';
import { OPTION_SOURCES } from './optionNames';
import { recipeReadme, type ExportFile } from './readme';

/** GRPOConfig's keyword arguments: the mapping rows plus what the export itself needs. */
export function grpoConfigKwargs(c: RunConfig): Record<string, PyValue> {
  return {
    output_dir: 'grpo-output',
    ...trlOptions(c),
    max_completion_length: ENV_PYTHON[c.env].maxCompletion(c),
    per_device_eval_batch_size: c.groupSize,
    logging_steps: 1,
    report_to: 'none',
  };
}

function trainScript(c: RunConfig, presetName: string): string {
  const kwargs = Object.entries(grpoConfigKwargs(c)).map(([k, v]) => `    ${k}=${py(v)},`).join('\n');
  const budget = c.lambdaMode === 'budget';
  return `"""GRPO/GSPO with TRL for a GSPO Playground preset (PRESET below; generated, see README.md).

python train_grpo.py --model MODEL_NAME_OR_PATH
"""
import argparse

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer
from transformers import TrainerCallback

from rewards import REWARD_FUNCS, STATS
from toy_tasks import make_dataset

PRESET = ${py(presetName)}

class LambdaTokBudget(TrainerCallback):
    """The dual update of lambda_tok toward a token budget B (docs/rl.md section 5), after each optimizer step:
    lambda_tok <- clamp(lambda_tok + eta (mean_tokens - B), 0, lambda_max); the tokens reward weight is -lambda_tok."""

    def __init__(self, lambda_tok, budget, eta, lambda_max, steps_per_generation):
        self.lambda_tok, self.budget, self.eta, self.lambda_max = lambda_tok, budget, eta, lambda_max
        self.steps_per_generation = steps_per_generation
        self.trainer = None  # set once the trainer exists

    def on_step_end(self, args, state, control, **kwargs):
        # the playground moves lambda once per rollout, after its last minibatch. Evals run after this
        # hook at multiples of steps_per_generation, and the next training generation refreshes STATS
        # before the next update, so eval completions never move lambda.
        if self.trainer is None or state.global_step % self.steps_per_generation != 0:
            return
        self.lambda_tok = min(self.lambda_max, max(0.0, self.lambda_tok + self.eta * (STATS["mean_tokens"] - self.budget)))
        self.trainer.reward_weights[1] = -self.lambda_tok

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs is not None:
            logs["lambda_tok"] = self.lambda_tok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="a causal LM on the Hugging Face Hub or a local path")
    parser.add_argument("--train-size", type=int, default=${py(Math.max(c.steps, 1) * c.promptsPerStep)})
    opts = parser.parse_args()

    config = GRPOConfig(
${kwargs}
    )
    train = Dataset.from_list(make_dataset("train", opts.train_size))
    evaluation = Dataset.from_list(make_dataset("eval", ${py(c.evalEpisodes)}))
    callbacks = [${budget ? `LambdaTokBudget(${[c.lambdaTok, c.budget, c.dualEta, c.lambdaMax, c.minibatches].map(py).join(', ')})` : ''}]
    trainer = GRPOTrainer(
        model=opts.model,
        reward_funcs=REWARD_FUNCS,
        args=config,
        train_dataset=train,
        eval_dataset=evaluation,
        callbacks=callbacks,
    )
    for cb in callbacks:
        cb.trainer = trainer
    trainer.train()


if __name__ == "__main__":
    main()
`;
}

function rewardsPy(c: RunConfig): string {
  return `"""Reward functions for TRL's GRPOTrainer, one per term of the communication-aware reward (generated).

GRPOConfig.reward_weights = [1, -lambda_tok, -lambda_turn, -lambda_rep] combines them into
r = r_env - lambda_tok tokens - lambda_turn turns - lambda_rep repetition, and TRL logs each one.
"""
import json

from toy_tasks import outcome
${PY_TRL_REWARDS}
# weights as exported: ${py(trlOptions(c).reward_weights)}
`;
}

export function trlFiles(c: RunConfig, presetName: string): ExportFile[] {
  const run = [
    `pip install trl datasets   # the option names were read from TRL ${OPTION_SOURCES.trl.version}`,
    `python train_grpo.py --model Qwen/Qwen2.5-0.5B-Instruct   # or any causal LM you choose`,
  ];
  return [
    { path: 'train_grpo.py', text: trainScript(c, presetName) },
    { path: 'rewards.py', text: rewardsPy(c) },
    { path: 'toy_tasks.py', text: toyTasksPy(c) },
    { path: 'README.md', text: recipeReadme('trl', c, presetName, mappingRows(c), run) },
  ];
}
