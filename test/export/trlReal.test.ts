// The TRL export on real TRL: a virtual environment with trl, transformers and a CPU torch from the
// machine's pip (made once under node_modules/.cache/trl-venv, reused), then
//   - policy/ loads with transformers and gives the engine's token log-probs (max abs error <= 1e-5) and
//     the engine's greedy tokens; the same weights without the Conv1D transpose do not (the check can fail);
//   - the exported scripts run as exported on the CPU for a few steps with the exported policy, and
//     trainer_state.json holds the reward terms, r_task and (relay-budget) lambda_tok as the dual update moved it;
//   - the beta > 0 export pins use_bias_correction_kl=False, which TRL would otherwise turn on;
//   - relay-silence under accelerate launch on 2 CPU processes (gloo): the single-process run's global batch, steps
//     and tasks, split disjointly between the processes (--task-log), lambda_tok logged once a step;
//   - deepspeed_zero3.yaml read by accelerate's own loader; run_verl.sh run through with a stand-in for verl.
// Without the install it skips; under CI=true it fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEnv } from '../../src/envs/registry';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { scoutContext } from '../../src/envs/relay';
import { readCheckpoint } from '../../src/model/checkpoint';
import { GPT } from '../../src/model/gpt';
import { mulberry32 } from '../../src/model/random';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { VERL_KEYS } from '../../src/export/optionNames';
import { gspo, ROOT, tempDir } from '../cli/run';

// GSPO_TRL_VENV: another place for it (a worktree whose node_modules is shared with another checkout)
const VENV = process.env.GSPO_TRL_VENV ?? join(ROOT, 'node_modules', '.cache', 'trl-venv');
const PY = join(VENV, 'bin', 'python');
const CHECKPOINTS = join(ROOT, 'public', 'checkpoints');
const LOCAL_INDEX = '/opt/pypi/simple';
const CI = process.env.CI === 'true';

