// The exported TRL / verl recipes: the Python parses, every option they set is a real
// TRL / verl option name (the kept list read from their sources), the README's mapping
// table says what the files do, and the values are the preset's, checked by hand.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, findPreset, presetConfig } from '../../src/envs/presets';
import { exportRecipe, type ExportTarget } from '../../src/export/recipe';
import { TRL_OPTIONS, VERL_ADV_ESTIMATORS, VERL_KEYS, VERL_LOSS_MODES } from '../../src/export/optionNames';
import { tempDir } from '../cli/run';

const INSPECT = join(import.meta.dirname, 'inspect_recipe.py');
interface Inspected {
  readme: { field: string; trl: Record<string, unknown>; verl: Record<string, string> }[];
  grpo_config?: Record<string, unknown>;
  overrides?: Record<string, string>;
}

const root = tempDir();
const dirOf = (t: ExportTarget, preset: string) => join(root, `${t}-${preset}`);
const inspected = new Map<string, Inspected>();

beforeAll(() => {
  for (const p of PRESETS) {
    for (const t of ['trl', 'verl'] as const) {
      const dir = dirOf(t, p.name);
      mkdirSync(dir, { recursive: true });
      for (const f of exportRecipe(t, presetConfig(p, {}), p.name)) writeFileSync(join(dir, f.path), f.text);
      inspected.set(`${t}-${p.name}`, JSON.parse(execFileSync('python3', [INSPECT, dir], { encoding: 'utf8' })));
    }
  }
}, 120_000);

const get = (t: ExportTarget, preset: string) => inspected.get(`${t}-${preset}`)!;

