// `--task FILE` end to end on the CPU engine: a bad file is one line and exit 2; the three examples
// train a few steps (their pretraining cut short here to keep the test quick); a task without
// demonstrations starts from random weights and says so; pretrain, eval and sweep take --task.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/model/checkpoint';
import { gspo, tempDir } from './run';

const SMALL = ['--backend', 'cpu', '--steps', '2', '--set', 'promptsPerStep=4', '--set', 'groupSize=4', '--set', 'evalEpisodes=16', '--set', 'evalEvery=1', '--set', 'nEmbd=32'];

/** An example with its warm start cut to `steps` pretraining steps (and no accuracy target), in a temp file. */
function quick(name: string, steps = 10): string {
  const code = readFileSync(join('examples/tasks', `${name}.js`), 'utf8').replace(/pretrain: \{[^}]*\}/, `pretrain: { steps: ${steps} }`);
  const path = join(tempDir(), `${name}.js`);
  writeFileSync(path, code);
  return path;
}

function file(code: string): string {
  const path = join(tempDir(), 'task.js');
  writeFileSync(path, code);
  return path;
}

const COPY = `export default {
  vocab: 'abc',
  maxAnswer: 3,
  sample: (rand) => rand.pick(['a', 'b', 'c']) + rand.pick(['a', 'b', 'c']) + rand.pick(['a', 'b', 'c']),
  solver: (t) => t,
  score: (t, answer) => (answer === t ? 1 : 0),
};`;

describe('--task: bad input', () => {
  it('a missing file, a syntax error, a score that is NaN: one line each, exit 2, nothing trains', () => {
    const out = join(tempDir(), 'run');
    const missing = gspo(['train', '--task', '/nonexistent/task.js', ...SMALL, '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toEqual(['gspo: --task "/nonexistent/task.js" does not exist']);
    const syntax = gspo(['train', '--task', file(COPY.replace('solver: (t) => t,', 'solver: (t) => t +,')), ...SMALL, '--out', out]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr.trim().split('\n')).toHaveLength(1);
    expect(syntax.stderr).toMatch(/^gspo: --task \S+task\.js: \[loads: module\] the task has a syntax error \(task\.js line 5\): /);
    const nan = gspo(['train', '--task', file(COPY.replace('(answer === t ? 1 : 0)', 'NaN')), ...SMALL, '--out', out]);
    expect(nan.code).toBe(2);
    expect(nan.stderr).toMatch(/^gspo: --task \S+: \[score: score\] score returned NaN, Infinity or null \(not a number in \[0, 1\]\) for /);
    const both = gspo(['train', '--task', file(COPY), '--preset', 'relay-silence', ...SMALL]);
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe('gspo: train: give --task or --preset, not both (the task is the run\'s environment)');
  }, 120_000);
});

describe('--task: the examples train on the CPU engine', () => {
  for (const name of ['reverse', 'relay', 'priority', 'sort-hackable']) {
    it(`${name}: warm start from its demonstrations, then 2 RL steps`, () => {
      const out = join(tempDir(), 'run');
      const r = gspo(['train', '--task', quick(name), ...SMALL, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/the checks pass; warm start: 10 pretraining steps on its demonstrations/);
      expect(r.json.preset).toMatch(/^task-/);
      expect(r.json.steps).toBe(2);
      expect(r.json.warmStartSource).toMatch(/^10 pretraining steps here/);
      for (const k of ['warmStart', 'final']) {
        expect(r.json[k].accuracy).toBeGreaterThanOrEqual(0);
        expect(r.json[k].accuracy).toBeLessThanOrEqual(1);
      }
      if (name === 'relay' || name === 'priority') expect(r.json.final).toHaveProperty('silence');
      if (name === 'sort-hackable') expect(r.json.final).toHaveProperty('answerLength');
      // the code travels with the run: config.json carries it
      const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
      const cfg = config.config ?? config;
      expect(cfg.env).toBe('custom');
      expect(cfg.taskCode).toContain('export default');
    }, 180_000);
  }
});

describe('--task: random weights, pretrain, eval, sweep', () => {
  it('a task without demonstrations starts from random weights and says so', () => {
    const r = gspo(['train', '--task', file(COPY), ...SMALL, '--out', join(tempDir(), 'run')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no demonstrations: the run starts from random weights/);
    expect(r.json.warmStartSource).toBe('random weights (no demonstrations)');
  }, 120_000);

  it('pretrain --task writes a warm start tied to the task; eval --task plays it; another task refuses it', () => {
    const dir = tempDir(), ck = join(dir, 'warm.safetensors'), task = quick('reverse');
    const p = gspo(['pretrain', '--task', task, '--backend', 'cpu', '--steps', '5', '--out', ck, '--set', 'nEmbd=32', '--set', 'evalEpisodes=8']);
    expect(p.code, p.stderr).toBe(0);
    const meta = readCheckpoint(new Uint8Array(readFileSync(ck))).extras;
    expect(meta.env).toBe('custom');
    expect(meta.task_hash).toMatch(/^[0-9a-f]{8}$/);
    const e = gspo(['eval', '--task', task, '--checkpoint', ck, '--backend', 'cpu', '--episodes', '8', '--set', 'nEmbd=32']);
    expect(e.code, e.stderr).toBe(0);
    expect(e.json.episodes).toBe(8);
    const other = gspo(['eval', '--task', file(readFileSync(task, 'utf8').replace("name: 'reverse'", "name: 'reverse2'")), '--checkpoint', ck, '--backend', 'cpu', '--episodes', '8', '--set', 'nEmbd=32']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/it was made for another task \(task_hash/);
  }, 180_000);

  it('sweep --task: one run per lambda_tok', () => {
    const out = join(tempDir(), 'sweep');
    const r = gspo(['sweep', '--task', quick('relay', 5), '--lambdas', '0,0.2', '--backend', 'cpu', '--set', 'steps=1', '--out', out,
      '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'evalEpisodes=8', '--set', 'evalEvery=1', '--set', 'nEmbd=32']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.preset).toMatch(/^task-relay/);
    expect(r.json.runs.map((x: { value: number }) => x.value)).toEqual([0, 0.2]);
    for (const x of r.json.runs) expect(x.final).toHaveProperty('silence');
  }, 240_000);
});
