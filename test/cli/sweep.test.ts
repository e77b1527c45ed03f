// `sweep` end to end on the CPU backend at a tiny size: one folder per run as
// `train` writes it, sweep.json's frontier against a brute-force one, the static
// twin of a dual run at the dual's settled lambda, and bad values (exit 2).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gspo, tempDir } from './run';

const TINY = ['--backend', 'cpu', '--set', 'steps=3', '--set', 'promptsPerStep=2', '--set', 'groupSize=2', '--set', 'minibatches=1',
  '--set', 'evalEpisodes=8', '--set', 'evalEvery=1'];
const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('sweep', () => {
  it('runs one train per lambda_tok into its own folder; sweep.json holds finals, bests and the non-dominated ones', () => {
    const out = join(tempDir(), 'sw');
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.5', '--seeds', '1,2', ...TINY, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/sweep: a population of 4 members, 4 at once/);
    expect(r.stderr).toMatch(/sweep: member lambda_tok=0\.5 seed 2 finished/);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(s.runs.map((x: { label: string }) => x.label)).toEqual(['lambda_tok=0 seed 1', 'lambda_tok=0 seed 2', 'lambda_tok=0.5 seed 1', 'lambda_tok=0.5 seed 2']);
    for (const run of s.runs) {
      const cfg = JSON.parse(readFileSync(join(run.out, 'config.json'), 'utf8')).config;
      expect(cfg.lambdaTok).toBe(run.value);
      expect(cfg.seed).toBe(run.seed);
      expect(cfg.channelNoise).toBe(0.3);
      expect(lines(join(run.out, 'metrics.jsonl'))).toHaveLength(3);
      const evals = lines(join(run.out, 'evals.jsonl'));
      expect(run.final.accuracy).toBe(evals[evals.length - 1].accuracy);
      expect(run.final.tokens).toBe(evals[evals.length - 1].tokens);
      expect(run.wallSeconds).toBeGreaterThan(0);
    }
    // every run evaluates on the same held-out tasks: the warm starts (step 0) agree exactly
    const warm = s.runs.map((run: { out: string }) => lines(join(run.out, 'evals.jsonl'))[0]);
    for (const w of warm) expect([w.accuracy, w.tokens]).toEqual([warm[0].accuracy, warm[0].tokens]);
    // the frontier: brute force over the finals
    const pts = s.runs.map((x: { label: string; final: { accuracy: number; tokens: number } }) => ({ label: x.label, ...x.final }));
    const dominated = (p: typeof pts[0]) => pts.some((q: typeof p) => q.tokens <= p.tokens && q.accuracy >= p.accuracy && (q.tokens < p.tokens || q.accuracy > p.accuracy));
    expect(s.frontier.map((p: { label: string }) => p.label).sort()).toEqual(pts.filter((p: typeof pts[0]) => !dominated(p)).map((p: { label: string }) => p.label).sort());
  });

  it('--vs-static follows each dual run with a static run at its mean lambda_tok over the last third', () => {
    const out = join(tempDir(), 'ds');
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--budgets', '1', '--vs-static', ...TINY, '--set', 'dualEta=0.05', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(s.runs).toHaveLength(2);
    const [dual, stat] = s.runs;
    const dualMetrics = lines(join(dual.out, 'metrics.jsonl'));
    const lastThird = dualMetrics.slice(dualMetrics.length - Math.ceil(dualMetrics.length / 3));
    const lambda = lastThird.reduce((a: number, m: { lambda_tok: number }) => a + m.lambda_tok, 0) / lastThird.length;
    const statCfg = JSON.parse(readFileSync(join(stat.out, 'config.json'), 'utf8')).config;
    expect(JSON.parse(readFileSync(join(dual.out, 'config.json'), 'utf8')).config).toMatchObject({ lambdaMode: 'budget', budget: 1 });
    expect(statCfg.lambdaMode).toBe('manual');
    expect(statCfg.lambdaTok).toBeCloseTo(lambda, 4);
    const pair = s.dualVsStatic[0];
    expect(pair.budget).toBe(1);
    expect(pair.dual.finalAccuracy).toBe(dual.final.accuracy);
    expect(pair.static.finalTokens).toBe(stat.final.tokens);
    const tokens = lastThird.map((m: { tokens: number }) => m.tokens);
    expect(pair.dual.budgetGap).toBeCloseTo(tokens.reduce((a: number, t: number) => a + Math.abs(t - 1), 0) / tokens.length, 9);
  });

  it('--recipe gives each member its own setting\'s recipe; a field given with --set stays', () => {
    const out = join(tempDir(), 'sweep');
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0.01,0.3', '--recipe', '--set', 'channelNoise=0.5', ...TINY, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const cfg = (label: string) => JSON.parse(readFileSync(join(out, label, 'config.json'), 'utf8')).config;
    // by hand (docs/recipe.md): copy n is worth 0.9 x 0.5^(n-1) x 0.5. lambda 0.01 keeps 6 copies, as every penalty in
    // (0.00703, 0.01406] does: its middle 0.0099 is raised toward the silence floor, to 10% inside the top, 0.01266 -> 0.013,
    // held ceil(80 sqrt(0.1 / 0.013) / 10) x 10 = 230 steps, then 80: 310; copy 8 adds 0.0035 >= 0.01 / 3, so temperature 0.7
    const small = cfg('lambda_tok=0.01');
    expect(small.lambdaTok).toBe(0.01);
    expect(small.lambdaStart).toBe(0.013);
    expect(small.lambdaHold).toBe(230);
    expect(small.temperature).toBe(0.7);
    expect(small.steps).toBe(3); // --set steps=3 stays (the recipe says 310)
    // lambda 0.3 keeps 1 copy, as (0.225, 0.45] does: one copy starts nearest 0.1, which is below, so 10% over the bottom: 0.2475 -> 0.248, held 80; temperature 1
    const big = cfg('lambda_tok=0.3');
    expect(big.lambdaStart).toBe(0.248);
    expect(big.lambdaHold).toBe(80);
    expect(big.temperature).toBe(1);
    expect(r.stderr).toMatch(/recipe: \[lambda_tok=0\.01\] steps kept at your 3 \(the recipe says 310\)/);
    // its margin 0.013 - 0.00703 = 0.006 is thin: the recipe says 32 prompts a step, and --set promptsPerStep=2 stays
    expect(r.stderr).toMatch(/recipe: \[lambda_tok=0\.01\] promptsPerStep kept at your 2 \(the recipe says 32\)/);
    expect(small.promptsPerStep).toBe(2);
    // without a flag the recipe is the default off the calibrated point, said in one line per member
    const plain = join(tempDir(), 'default');
    const d = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0.01,0.3', '--set', 'channelNoise=0.5', ...TINY, '--out', plain]);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(plain, 'lambda_tok=0.01', 'config.json'), 'utf8')).config).toMatchObject({ lambdaStart: 0.013, lambdaHold: 230, temperature: 0.7 });
    expect(d.stderr).toMatch(/recipe: \[lambda_tok=0\.01\] off the preset's calibrated point, so its recipe applies \(--no-recipe trains the setting as typed\): lambdaStart = 0\.013, lambdaHold = 230, temperature = 0\.7/);
    // --no-recipe: the members keep the preset's schedule
    const typed = join(tempDir(), 'typed');
    expect(gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0.03,0.3', '--set', 'channelNoise=0.5', '--no-recipe', ...TINY, '--out', typed]).code).toBe(0);
    expect(JSON.parse(readFileSync(join(typed, 'lambda_tok=0.03', 'config.json'), 'utf8')).config).toMatchObject({ lambdaHold: 0, temperature: 1 });
  });

  it('rejects bad values with exit 2 and one line naming them, before any run', () => {
    const bad = (args: string[], pattern: RegExp) => {
      const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--backend', 'cpu', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    };
    bad(['--lambdas', '0,x'], /--lambdas: entry 2 \("x"\)/);
    bad(['--lambdas', '0,20'], /lambdaTok must be in \[0, 10\]; got 20/);
    bad(['--lambdas', '0.1', '--budgets', '2'], /one of --lambdas, --budgets, --over/);
    bad(['--lambdas', '0.1', '--vs-static'], /--vs-static needs --budgets/);
    bad(['--budgets', '1', '--vs-static', '--recipe'], /--recipe and --vs-static/);
    bad(['--lambdas', '0,0.1', '--recipe', '--no-recipe'], /--recipe and --no-recipe contradict/);
    bad(['--over', 'scouts=1,9'], /scouts must be in \[1, 6\]/);
    bad(['--over', 'scouts=4', '--set', 'digits=3'], /scouts \(4\) must be at most digits \(3\)/);
    bad(['--over', 'hasOwnProperty=1'], /config key/);
    bad(['--seeds', '1,1.5'], /--seeds: entry 2/);
    // every flag and path is checked before the first write
    const dir = tempDir();
    const file = join(dir, 'a-file');
    writeFileSync(file, 'keep');
    bad(['--lambdas', '0,0.1', '--out', file], /--out ".*a-file" is a file, not a folder/);
    bad(['--lambdas', '0,0.1', '--out', join(file, 'sub')], /cannot be made: ".*a-file" is a file/);
    expect(readFileSync(file, 'utf8')).toBe('keep');
    const fresh = join(dir, 'fresh');
    const r = gspo(['sweep', '--preset', 'relay-noisy-dr', '--lambdas', '0,0.1', '--backend', 'bogus', '--out', fresh]);
    expect(r.code).toBe(2);
    expect(existsSync(fresh)).toBe(false);
    const values = Array.from({ length: 64 }, (_, i) => i / 100).join(','), seeds = Array.from({ length: 64 }, (_, i) => i).join(',');
    bad(['--lambdas', values, '--seeds', seeds, '--out', fresh], /4096 runs \(64 values x 64 seeds\) is more than 256/);
    expect(existsSync(fresh)).toBe(false);
  });
});
