// The exporter checks its own input and writes every value through one literal function:
// whatever reaches it (a tampered stored config, a preset name, a pre-channelNoise run),
// the Python and the shell script it writes cannot carry code. Python, bash and shlex are
// the oracles: they read the values back.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/config';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { InputError } from '../../src/contract/errors';
import { recipeBundle } from '../../src/export/bundle';
import { py, pyString, shellWord } from '../../src/export/literal';
import { exportRecipe } from '../../src/export/recipe';
import { tempDir } from '../cli/run';

const HOSTILE = [
  'plain', '', 'it\'s', 'a "quoted" word', 'back\\slash', 'line\nbreak', '"""\nimport os\nos.system("touch /tmp/x")\n"""',
  '$(touch /tmp/x)', '`touch /tmp/x`', '\'; touch /tmp/x; \'', '${HOME}', 'tab\tand\rcr', '\u0000nul', 'é ü 中文 😀', '\u2028\u2029', '\ud800 lone',
];

describe('py: one Python literal for every value', () => {
  it('strings read back exactly in Python (ast.literal_eval) and are printable ASCII', () => {
    const lits = HOSTILE.map(pyString);
    for (const l of lits) expect(l).toMatch(/^"[\x20-\x7e]*"$/);
    const back = JSON.parse(execFileSync('python3', ['-c',
      'import ast, json, sys\nprint(json.dumps([ast.literal_eval(l) for l in json.load(sys.stdin)], ensure_ascii=True))'], { input: JSON.stringify(lits), encoding: 'utf8' }));
    // exact, except a lone surrogate, which no UTF-8 file can hold: it reads back as U+FFFD, as
    // Node's UTF-8 encoder writes it (Python could not write "\ud800" out)
    expect(back).toEqual(HOSTILE.map((x) => Buffer.from(x, 'utf8').toString('utf8')));
    expect(back[HOSTILE.length - 1]).toBe('\ufffd lone');
  });

  it('numbers: finite only; lists, booleans and None as Python spells them', () => {
    expect(py(3e-4)).toBe('0.0003');
    expect(py(-0)).toBe('0');
    expect(py([0.9, 0.999])).toBe('[0.9, 0.999]');
    expect(py(true)).toBe('True');
    expect(py(null)).toBe('None');
    for (const bad of [NaN, Infinity, -Infinity]) expect(() => py(bad)).toThrow(InputError);
    expect(() => py([1, NaN])).toThrow(InputError);
  });
});

describe('shellWord: no value can end the quoting', () => {
  it('bash reads every hostile value back as one word with the same text, and runs nothing', () => {
    const dir = tempDir();
    const marker = join(dir, 'ran');
    const values = HOSTILE.filter((v) => !v.includes('\u0000') && !v.includes('\ud800')).map((v) => v.replaceAll('/tmp/x', marker)); // bash words hold no NUL, and UTF-8 no lone surrogate
    const script = values.map((v) => `printf '%s\\0' ${shellWord(v)}`).join('\n');
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', cwd: dir, env: { PATH: process.env.PATH!, HOME: '/home/nobody' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(values);
    expect(existsSync(marker)).toBe(false);
  });

  it('only the script\'s own variables expand, in double quotes', () => {
    expect(shellWord('$DATA/train.parquet', new Set(['$DATA/train.parquet']))).toBe('"$DATA/train.parquet"');
    expect(shellWord('$DATA/train.parquet')).toBe('\'$DATA/train.parquet\'');
    expect(shellWord('[0.9,0.999]')).toBe('\'[0.9,0.999]\'');
    expect(shellWord('grpo')).toBe('grpo');
  });
});

const relay = (over: Record<string, unknown> = {}) => ({ ...presetConfig(findPreset('relay-silence')), ...over }) as unknown as RunConfig;