/** Reuses the venv when it imports trl; else makes it (seconds of install, said in the log). null: cannot. */
function ensureVenv(): { ok: boolean; why: string; installSeconds: number } {
  const imports = () => existsSync(PY) && spawnSync(PY, ['-c', 'import trl, transformers, torch, datasets, accelerate'], { encoding: 'utf8' }).status === 0;
  if (imports()) return { ok: true, why: 'reused', installSeconds: 0 };
  const t0 = Date.now();
  rmSync(VENV, { recursive: true, force: true });
  mkdirSync(dirname(VENV), { recursive: true });
  const mk = spawnSync('python3', ['-m', 'venv', VENV], { encoding: 'utf8' });
  if (mk.status !== 0) return { ok: false, why: `python3 -m venv failed: ${mk.stderr.trim().split('\n').pop()}`, installSeconds: 0 };
  // the machine's pip reads local wheels; with the local index first it never waits on an unreachable one
  const env = { ...process.env, ...(existsSync(LOCAL_INDEX) ? { PIP_INDEX_URL: `file://${LOCAL_INDEX}` } : {}), PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  const pip = spawnSync(PY, ['-m', 'pip', 'install', '-q', 'trl', 'transformers', 'torch', 'datasets', 'accelerate'], { encoding: 'utf8', env, timeout: 900_000 });
  const installSeconds = (Date.now() - t0) / 1000;
  if (pip.status !== 0 || !imports()) return { ok: false, why: `pip install failed (${pip.status}): ${(pip.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`, installSeconds };
  console.log(`trl venv made in ${installSeconds.toFixed(0)} s (${VENV})`);
  return { ok: true, why: 'installed', installSeconds };
}

let venv = { ok: false, why: 'not tried', installSeconds: 0 };
const root = tempDir();

beforeAll(() => {
  venv = ensureVenv();
  if (!venv.ok && CI) throw new Error(`the TRL test cannot install its venv under CI: ${venv.why}`);
}, 1_200_000);

/** Skips the test where the venv could not be made (never under CI, where beforeAll already failed). */
function needVenv(ctx: { skip: (note?: string) => void }): void {
  if (!venv.ok) ctx.skip(venv.why);
}

/** The CLI's TRL export of `preset` with `checkpoint`'s weights into a fresh folder. */
function exportWithPolicy(preset: string, checkpoint: string, sets: string[] = []): string {
  const out = join(root, `${preset}${sets.length ? '-' + sets.join('-').replace(/[^A-Za-z0-9]/g, '') : ''}`);
  const r = gspo(['export', '--preset', preset, ...sets.flatMap((s) => ['--set', s]), '--to', 'trl', '--checkpoint', join(CHECKPOINTS, checkpoint), '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

function python(code: string, input = ''): any {
  return JSON.parse(execFileSync(PY, ['-c', code], { encoding: 'utf8', input, maxBuffer: 64 << 20 }).trim().split('\n').pop()!);
}

describe('policy/ is the engine\'s policy in transformers', () => {
  it('token log-probs match the engine (max abs error <= 1e-5), greedy tokens match, and the untransposed layout would not', async (ctx) => {
    needVenv(ctx);
    const out = exportWithPolicy('relay-silence', 'relay-warm.safetensors');
    const ck = readCheckpoint(readFileSync(join(CHECKPOINTS, 'relay-warm.safetensors')));
    const c = presetConfig(findPreset('relay-silence'), {}), env = createEnv(c);
    const T = ck.config.blockSize, V = ck.config.vocabSize;
    // sequences: random tokens over the whole vocabulary and the whole block, and Scout contexts with their demos
    const rand = mulberry32(42);
    const seqs: number[][] = Array.from({ length: 4 }, (_, i) => Array.from({ length: i === 0 ? T : 5 + Math.floor(rand() * (T - 5)) }, () => Math.floor(rand() * V)));
    for (const d of env.demonstrations(4, 3)) seqs.push(d.tokens.slice(0, T));
    const backend = new CpuBackend();
    const model = new GPT(backend, ck.config, ck.weights);
    const engine: number[][] = [];
    for (const s of seqs) {
      const logits = await backend.read(model.forward(s, 1, s.length));
      const lp: number[] = [];
      for (let t = 0; t + 1 < s.length; t++) {
        const row = Array.from(logits.subarray(t * V, (t + 1) * V));
        const m = Math.max(...row), lse = m + Math.log(row.reduce((a, x) => a + Math.exp(x - m), 0));
        lp.push(row[s[t + 1]] - lse);
      }
      engine.push(lp);
    }
    // greedy: the engine's argmax continuation of Scout contexts on eval tasks, up to the turn's limit or EOS
    const tasks = env.sampleTasks('eval', 6, 0, 0) as Parameters<typeof scoutContext>[0][];
    const greedy: number[][] = [];
    for (const task of tasks) {
      const seq = scoutContext(task), gen: number[] = [];
      while (gen.length < c.maxMessage + 1) {
        const logits = await backend.read(model.forward(seq, 1, seq.length));
        const row = Array.from(logits.subarray((seq.length - 1) * V, seq.length * V));
        const next = row.indexOf(Math.max(...row));
        gen.push(next); seq.push(next);
        if (next === env.eos) break;
      }
      greedy.push(gen);
    }
    model.destroy(); backend.destroy();
    const res = python(`
import json, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
d = json.load(sys.stdin)
m = AutoModelForCausalLM.from_pretrained(d["policy"]).eval()
tok = AutoTokenizer.from_pretrained(d["policy"])
def logprobs(model):
    out = []
    for s in d["seqs"]:
        with torch.no_grad():
            lp = torch.log_softmax(model(torch.tensor([s])).logits[0].double(), -1)
        out.append([lp[t, s[t + 1]].item() for t in range(len(s) - 1)])
    return out
good = logprobs(m)
greedy = []
for ctx in d["contexts"]:
    ids = tok(" ".join(d["vocab"][i] for i in ctx), return_tensors="pt")
    assert ids["input_ids"][0].tolist() == ctx, (ids["input_ids"][0].tolist(), ctx)
    g = m.generate(**ids, max_new_tokens=d["max_new"], do_sample=False)[0][len(ctx):].tolist()
    greedy.append(g)
# the square Conv1D weights (attn.c_proj) left in nanoGPT's [out, in] layout: what a missing transpose would load
bad = AutoModelForCausalLM.from_pretrained(d["policy"]).eval()
for k, v in bad.state_dict().items():
    if v.dim() == 2 and any(n in k for n in ("c_attn", "c_proj", "c_fc")) and v.shape[0] == v.shape[1]:
        v.copy_(v.t().clone())
print(json.dumps({"logprobs": good, "untransposed": logprobs(bad), "greedy": greedy, "model": type(m).__name__,
                  "tied": m.lm_head.weight.data_ptr() == m.transformer.wte.weight.data_ptr()}))
`, JSON.stringify({ policy: join(out, 'policy'), seqs, contexts: tasks.map((t) => scoutContext(t)), vocab: env.vocab, max_new: c.maxMessage + 1 }));
    expect(res.model).toBe('GPT2LMHeadModel');
    expect(res.tied).toBe(true);
    const err = (a: number[][], b: number[][]) => Math.max(...a.flatMap((row, i) => row.map((x, t) => Math.abs(x - b[i][t]))));
    const n = engine.reduce((a, r) => a + r.length, 0);
    expect(n).toBeGreaterThan(60);
    expect(Math.min(...engine.flat())).toBeLessThan(-1); // not a trivially certain model: the comparison has something to see
    const maxErr = err(res.logprobs, engine);
    console.log(`policy/ vs engine: ${n} token log-probs, max abs error ${maxErr.toExponential(2)}; untransposed ${err(res.untransposed, engine).toFixed(3)}`);
    expect(maxErr).toBeLessThanOrEqual(1e-5);
    expect(err(res.untransposed, engine)).toBeGreaterThan(1e-2); // a layout slip is caught
    // transformers stops at EOS and keeps it; the engine's loop above does the same
    expect(res.greedy).toEqual(greedy);
    expect(greedy.some((g) => g.length > 1)).toBe(true);
  }, 300_000);
});

interface LogEntry { step: number; [k: string]: number }

/** Runs the exported script as exported (flags only), returns trainer_state.json's log history. With `processes`,
 * under accelerate launch: torchrun's launcher (--multi_gpu: accelerate's --cpu starts one process) and gloo (--cpu). */
function runScript(dir: string, flags: string[], outName = 'grpo-out', processes = 0): LogEntry[] & { stdout?: string } {
  const outDir = join(dir, outName);
  const launch = processes
    ? [join(VENV, 'bin', 'accelerate'), ['launch', '--multi_gpu', '--num_processes', String(processes), '--num_machines', '1', '--mixed_precision', 'no',
      '--dynamo_backend', 'no', '--main_process_port', String(freePort()), 'train_grpo.py']] as const
    : [PY, ['train_grpo.py']] as const;
  const t0 = Date.now();
  const r = spawnSync(launch[0], [...launch[1], ...flags, '--cpu', '--output-dir', outDir], {
    cwd: dir, encoding: 'utf8', timeout: 600_000, env: { ...process.env, TOKENIZERS_PARALLELISM: 'false', ...(processes ? { CUDA_VISIBLE_DEVICES: '', OMP_NUM_THREADS: '1' } : {}) },
  });
  if (processes) console.log(`accelerate launch, ${processes} processes: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  expect(r.status, r.stderr.slice(-3000)).toBe(0);
  expect(r.stdout).toContain('precision: fp32 on the CPU (--cpu)');
  expect(r.stdout).toMatch(/prompts in tokens/);
  const history: LogEntry[] & { stdout?: string } = (JSON.parse(readFileSync(join(outDir, 'trainer_state.json'), 'utf8')) as { log_history: LogEntry[] }).log_history;
  history.stdout = r.stdout;
  return history;
}

/** A TCP port nobody listens on now (the launcher's rendezvous; tests of other checkouts may run beside this one). */
function freePort(): number {
  return Number(execFileSync(PY, ['-c', 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'], { encoding: 'utf8' }).trim());
}

const TERMS = ['rewards/reward_task/mean', 'rewards/reward_tokens/mean', 'rewards/reward_turns/mean', 'rewards/reward_repetition/mean', 'r_task'];

describe('the exported scripts run on real TRL with the exported policy', () => {
  for (const [preset, checkpoint] of [
    ['relay-silence', 'relay-warm.safetensors'],
    ['agentpo-critic', 'agentpo-critic-collaborator.safetensors'],
    ['philosophers-fixed', 'philosophers-warm.safetensors'],
  ]) it(`${preset}: 2 steps on the CPU, exit 0, the reward terms in trainer_state.json`, (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy(preset, checkpoint);
    const history = runScript(dir, ['--max-steps', '2', '--eval-steps', '2', '--eval-size', '16', '--eval-batch', '16', '--train-size', '64']);
    const first = history.find((h) => h.step === 1 && 'loss' in h)!;
    expect(first, JSON.stringify(history)).toBeDefined();
    for (const k of TERMS) expect(first[k], k).toEqual(expect.any(Number));
    const evalLog = history.find((h) => 'eval_loss' in h)!;
    for (const k of TERMS) expect(evalLog[`eval_${k}`], `eval_${k}`).toEqual(expect.any(Number));
    // the weighted sum the reward is: r = r_env - lambda_tok tokens - lambda_turn turns - lambda_rep repetition
    const w = presetConfig(findPreset(preset), {});
    const sum = first['rewards/reward_task/mean'] - w.lambdaTok * first['rewards/reward_tokens/mean'] - w.lambdaTurn * first['rewards/reward_turns/mean'] - w.lambdaRep * first['rewards/reward_repetition/mean'];
    expect(first.reward).toBeCloseTo(sum, 4);
  }, 600_000);

  it('relay-budget: lambda_tok is in the log history and moves by the dual update after the generation\'s 4 steps', (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy('relay-budget', 'relay-warm.safetensors');
    const history = runScript(dir, ['--max-steps', '4', '--eval-steps', '4', '--eval-size', '16', '--eval-batch', '16', '--train-size', '64']);
    const train = history.filter((h) => 'loss' in h);
    expect(train.map((h) => h.step)).toEqual([1, 2, 3, 4]);
    for (const h of train) expect(h.lambda_tok, `step ${h.step}`).toEqual(expect.any(Number));
    expect(train.slice(0, 3).map((h) => h.lambda_tok)).toEqual([0, 0, 0]);
    // the warm start speaks ~6 tokens > B = 4: lambda_tok = clamp(0 + 0.005 (mean tokens - 4), 0, 1)
    const tokens = train[0]['rewards/reward_tokens/mean'];
    expect(tokens).toBeGreaterThan(4);
    expect(train[3].lambda_tok).toBeCloseTo(0.005 * (tokens - 4), 6);
    expect(history.find((h) => 'eval_loss' in h)!.eval_lambda_tok).toBeCloseTo(train[3].lambda_tok, 9);
  }, 600_000);
});

interface Scored { step: number; split: 'train' | 'eval'; index: number; r_task: number; tokens: number }

/** --task-log's files: each process's scored completions, and the step it finished at. */
function taskLog(folder: string, rank: number): { rows: Scored[]; finished?: number } {
  const lines = readFileSync(join(folder, `tasks-rank${rank}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const end = lines.find((l) => 'finished' in l);
  return { rows: lines.filter((l) => 'index' in l), finished: end?.finished };
}
const indices = (rows: Scored[], split: string) => rows.filter((r) => r.split === split).map((r) => r.index);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
const countOf = (xs: number[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<number, number>());

describe('accelerate launch: the exported script across 2 processes (CPU, gloo)', () => {
  it('relay-silence, 2 steps: both finish; the global batch, the steps and the tasks are the single-process run\'s, split disjointly; lambda_tok logged once a step', (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy('relay-silence', 'relay-warm.safetensors');
    const G = 8, flags = ['--max-steps', '2', '--eval-steps', '2', '--eval-size', '16', '--eval-batch', '16', '--train-size', '64'];
    const one = runScript(dir, [...flags, '--task-log', join(dir, 'tasks-1')], 'out-1');
    const two = runScript(dir, [...flags, '--task-log', join(dir, 'tasks-2')], 'out-2', 2);
    // sizes, said once (the main process prints): the run's 64 completions per optimizer step, 32 per process
    expect(one.stdout).toContain('processes: 1; per-device batch 64, global batch 64, 256 completions (32 tasks x 8) per rollout');
    expect(two.stdout).toContain('processes: 2; per-device batch 32, global batch 64, 256 completions (32 tasks x 8) per rollout');
    expect(two.stdout!.match(/^precision: /gm)).toHaveLength(1);
    // the steps, and the epoch each reached (steps x global batch / the dataset): the single-process run's
    const steps = (h: LogEntry[]) => h.filter((e) => 'loss' in e).map((e) => [e.step, e.epoch]);
    expect(steps(two)).toEqual(steps(one));
    expect(steps(two).map((s) => s[0])).toEqual([1, 2]);
    // both processes finished at step 2, and each scored its own share
    const single = taskLog(join(dir, 'tasks-1'), 0), ranks = [0, 1].map((r) => taskLog(join(dir, 'tasks-2'), r));
    expect([single.finished, ...ranks.map((r) => r.finished)]).toEqual([2, 2, 2]);
    // one rollout (steps_per_generation 4 > 2 steps), generated before step 1: 32 tasks x G, 16 of them on each process
    for (const { rows } of ranks) {
      expect(new Set(rows.filter((r) => r.split === 'train').map((r) => r.step))).toEqual(new Set([0]));
      expect([...countOf(indices(rows, 'train')).values()]).toEqual(Array(16).fill(G)); // each task's whole group here
    }
    const [a, b] = ranks.map((r) => new Set(indices(r.rows, 'train')));
    expect([...a].filter((i) => b.has(i))).toEqual([]); // no task trained on both processes
    expect(new Set([...a, ...b])).toEqual(new Set(indices(single.rows, 'train'))); // the tasks the single process trained
    expect(a.size).toBe(16);
    // the eval: the same 16 tasks, each on one process only, G completions each
    const [ea, eb] = ranks.map((r) => indices(r.rows, 'eval'));
    expect([...new Set(ea)].filter((i) => eb.includes(i))).toEqual([]);
    expect([...countOf([...ea, ...eb]).entries()].sort((x, y) => x[0] - y[0])).toEqual(Array.from({ length: 16 }, (_, i) => [i, G]));
    expect(new Set(indices(single.rows, 'eval'))).toEqual(new Set(Array.from({ length: 16 }, (_, i) => i)));
    // lambda_tok: in the log history once a step, and printed once a step (the main process logs)
    for (const h of [one, two]) {
      const logged = h.filter((e) => 'lambda_tok' in e);
      expect(logged.map((e) => e.step)).toEqual([1, 2]);
      for (const e of logged) expect(e.lambda_tok).toBeCloseTo(0.1, 6);
    }
    expect(two.stdout!.match(/'lambda_tok'/g)).toHaveLength(2);
    // the logged step-1 terms are means over both processes' completions, as their task logs give them
    const train = ranks.flatMap((r) => r.rows.filter((x) => x.split === 'train'));
    const first = two.find((e) => e.step === 1 && 'loss' in e)!;
    expect(train).toHaveLength(256);
    expect(first.r_task).toBeCloseTo(mean(train.map((r) => r.r_task)), 9);
    expect(first['rewards/reward_tokens/mean']).toBeCloseTo(mean(train.map((r) => r.tokens)), 5);
    const perProcess = ranks.map((r) => mean(r.rows.filter((x) => x.split === 'train').map((x) => x.r_task)));
    console.log(`r_task step 1: logged ${first.r_task}, pooled ${mean(train.map((r) => r.r_task))}, per process ${perProcess.join(' / ')}`);
  }, 600_000);

  it('a process count that does not divide the run\'s batch is refused in one line naming the numbers', (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy('relay-silence', 'relay-warm.safetensors');
    const res = python(`
import json, os, sys
os.chdir(${JSON.stringify(dir)}); sys.path.insert(0, ".")
import train_grpo as t
out = {}
for world, per_device in [(3, None), (2, None), (4, None), (3, 5), (3, 8)]:
    t.WORLD = world
    out[f"{world}/{per_device}"] = t.split_batch(64, 4, per_device)
print(json.dumps(out))
`);
    expect(res['3/None']).toEqual([null, 'the run\'s 64 completions per optimizer step do not split across 3 processes; use a process count that divides 64, or --per-device-batch']);
    expect(res['2/None']).toEqual([32, null]);
    expect(res['4/None']).toEqual([16, null]);
    expect(res['3/5']).toEqual([null, '--per-device-batch 5 x 3 processes x 4 steps per generation = 60 completions per rollout, not a multiple of num_generations (8)']);
    expect(res['3/8']).toEqual([8, null]); // 96 per rollout: 12 tasks x 8
  }, 300_000);
});

describe('the README\'s GPU lines, read by the tools that run them (no GPU needed to read them)', () => {
  it('deepspeed_zero3.yaml is an accelerate config (ZeRO-3, keys accelerate knows); every config.X the script sets is a GRPOConfig field', (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy('relay-silence', 'relay-warm.safetensors');
    const res = python(`
import ast, dataclasses, json, os, sys, tempfile
import yaml
from accelerate.commands.config.config_args import load_config_from_file
from accelerate.commands.launch import launch_command_parser
from trl import GRPOConfig
d = ${JSON.stringify(dir)}
cfg = load_config_from_file(os.path.join(d, "deepspeed_zero3.yaml"))
options = {a.dest for a in launch_command_parser()._actions}
raw = yaml.safe_load(open(os.path.join(d, "deepspeed_zero3.yaml")))
# a mangled top-level key: accelerate's loader refuses it (the check can fail)
bad = dict(raw, num_proceses=2)
path = os.path.join(tempfile.mkdtemp(), "bad.yaml")
yaml.safe_dump(bad, open(path, "w"))
try:
    load_config_from_file(path); refused = ""
except ValueError as e:  # "had unknown keys"
    refused = str(e)
tree = ast.parse(open(os.path.join(d, "train_grpo.py")).read())
set_attrs = sorted({t.attr for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == "config"})
fields = {f.name for f in dataclasses.fields(GRPOConfig)}
print(json.dumps({"type": str(cfg.distributed_type), "stage": cfg.deepspeed_config["zero_stage"],
                  "unknown_ds": [k for k in cfg.deepspeed_config if k not in options], "refused": refused,
                  "set": set_attrs, "not_fields": [a for a in set_attrs if a not in fields]}))
`);
    expect(res.type).toMatch(/DEEPSPEED/);
    expect(res.stage).toBe(3);
    expect(res.unknown_ds).toEqual([]);
    expect(res.refused).toMatch(/unknown keys.*num_proceses/);
    expect(res.set).toEqual(expect.arrayContaining(['use_vllm', 'vllm_mode', 'per_device_train_batch_size', 'generation_batch_size']));
    expect(res.not_fields).toEqual([]);
  }, 300_000);
});

describe('run_verl.sh, run through with a stand-in for verl (verl itself needs CUDA GPUs)', () => {
  it('NODES=2 GPUS=8: prepare_data.py writes the parquet files, and verl.trainer.main_ppo gets keys of verl\'s config with the machine counts expanded', (ctx) => {
    needVenv(ctx); // pandas and pyarrow come with datasets
    const dir = join(root, 'verl-relay-silence');
    const r0 = gspo(['export', '--preset', 'relay-silence', '--to', 'verl', '--out', dir]);
    expect(r0.code, r0.stderr).toBe(0);
    // the stand-in: a verl package whose main_ppo writes the arguments it was given
    const stub = join(root, 'verl-stub');
    mkdirSync(join(stub, 'verl', 'trainer'), { recursive: true });
    for (const f of ['verl/__init__.py', 'verl/trainer/__init__.py']) writeFileSync(join(stub, f), '');
    writeFileSync(join(stub, 'verl', 'trainer', 'main_ppo.py'), 'import json, sys\nprint(json.dumps(sys.argv[1:]))\n');
    const data = join(root, 'verl-data');
    const r = spawnSync('bash', [join(dir, 'run_verl.sh')], {
      encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, PATH: `${join(VENV, 'bin')}:${process.env.PATH}`, PYTHONPATH: stub, MODEL: 'some/model', NODES: '2', GPUS: '8', DATA: data },
    });
    expect(r.status, r.stderr).toBe(0);
    const args: string[] = JSON.parse(r.stdout.trim().split('\n').pop()!);
    const kv = Object.fromEntries(args.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
    expect(args.length).toBe(Object.keys(kv).length);
    expect(Object.keys(kv).filter((k) => !VERL_KEYS.has(k))).toEqual([]);
    expect(kv).toMatchObject({ 'trainer.nnodes': '2', 'trainer.n_gpus_per_node': '8', 'actor_rollout_ref.model.path': 'some/model', 'data.train_files': join(data, 'train.parquet') });
    expect(existsSync(join(data, 'train.parquet')) && existsSync(join(data, 'eval.parquet'))).toBe(true);
  }, 300_000);
});

describe('--eval-on-start --greedy-eval: the exported policy as it is, evaluated as the page does', () => {
  it('relay-silence: an eval at step 0, one argmax completion per task, equal to transformers\' greedy on the same tasks', (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy('relay-silence', 'relay-warm.safetensors', ['seed=0']);
    const history = runScript(dir, ['--max-steps', '1', '--eval-steps', '1', '--eval-size', '16', '--eval-batch', '16', '--train-size', '64', '--eval-on-start', '--greedy-eval']);
    const start = history.find((h) => h.step === 0 && 'eval_loss' in h)!;
    expect(start, JSON.stringify(history)).toBeDefined();
    const greedy = python(`
import json, sys, torch
sys.path.insert(0, ${JSON.stringify(dir)})
from toy_tasks import make_dataset, outcome
from transformers import AutoModelForCausalLM, AutoTokenizer
p = ${JSON.stringify(join(dir, 'policy'))}
m, tok = AutoModelForCausalLM.from_pretrained(p).eval(), AutoTokenizer.from_pretrained(p)
n = json.load(open(p + "/playground.json"))["max_completion_length"]
tokens = task = 0
rows = make_dataset("eval", 16, prompt_format="tokens")
for r in rows:
    ids = tok(r["prompt"], return_tensors="pt", add_special_tokens=False).input_ids
    with torch.no_grad():
        out = m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, do_sample=False)
    o = outcome(json.loads(r["task"]), tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True))
    tokens += o["tokens"]; task += o["r_task"]
print(json.dumps({"tokens": tokens / len(rows), "r_task": task / len(rows)}))
`);
    expect(greedy.tokens).toBeGreaterThan(1); // the warm start speaks: the comparison has something to see
    expect(start['eval_rewards/reward_tokens/mean']).toBeCloseTo(greedy.tokens, 9);
    expect(start.eval_r_task).toBeCloseTo(greedy.r_task, 9);
    expect(start['eval_rewards/reward_tokens/std']).toBeGreaterThanOrEqual(0);
  }, 600_000);
});

describe('the objective\'s TRL defaults are pinned', () => {
  it('beta 0.04: the export sets use_bias_correction_kl=False, which this TRL turns on by default', (ctx) => {
    needVenv(ctx);
    const dir = exportWithPolicy('relay-silence', 'relay-warm.safetensors', ['beta=0.04']);
    const res = python(`
import ast, json, sys
from trl import GRPOConfig
tree = ast.parse(open(sys.argv[1] if len(sys.argv) > 1 else ${JSON.stringify(join(dir, 'train_grpo.py'))}).read())
call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "GRPOConfig")
kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg is not None}
kw["output_dir"] = ${JSON.stringify(join(dir, 'cfg'))}
c = GRPOConfig(**kw, use_cpu=True, bf16=False)
d = GRPOConfig(output_dir=kw["output_dir"], use_cpu=True, bf16=False)
print(json.dumps({"beta": c.beta, "exported": c.use_bias_correction_kl, "default": d.use_bias_correction_kl,
                  "loss_type": c.loss_type, "default_loss_type": d.loss_type, "level": c.importance_sampling_level,
                  "scale_rewards": c.scale_rewards}))
`);
    expect(res.beta).toBe(0.04);
    expect(res.exported).toBe(false);
    expect(res.default).toBe(true); // the pin matters with this TRL
    expect(res).toMatchObject({ loss_type: 'grpo', level: 'sequence', scale_rewards: 'group' });
    expect(res.default_loss_type).not.toBe(res.loss_type);
  }, 300_000);
});
