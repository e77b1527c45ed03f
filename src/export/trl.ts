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

/**
 * TRL defaults the playground's objective depends on, written out so a new TRL default cannot change the
 * objective silently (TRL 1.13 turned use_bias_correction_kl on, for one). Each with the page's equivalent.
 */
export function pinnedDefaults(c: RunConfig): Array<{ key: string; value: PyValue; page: string }> {
  return [
    { key: 'use_bias_correction_kl', value: false, page: `the KL term is the plain k3 estimate per token, not multiplied by the ratio (beta ${c.beta})` },
    { key: 'multi_objective_aggregation', value: 'sum_then_normalize', page: 'r = r_env - lambda_tok tokens - ..., summed first, then the advantage' },
    { key: 'mask_truncated_completions', value: false, page: 'a turn cut at its token limit stays in the loss' },
    { key: 'top_p', value: 1.0, page: 'rollouts sample the whole softmax at the temperature' },
    { key: 'top_k', value: 0, page: 'no top-k filter' },
    { key: 'min_p', value: null, page: 'no min-p filter' },
    { key: 'repetition_penalty', value: 1.0, page: 'no repetition penalty in sampling (lambda_rep is a reward term)' },
    { key: 'top_entropy_quantile', value: 1.0, page: 'every completion token is in the loss' },
    { key: 'entropy_coef', value: 0.0, page: 'entropy is a metric only, no bonus' },
    { key: 'off_policy_mask_threshold', value: null, page: 'no off-policy sequence masking' },
    { key: 'sync_ref_model', value: false, page: 'the KL reference stays the start policy' },
  ];
}

/** GRPOConfig's keyword arguments: the mapping rows, the pinned defaults, and what the export itself needs. */
export function grpoConfigKwargs(c: RunConfig): Record<string, PyValue> {
  return {
    output_dir: 'grpo-output',
    ...trlOptions(c),
    ...Object.fromEntries(pinnedDefaults(c).map((d) => [d.key, d.value])),
    max_completion_length: ENV_PYTHON[c.env].maxCompletion(c),
    per_device_eval_batch_size: c.groupSize,
    logging_steps: 1,
    report_to: 'none',
  };
}