describe('exportRecipe checks its own input', () => {
  it('a config stored before channelNoise and scouts is refused by name, never written as undefined', () => {
    const old = relay();
    delete (old as Partial<RunConfig>).channelNoise;
    delete (old as Partial<RunConfig>).scouts;
    for (const t of ['trl', 'verl'] as const) expect(() => exportRecipe(t, old, 'relay-silence')).toThrow(/has no channelNoise, scouts/);
  });

  it.each([
    ['a number field carrying code', { channelNoise: '0\nimport os; os.system("id")' }, /channelNoise must be a number/],
    ['an enum field carrying code', { topology: 'hint"\nimport os\n#' }, /topology must be one of/],
    ['a value out of range', { lr: 1e308 }, /lr must be in/],
    ['an unknown field', { evil: 1 }, /unknown config key "evil"/],
    ['a non-finite number', { budget: Infinity }, /budget must be a number/],
  ])('%s is refused', (_, over, pattern) => {
    expect(() => exportRecipe('trl', relay(over), 'relay-silence')).toThrow(pattern);
    expect(() => exportRecipe('verl', relay(over), 'relay-silence')).toThrow(pattern);
  });

  it('a tampered preset name is refused, clipped in the message', () => {
    const name = 'relay-silence"""\nimport os\nos.system("id")\n"""' + 'x'.repeat(100_000);
    let message = '';
    try { exportRecipe('verl', relay(), name); } catch (e) { message = (e as Error).message; }
    expect(message).toMatch(/^unknown preset "relay-silence/);
    expect(message.length).toBeLessThan(500);
    expect(() => exportRecipe('trl', relay(), '$(id)')).toThrow(InputError);
  });

  it('the bundle refuses a folder name that could leave its docstring', () => {
    expect(() => recipeBundle([{ path: 'a.py', text: '' }], 'x"""\nimport os')).toThrow(/folder name/);
  });
});

describe('every top-level statement is the exporter\'s own', () => {
  it('TRL and verl files for a config with every string field at its extreme parse to the expected top level', () => {
    const dir = tempDir();
    const trl = exportRecipe('trl', relay({ channelNoise: 0.9, scouts: 3 }), 'relay-silence');
    const files = [...trl, ...exportRecipe('verl', relay(), 'relay-silence')];
    const bundle = recipeBundle(trl, 'run-trl');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bundle.py'), bundle);
    const r = spawnSync('python3', [join(dir, 'bundle.py'), join(dir, 'out')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const tops = JSON.parse(execFileSync('python3', [join(import.meta.dirname, 'toplevel.py')], { input: JSON.stringify(files), encoding: 'utf8' }));
    const byPath = Object.fromEntries(files.map((f, i) => [`${i < trl.length ? 'trl' : 'verl'}/${f.path}`, tops[i]]));
    for (const [p, t] of Object.entries(byPath)) expect(t.error, p).toBeNull();
    expect(byPath['trl/toy_tasks.py'].top).toEqual([
      'docstring', 'import json', 'import random', 'import sys', 'def hash_ints', 'def message_terms', 'assign K', 'assign P_KNOWN_TRAIN', 'assign P_KNOWN_EVAL',
      'def make_task', 'def is_eval', 'def prompt', 'assign MAX_MESSAGE', 'assign CHANNEL_NOISE', 'def outcome', 'def policy_prompt', 'def make_dataset', 'if __name__ == \'__main__\'',
    ]);
    expect(byPath['trl/train_grpo.py'].top).toEqual([
      'docstring', 'import argparse', 'import json', 'import os', 'from datasets import Dataset', 'from trl import GRPOConfig, GRPOTrainer', 'from transformers import TrainerCallback',
      'from rewards import REWARD_FUNCS, STATS, TRACE', 'from toy_tasks import make_dataset', 'assign PRESET', 'assign HERE', 'assign POLICY', 'assign NUM_GENERATIONS',
      'assign WORLD', 'assign MAIN', 'def say', 'def split_batch', 'class LambdaTokBudget', 'class LambdaTokWeight', 'class PlaygroundGRPOTrainer', 'def choose_precision', 'def main', 'if __name__ == \'__main__\'',
    ]);
    expect(byPath['verl/run_verl.sh'].top).toEqual(['set', 'cd', 'MODEL=${MODEL:?set', 'GPUS=${GPUS:-1}', 'NODES=${NODES:-1}', 'DATA=${DATA:-$PWD/data}', 'python3', 'python3']);
  });
});