describe('every preset exports', () => {
  it.each(PRESETS.map((p) => p.name))('%s: the Python compiles and the shell script parses', (name) => {
    for (const t of ['trl', 'verl'] as const) {
      const dir = dirOf(t, name);
      const py = t === 'trl' ? ['train_grpo.py', 'rewards.py', 'toy_tasks.py'] : ['reward_fn.py', 'prepare_data.py', 'toy_tasks.py'];
      const r = spawnSync('python3', ['-m', 'py_compile', ...py.map((f) => join(dir, f))], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      if (t === 'verl') expect(spawnSync('bash', ['-n', join(dir, 'run_verl.sh')]).status).toBe(0);
    }
  });

  it.each(PRESETS.map((p) => p.name))('%s: every GRPOConfig keyword and verl key is a real option name', (name) => {
    const trl = get('trl', name).grpo_config!;
    expect(Object.keys(trl).filter((k) => !TRL_OPTIONS.has(k))).toEqual([]);
    const verl = get('verl', name).overrides!;
    expect(Object.keys(verl).filter((k) => !VERL_KEYS.has(k))).toEqual([]);
    expect(VERL_LOSS_MODES.has(verl['actor_rollout_ref.actor.policy_loss.loss_mode'])).toBe(true);
    expect(VERL_ADV_ESTIMATORS.has(verl['algorithm.adv_estimator'])).toBe(true);
  });

  it.each(PRESETS.map((p) => p.name))('%s: the README mapping table says what the script and the overrides set', (name) => {
    const trl = get('trl', name), verl = get('verl', name);
    expect(trl.readme).toEqual(verl.readme); // one table for both targets
    const trlRows = trl.readme.flatMap((r) => Object.entries(r.trl));
    const verlRows = verl.readme.flatMap((r) => Object.entries(r.verl));
    expect(trlRows.length).toBeGreaterThan(15);
    for (const [k, v] of trlRows) expect(trl.grpo_config![k], k).toEqual(v);
    for (const [k, v] of verlRows) expect(verl.overrides![k], k).toBe(v);
    // every config field appears in some row (mapped, or said not to be)
    const named = trl.readme.map((r) => r.field).join(', ');
    for (const f of ['algorithm', 'groupSize', 'promptsPerStep', 'minibatches', 'steps', 'lr', 'epsLow', 'epsHigh', 'beta', 'temperature', 'advantage', 'gradClip', 'weightDecay', 'lambdaTok', 'lambdaTurn', 'lambdaRep', 'lambdaMode', 'seed', 'delta', 'dynamicSampling', 'refillRounds', 'overlongCache', 'overlongPenalty']) {
      expect(named).toContain(f);
    }
  });

  it('the kept option lists can reject a name (a check that could fail)', () => {
    expect(TRL_OPTIONS.has('importance_sampling_level')).toBe(true);
    expect(TRL_OPTIONS.has('clip_ratio_low')).toBe(false); // verl's name, not TRL's
    expect(VERL_KEYS.has('actor_rollout_ref.actor.clip_ratio_low')).toBe(true);
    expect(VERL_KEYS.has('actor_rollout_ref.actor.epsilon')).toBe(false);
  });
});

describe('values, by hand from the presets', () => {
  it('relay-silence: GSPO, group scaling, P x G = 32 x 8 over 4 minibatches, lambda_tok 0.1', () => {
    const c = get('trl', 'relay-silence').grpo_config!;
    expect(c).toMatchObject({
      importance_sampling_level: 'sequence', loss_type: 'grpo', num_generations: 8, epsilon: 0.0003, epsilon_high: 0.0004,
      beta: 0, scale_rewards: 'group', steps_per_generation: 4, per_device_train_batch_size: 64, max_steps: 400,
      learning_rate: 0.0003, temperature: 1, reward_weights: [1, -0.1, 0, 0],
    });
    const v = get('verl', 'relay-silence').overrides!;
    expect(v).toMatchObject({
      'actor_rollout_ref.actor.policy_loss.loss_mode': 'gspo', 'algorithm.adv_estimator': 'grpo', 'algorithm.norm_adv_by_std_in_grpo': 'true',
      'actor_rollout_ref.rollout.n': '8', 'actor_rollout_ref.actor.clip_ratio_low': '0.0003', 'actor_rollout_ref.actor.clip_ratio_high': '0.0004',
      'data.train_batch_size': '32', 'actor_rollout_ref.actor.ppo_mini_batch_size': '8',
    });
  });

  it('relay-grpo and relay-no-groupnorm: token ratios with clip 0.2; no std scaling', () => {
    expect(get('trl', 'relay-grpo').grpo_config).toMatchObject({ importance_sampling_level: 'token', loss_type: 'grpo', epsilon: 0.2, epsilon_high: 0.2 });
    expect(get('verl', 'relay-grpo').overrides!['actor_rollout_ref.actor.policy_loss.loss_mode']).toBe('vanilla');
    expect(get('trl', 'relay-no-groupnorm').grpo_config!.scale_rewards).toBe('none');
    expect(get('verl', 'relay-no-groupnorm').overrides!['algorithm.norm_adv_by_std_in_grpo']).toBe('false');
  });

  it('agentpo-critic: the turn penalty 0.02 is the turns weight; P x G = 16 x 8 over 2 minibatches', () => {
    expect(get('trl', 'agentpo-critic').grpo_config).toMatchObject({ reward_weights: [1, 0, -0.02, 0], per_device_train_batch_size: 64, steps_per_generation: 2, max_steps: 80, learning_rate: 0.0003 });
  });

  it('relay-budget: the dual update is a callback starting at lambda 0 toward B = 4 (eta 0.005, max 1), once per generation of 4 steps', () => {
    const dir = dirOf('trl', 'relay-budget');
    const script = exportRecipe('trl', presetConfig(findPreset('relay-budget'), {}), 'relay-budget').find((f) => f.path === 'train_grpo.py')!.text;
    expect(script).toContain('callbacks = [LambdaTokBudget(0, 4, 0.005, 1, 4)]');
    expect(exportRecipe('trl', presetConfig(findPreset('relay-silence'), {}), 'relay-silence').find((f) => f.path === 'train_grpo.py')!.text).toContain('callbacks = []');
    // the callback's arithmetic, run in Python with a stand-in trainer: 0 + 0.005 (10 - 4) = 0.03
    const py = `
import sys, types
sys.path.insert(0, ${JSON.stringify(dir)})
for name in ("datasets", "trl", "transformers"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["datasets"].Dataset = object
sys.modules["trl"].GRPOConfig = sys.modules["trl"].GRPOTrainer = object
sys.modules["transformers"].TrainerCallback = object
import train_grpo, rewards
rewards.STATS["mean_tokens"] = 10.0
cb = train_grpo.LambdaTokBudget(0, 4, 0.005, 1, 4)
cb.trainer = types.SimpleNamespace(reward_weights=[1, 0, 0, 0])
for step in (1, 2, 3):
    cb.on_step_end(None, types.SimpleNamespace(global_step=step), None)
assert cb.trainer.reward_weights[1] == 0, cb.trainer.reward_weights
cb.on_step_end(None, types.SimpleNamespace(global_step=4), None)
print(cb.lambda_tok, cb.trainer.reward_weights[1])
`;
    const out = execFileSync('python3', ['-c', py], { encoding: 'utf8' }).trim().split(' ').map(Number);
    expect(out[0]).toBeCloseTo(0.03, 12);
    expect(out[1]).toBeCloseTo(-0.03, 12);
  });
});

describe('the toy tasks in Python', () => {
  const run = (dir: string, code: string) => JSON.parse(execFileSync('python3', ['-c', `import sys, json\nsys.path.insert(0, ${JSON.stringify(dir)})\n${code}`], { encoding: 'utf8' }));

  it('train and eval never share a task, and the generator is seeded', () => {
    for (const p of ['relay-silence', 'agentpo-hint', 'philosophers-fixed']) {
      const r = run(dirOf('trl', p), 'import toy_tasks as t\na = t.make_dataset("train", 300)\nb = t.make_dataset("eval", 100)\nprint(json.dumps([len({x["task"] for x in a} & {x["task"] for x in b}), a[:5] == t.make_dataset("train", 5)]))');
      expect(r).toEqual([0, true]);
    }
  });

  it('relay: the rule Solver and the message terms on hand-made messages', () => {
    const r = run(dirOf('trl', 'relay-silence'), `import toy_tasks as t
u = {"secret": [6, 6, 0], "j": 2, "known": False}
k = dict(u, known=True)
print(json.dumps([t.outcome(u, "0"), t.outcome(u, "6 6 0"), t.outcome(u, "6"), t.outcome(k, ""), t.outcome(u, "SECRET 6 6 6 6")]))`);
    expect(r[0]).toEqual({ r_env: 1, r_task: 1, tokens: 1, turns: 1, repetition: 0 }); // the one digit asked for
    expect(r[1]).toMatchObject({ r_task: 1, tokens: 3, turns: 1 }); // the whole secret, digit 3 is 0
    expect(r[2]).toMatchObject({ r_task: 0 }); // one digit, the wrong one
    expect(r[3]).toEqual({ r_env: 1, r_task: 1, tokens: 0, turns: 0, repetition: 0 }); // silence when the Solver knows
    expect(r[4]).toMatchObject({ r_task: 0, tokens: 5, repetition: 2 }); // reads 6 6 6 6: digit 3 is 6, not 0; (6, 6) twice again
  });

  it('verl: compute_score is r_env - 0.1 tokens for relay-silence', () => {
    const r = run(dirOf('verl', 'relay-silence'), `import reward_fn as f
print(json.dumps(f.compute_score("s", "6 6 0", json.dumps({"secret": [6, 6, 0], "j": 2, "known": False}))))`);
    expect(r.score).toBeCloseTo(1 - 0.1 * 3, 12);
  });

  it('addition: the frozen Actor follows the carry word (critic: OK keeps the dropped-carry draft, a FIX costs a turn)', () => {
    const r = run(dirOf('trl', 'agentpo-critic'), `import toy_tasks as t
x = {"a": 59, "b": 63}
print(json.dumps([t.draft(x), t.outcome(x, "OK"), t.outcome(x, "FIX CARRY"), t.outcome(x, "FIX NOCARRY")]))`);
    expect(r[0]).toBe(112); // 59 + 63 = 122 with its carry dropped
    expect(r[1]).toMatchObject({ r_task: 0, tokens: 1, turns: 1 });
    expect(r[2]).toMatchObject({ r_task: 1, tokens: 2, turns: 2 });
    expect(r[3]).toMatchObject({ r_task: 0, turns: 2 });
  });

  it('philosophers: the table rules and the four reward terms on hand-made plans (fixed weights 1, 1, 2, 0.4)', () => {
    const r = run(dirOf('trl', 'philosophers-fixed'), `import toy_tasks as t
task = {"n": 3, "rounds": 8, "hunger": [0, 0, 0], "seed": 7}
print(json.dumps([t.outcome(task, "TAKE_L TAKE_L TAKE_L"), t.outcome(task, "TAKE_R THINK THINK\\nTAKE_L THINK THINK | hi\\nEAT THINK THINK"), t.outcome(task, "")]))`);
    // all take their left fork: deadlock (1), 3 actions (1.2), nobody ate (3 x 2)
    expect(r[0].r_env).toBeCloseTo(-1 - 1.2 - 6, 12);
    // P0 takes fork 0 then fork 2 and eats: one meal, 3 actions, two starve; one message word
    expect(r[1].r_env).toBeCloseTo(1 - 1.2 - 4, 12);
    expect(r[1]).toMatchObject({ tokens: 1, turns: 1 });
    expect(r[1].r_task).toBeCloseTo(1 / 3, 12);
    expect(r[2].r_env).toBeCloseTo(-6, 12); // thinking every round
  });
});

describe('the page\'s one-file bundle', () => {
  it('unpacks, with python3, into exactly the files the CLI writes', async () => {
    const { recipeBundle } = await import('../../src/export/bundle');
    const { readFileSync, readdirSync } = await import('node:fs');
    const c = presetConfig(findPreset('philosophers-fixed'), { lambdaRep: 0.05 });
    for (const t of ['trl', 'verl'] as const) {
      const files = exportRecipe(t, c, 'philosophers-fixed');
      const dir = join(tempDir(), 'bundle');
      const bundle = join(dir + '.py');
      writeFileSync(bundle, recipeBundle(files, 'x'));
      execFileSync('python3', [bundle, dir]);
      expect(readdirSync(dir).sort()).toEqual(files.map((f) => f.path).sort());
      for (const f of files) expect(readFileSync(join(dir, f.path), 'utf8')).toBe(f.text);
    }
  });
});

describe('docs/export.md', () => {
  it('shows the mapping table the export writes for relay-budget (the docs cannot drift from the code)', async () => {
    const { readFileSync } = await import('node:fs');
    const { mappingTable } = await import('../../src/export/mapping');
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'export.md'), 'utf8');
    expect(doc).toContain(mappingTable(presetConfig(findPreset('relay-budget'), {})));
  });
});