function trainScript(c: RunConfig, presetName: string): string {
  const pinned = new Map(pinnedDefaults(c).map((d) => [d.key, d.page]));
  const kwargs = Object.entries(grpoConfigKwargs(c))
    .map(([k, v]) => `        ${k}=${py(v)},${pinned.has(k) ? `  # pinned TRL default; the page: ${pinned.get(k)}` : ''}`).join('\n');
  const budget = c.lambdaMode === 'budget';
  return `"""GRPO/GSPO with TRL for a GSPO Playground preset (PRESET below; generated, see README.md).

python train_grpo.py                                   # the run's own policy (./policy), when exported with it
python train_grpo.py --model MODEL_NAME_OR_PATH        # or any causal LM
python train_grpo.py --max-steps 2 --eval-steps 1 --eval-batch ${c.groupSize} --cpu   # a few steps first
python train_grpo.py --eval-on-start --greedy-eval          # also evaluate before the first step, greedily (as the page)
accelerate launch --num_processes N train_grpo.py            # N processes (GPUs): the same global batch, split N ways
"""
import argparse
import json
import os

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer
from transformers import TrainerCallback

from rewards import REWARD_FUNCS, STATS, TRACE
from toy_tasks import make_dataset

PRESET = ${py(presetName)}
HERE = os.path.dirname(os.path.abspath(__file__))
POLICY = os.path.join(HERE, "policy")
NUM_GENERATIONS = ${py(c.groupSize)}
# under accelerate launch (torchrun) each process runs this script; WORLD_SIZE and RANK say which one it is
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
MAIN = int(os.environ.get("RANK", "0")) == 0


def say(*args):
    """print, once: on the main process only."""
    if MAIN:
        print(*args, flush=True)


def split_batch(run_batch, steps_per_generation, per_device=None):
    """The per-device batch at WORLD processes: the run's completions per optimizer step divided WORLD ways, so the
    global batch (and each rollout, steps_per_generation of them) is the run's; or per_device as given, when
    num_generations divides the global rollout it makes. Returns (per_device, why-not) with one of them None."""
    if per_device is None:
        if run_batch % WORLD:
            return None, (f"the run's {run_batch} completions per optimizer step do not split across {WORLD} processes; "
                          f"use a process count that divides {run_batch}, or --per-device-batch")
        per_device = run_batch // WORLD
    rollout = per_device * WORLD * steps_per_generation
    if rollout % NUM_GENERATIONS:
        return None, (f"--per-device-batch {per_device} x {WORLD} processes x {steps_per_generation} steps per generation = "
                      f"{rollout} completions per rollout, not a multiple of num_generations ({NUM_GENERATIONS})")
    return per_device, None


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

    def logs(self):
        return {"lambda_tok": self.lambda_tok}


class LambdaTokWeight:
    """lambda_tok as TRL applies it: minus the tokens reward weight (fixed here; LambdaTokBudget moves it)."""

    trainer = None

    def logs(self):
        return {"lambda_tok": -float(self.trainer.reward_weights[1])}


class PlaygroundGRPOTrainer(GRPOTrainer):
    """GRPOTrainer whose logs also hold what the page plots and TRL does not log itself: lambda_tok (the budget's
    dual variable) and r_task (the task measure, where it differs from the env reward). transformers copies a log
    into state.log_history (trainer_state.json, TensorBoard, W&B) before callbacks' on_log see it, so the values
    are added here, in the trainer's log."""

    playground_logs = ()  # objects with a logs() -> dict

    def log(self, logs, start_time=None):
        if "train_runtime" in logs:  # the closing summary: the steps' own logs already hold the values
            return super().log(logs, start_time)
        prefix = "eval_" if any(k.startswith("eval_") for k in logs) else ""
        extra = {}
        for source in self.playground_logs:
            extra.update(source.logs())
        batches = STATS["r_task_batches"]
        if batches:
            extra["r_task"] = sum(batches) / len(batches)
            batches.clear()
        logs.update({prefix + k: v for k, v in extra.items()})
        super().log(logs, start_time)

    greedy_eval = False  # --greedy-eval

    def evaluate(self, *args, **kwargs):
        """--greedy-eval: the eval writes the argmax continuation, as the page's eval does (training still samples)."""
        if not self.greedy_eval or not hasattr(self, "generation_kwargs"):  # vLLM keeps its own sampling
            return super().evaluate(*args, **kwargs)
        from transformers import GenerationConfig

        saved = self.generation_config, self.generation_kwargs
        greedy = {k: v for k, v in self.generation_kwargs.items() if k not in ("temperature", "top_p", "top_k", "min_p")}
        greedy["do_sample"] = False
        self.generation_kwargs, self.generation_config = greedy, GenerationConfig(**greedy, disable_compile=True)
        try:
            return super().evaluate(*args, **kwargs)
        finally:
            self.generation_config, self.generation_kwargs = saved


def choose_precision(force_cpu):
    """bf16 only where torch says the device has it, else fp32 (TRL's bf16 default fails on a CPU, a T4 or a V100)."""
    import torch

    if force_cpu or not torch.cuda.is_available():
        return {"use_cpu": True, "bf16": False}, "fp32 on the CPU" + (" (--cpu)" if force_cpu else " (no CUDA device)")
    if torch.cuda.is_bf16_supported():
        return {"bf16": True}, "bf16 (torch.cuda.is_bf16_supported() on " + torch.cuda.get_device_name() + ")"
    return {"bf16": False}, "fp32 (" + torch.cuda.get_device_name() + " has no bf16)"


def main():
    parser = argparse.ArgumentParser()
    exported = os.path.exists(os.path.join(POLICY, "playground.json"))
    parser.add_argument("--model", default=POLICY if exported else None, required=not exported,
                        help="a causal LM (Hub id or local path); default: ./policy, the run's own policy, when exported with it")
    parser.add_argument("--train-size", type=int, default=${py(Math.max(c.steps, 1) * c.promptsPerStep)})
    parser.add_argument("--max-steps", type=int, default=None, help="optimizer steps (default: the run's, ${(grpoConfigKwargs(c).max_steps as number)})")
    parser.add_argument("--eval-steps", type=int, default=None, help="evaluate every this many optimizer steps (default ${grpoConfigKwargs(c).eval_steps as number})")
    parser.add_argument("--eval-size", type=int, default=${py(c.evalEpisodes)}, help="eval tasks (the run's evalEpisodes)")
    parser.add_argument("--eval-batch", type=int, default=None, help="eval completions per device batch, a multiple of ${c.groupSize} (default ${c.groupSize})")
    parser.add_argument("--output-dir", default=None, help="where checkpoints and trainer_state.json go (default grpo-output)")
    parser.add_argument("--cpu", action="store_true", help="train on the CPU even where a GPU is present")
    parser.add_argument("--eval-on-start", action="store_true", help="evaluate once before the first step (the exported policy as it is)")
    parser.add_argument("--greedy-eval", action="store_true", help="evaluate greedily, one completion per task, as the page's eval (TRL's eval samples num_generations)")
    parser.add_argument("--per-device-batch", type=int, default=None,
                        help="completions per device per optimizer step (default: the run's ${grpoConfigKwargs(c).per_device_train_batch_size as number} divided by the process count)")
    parser.add_argument("--use-vllm", action="store_true", help="generate with vLLM inside each training process (TRL's colocate mode; needs a GPU and pip install vllm)")
    parser.add_argument("--task-log", default=None, help="a folder: each process writes the tasks it scored (tasks-rankR.jsonl: step, split, index, r_task, tokens)")
    opts = parser.parse_args()

    def refuse(message):
        """the usage error, said once: the main process prints it, every process exits 2."""
        if MAIN:
            parser.error(message)
        raise SystemExit(2)

    # the playground's own policy reads the task in its tokens; any other model in words
    policy_meta = None
    meta_path = os.path.join(opts.model, "playground.json")
    if os.path.isdir(opts.model) and os.path.exists(meta_path):
        with open(meta_path) as f:
            policy_meta = json.load(f)
    prompt_format = policy_meta["prompt_format"] if policy_meta else "words"

    precision, said = choose_precision(opts.cpu)
    say(f"precision: {said}")
    config = GRPOConfig(
${kwargs}
        **precision,
    )
    # this run's sizes, from the flags (the values above are the playground run's)
    if config.world_size != WORLD:
        raise SystemExit(f"{config.world_size} training processes, but WORLD_SIZE says {WORLD}")
    per_device, why = split_batch(config.per_device_train_batch_size, config.steps_per_generation, opts.per_device_batch)
    if why:
        refuse(why)
    if per_device != config.per_device_train_batch_size:
        config.per_device_train_batch_size = per_device
        # as GRPOConfig computes it from the per-device batch (one rollout: steps_per_generation optimizer steps)
        config.generation_batch_size = per_device * WORLD * config.steps_per_generation
    if opts.max_steps is not None:
        config.max_steps = opts.max_steps
    if opts.eval_steps is not None:
        config.eval_steps = opts.eval_steps
    if opts.eval_batch is not None:
        if opts.eval_batch % NUM_GENERATIONS:
            parser.error(f"--eval-batch must be a multiple of num_generations ({NUM_GENERATIONS}), got {opts.eval_batch}")
        config.per_device_eval_batch_size = opts.eval_batch
    if opts.output_dir is not None:
        config.output_dir = opts.output_dir
    if opts.eval_on_start:
        config.eval_on_start = True
    if opts.greedy_eval:
        config.num_generations_eval = 1  # one argmax completion per eval task
    if opts.use_vllm:
        config.use_vllm = True
        config.vllm_mode = "colocate"  # vLLM shares each training process's GPU; no separate server
    eval_completions = opts.eval_size * (config.num_generations_eval or NUM_GENERATIONS)
    if WORLD > 1 and eval_completions % (config.per_device_eval_batch_size * WORLD):
        # accelerate would pad the last eval batch with tasks from the start, scoring them twice
        refuse(f"--eval-size {opts.eval_size} gives {eval_completions} eval completions, not a multiple of the global "
                     f"eval batch {config.per_device_eval_batch_size} x {WORLD} processes")
    if policy_meta:
        # the playground's token limit for the trained turn (EOS included): the policy's positions end at n_positions
        config.max_completion_length = policy_meta["max_completion_length"]
    say(f"model: {opts.model} (prompts in {prompt_format}); max_steps {config.max_steps}, eval every {config.eval_steps}, "
        f"eval batch {config.per_device_eval_batch_size}" + (", greedy eval" if opts.greedy_eval else ""))
    say(f"processes: {WORLD}; per-device batch {config.per_device_train_batch_size}, global batch "
        f"{config.per_device_train_batch_size * WORLD}, {config.generation_batch_size} completions "
        f"({config.generation_batch_size // NUM_GENERATIONS} tasks x {NUM_GENERATIONS}) per rollout")
    if opts.task_log:
        os.makedirs(opts.task_log, exist_ok=True)
        TRACE["file"] = open(os.path.join(opts.task_log, f"tasks-rank{os.environ.get('RANK', '0')}.jsonl"), "w")

    # every process makes the same seeded rows; TRL's sampler (seeded alike) gives each process its own share.
    # index and split go to the reward functions with each completion (for --task-log)
    def rows(split, count):
        return [dict(r, index=i, split=split) for i, r in enumerate(make_dataset(split, count, prompt_format=prompt_format))]

    train = Dataset.from_list(rows("train", opts.train_size))
    evaluation = Dataset.from_list(rows("eval", opts.eval_size))
    callbacks = [${budget ? `LambdaTokBudget(${[c.lambdaTok, c.budget, c.dualEta, c.lambdaMax, c.minibatches].map(py).join(', ')})` : ''}]
    trainer = PlaygroundGRPOTrainer(
        model=opts.model,
        reward_funcs=REWARD_FUNCS,
        args=config,
        train_dataset=train,
        eval_dataset=evaluation,
        callbacks=callbacks,
    )
    trainer.playground_logs = tuple(callbacks) or (LambdaTokWeight(),)
    trainer.greedy_eval = opts.greedy_eval
    for source in trainer.playground_logs:
        source.trainer = trainer
    trainer.train()
    # the policy and the whole log history (lambda_tok included) where a person looks first; save_model on every
    # process (it gathers sharded weights and writes on the main one), the log history once
    trainer.save_model(os.path.join(config.output_dir, "final"))
    if trainer.is_world_process_zero():
        trainer.state.save_to_json(os.path.join(config.output_dir, "trainer_state.json"))
    if TRACE["file"] is not None:
        TRACE["file"].write(json.dumps({"finished": trainer.state.global_step, "rank": int(os.environ.get("RANK", "0"))}) + "\\n")
        TRACE["file"].close()


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

/** An accelerate config for DeepSpeed ZeRO stage 3, in accelerate's own config-file keys (ClusterConfig, and
 * accelerate launch's --zero_stage etc. under deepspeed_config). */
function deepspeedZero3(): string {
  return `# DeepSpeed ZeRO stage 3 for accelerate launch (generated; see README.md): the parameters, gradients and
# optimizer state sharded across the GPUs, for a model that does not fit one GPU. Needs CUDA GPUs and
# pip install deepspeed.
#   accelerate launch --config_file deepspeed_zero3.yaml --num_processes N train_grpo.py --model MODEL
compute_environment: LOCAL_MACHINE
distributed_type: DEEPSPEED
deepspeed_config:
  zero_stage: 3
  zero3_init_flag: true  # the model is built already sharded
  zero3_save_16bit_model: true  # save_model gathers the whole model into one file
  offload_optimizer_device: none  # cpu: the optimizer state in host memory, when the GPUs are still short of it
  offload_param_device: none
  deepspeed_multinode_launcher: standard
mixed_precision: 'no'  # train_grpo.py chooses bf16 itself where the GPU has it (printed at the start)
num_machines: 1
machine_rank: 0
num_processes: 8  # --num_processes on the command line wins
rdzv_backend: static
same_network: true
use_cpu: false
`;
}

export function trlFiles(c: RunConfig, presetName: string): ExportFile[] {
  const perStep = grpoConfigKwargs(c).per_device_train_batch_size as number;
  const run = [
    `pip install trl datasets torch   # the option names were read from TRL ${OPTION_SOURCES.trl.version}; run against TRL 1.13.0, transformers 5.18.0, torch 2.13.0`,
    `python train_grpo.py --max-steps 2 --eval-steps 2 --eval-size 16 --eval-batch ${c.groupSize} --cpu   # a few steps first (any machine)`,
    `python train_grpo.py --cpu --max-steps 4 --eval-steps 4 --eval-on-start --greedy-eval   # the exported policy's eval before it trains, greedy as the page's (docs/export.md)`,
    `python train_grpo.py                # continues the run's own policy (./policy, when exported with it: CLI export --checkpoint/--run)`,
    `python train_grpo.py --model Qwen/Qwen2.5-0.5B-Instruct   # or any causal LM you choose (prompts in words)`,
    `# precision: bf16 where torch.cuda.is_bf16_supported(), else fp32 (printed at the start); logs and checkpoints in grpo-output/`,
    ``,
    `# Past one GPU: accelerate launch (accelerate comes with trl) starts one process per GPU. The run's ${perStep} completions`,
    `# a step are split across the N processes (N must divide ${perStep}, else --per-device-batch B, with ${c.groupSize} dividing B x N x ${c.minibatches}),`,
    `# so the global batch and the steps stay the run's; the log (lambda_tok, the reward terms) is written once.`,
    `accelerate launch --multi_gpu --num_processes N train_grpo.py                   # N GPUs, one machine (CUDA)`,
    `accelerate launch --multi_gpu --num_processes 2 train_grpo.py --cpu --max-steps 2 --eval-steps 2 --eval-size 16 --eval-batch 16 --train-size 64 --task-log tasks   # 2 processes on the CPU (gloo; any machine; accelerate's own --cpu starts one process); tasks/ says which tasks each trained`,
    `accelerate launch --config_file deepspeed_zero3.yaml --num_processes N train_grpo.py --model MODEL   # a model too large for one GPU: DeepSpeed ZeRO-3 (CUDA GPUs; pip install deepspeed)`,
    `accelerate launch --multi_gpu --num_processes N train_grpo.py --use-vllm       # generation by vLLM inside each process (TRL's colocate mode; CUDA GPUs; pip install vllm)`,
    `# several machines: the same line on each, with its own --machine_rank (0 on the machine at HOST); --num_processes counts every GPU`,
    `accelerate launch --multi_gpu --num_machines 2 --machine_rank 0 --main_process_ip HOST --main_process_port 29500 --num_processes 16 train_grpo.py   # (CUDA GPUs on each; HOST:29500 reachable from the others)`,
  ];
  return [
    { path: 'train_grpo.py', text: trainScript(c, presetName) },
    { path: 'rewards.py', text: rewardsPy(c) },
    { path: 'toy_tasks.py', text: toyTasksPy(c) },
    { path: 'deepspeed_zero3.yaml', text: deepspeedZero3() },
    { path: 'README.md', text: recipeReadme('trl', c, presetName, mappingRows(c), run) },
  ];
}
