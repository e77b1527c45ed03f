// `sweep --preset P (--lambdas L,.. | --budgets B,.. | --over key=v,..) [--seeds S,..] [--vs-static]
// [--set k=v ...] [--out DIR]`: one `train` run per (value, seed), each in its own folder, and
// sweep.json with every run's final and best eval, its wall time, and the accuracy-vs-tokens
// frontier across the runs (final evals on the same held-out set). --vs-static (with --budgets)
// follows each dual run with a static run at the lambda_tok the dual settled on, and compares them.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { InputError } from '../../errors';
import { parseField, type RunConfig } from '../../config';
import { defaultSweep, parseOver, parseValues, planSweep, type SweepRun, type SweepSpec } from '../../rl/sweep';
import { paretoFrontier } from '../../rl/pareto';
import { settleReport, type SettleReport } from '../../rl/dualStatic';
import type { WarmStarts } from '../../rl/warmStart';
import { parseFlags, requireFlag, type FlagSpec } from '../args';
import { chooseBackend, log, writeAtomic } from '../io';
import { parseSets, setup, startSlots, type RunSetup } from './runSetup';
import { trainRun, type TrainResult } from './train';

export const sweepFlags: FlagSpec = {
  preset: { kind: 'string', help: 'a preset name (see README)' },
  lambdas: { kind: 'string', help: 'lambda_tok values, e.g. 0,0.01,0.03,0.1,0.3 (fixed penalty)' },
  budgets: { kind: 'string', help: 'dual budgets B, e.g. 4,2,1 (lambda_tok by the dual update)' },
  over: { kind: 'string', help: 'any numeric config field and its values, e.g. scouts=1,2,3,4' },
  seeds: { kind: 'string', help: 'run seeds, e.g. 1,2 (default: the preset\'s)' },
  'vs-static': { kind: 'bool', help: 'with --budgets: also run the static lambda_tok each dual run settled on, and compare' },
  set: { kind: 'list', help: 'config override key=value for every run (repeatable)' },
  out: { kind: 'string', help: 'output directory (default runs/sweep-<preset>-<time>)' },
  backend: { kind: 'string', help: 'webgpu | cpu' },
};

function specFrom(flags: Record<string, unknown>, base: RunConfig): SweepSpec {
  const given = (['lambdas', 'budgets', 'over'] as const).filter((f) => flags[f] !== undefined);
  if (given.length > 1) throw new InputError(`sweep: give one of --lambdas, --budgets, --over (got ${given.map((g) => '--' + g).join(' and ')})`);
  const seeds = flags.seeds === undefined ? [] : parseValues(String(flags.seeds), 'seed', '--seeds');
  if (flags.lambdas !== undefined) return { axis: 'lambdaTok', values: parseValues(String(flags.lambdas), 'lambdaTok', '--lambdas'), seeds };
  if (flags.budgets !== undefined) return { axis: 'budget', values: parseValues(String(flags.budgets), 'budget', '--budgets'), seeds };
  if (flags.over !== undefined) {
    const o = parseOver(String(flags.over));
    return { axis: o.key, values: o.values, seeds };
  }
  return { ...defaultSweep(base), seeds };
}

/** The config without the fields a sweep varies run to run: runs with equal keys share one warm start. */
function warmKey(c: RunConfig): string {
  const { seed: _s, lambdaTok: _l, budget: _b, lambdaMode: _m, steps: _n, ...rest } = c;
  return JSON.stringify(rest);
}

interface RunRecord {
  label: string; value: number; seed: number | null; out: string; wallSeconds: number;
  final: Record<string, number>; best: Record<string, number> | null; settle: SettleReport;
}

export async function sweep(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, sweepFlags, 'sweep');
  const presetName = requireFlag(flags, 'preset', 'sweep');
  const sets = parseSets(flags.set as string[] | undefined);
  const base = setup(presetName, sets);
  const spec = specFrom(flags, base.config);
  const vsStatic = flags['vs-static'] === true;
  if (vsStatic && spec.axis !== 'budget') throw new InputError('sweep: --vs-static needs --budgets (it compares each dual run with a static lambda_tok)');
  const plan = planSweep(spec);
  // every run's config is checked before anything runs, so a bad combination fails at once
  const setups = plan.map((r) => ({ run: r, s: setup(presetName, { ...sets, ...r.overrides }) }));
  const out = (flags.out as string | undefined) ?? join('runs', `sweep-${presetName}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(out, { recursive: true });
  const backend = await chooseBackend(flags.backend);
  const t0 = performance.now();
  const warm = new Map<string, WarmStarts>();
  const runs: RunRecord[] = [];
  const pairs: unknown[] = [];
  const total = plan.length * (vsStatic ? 2 : 1);
  let done = 0;

  const runOne = async (run: SweepRun, s: RunSetup, dir: string): Promise<TrainResult> => {
    done++;
    const elapsed = (performance.now() - t0) / 1000;
    const left = done > 1 ? ` (about ${Math.round((elapsed / (done - 1)) * (total - done + 1))} s left)` : '';
    log(`sweep: run ${done}/${total}: ${run.label}${left}`);
    const key = warmKey(s.config);
    if (!warm.has(key)) warm.set(key, await startSlots(backend, s));
    return trainRun(backend, s, join(out, dir), true, warm.get(key));
  };
  const record = (run: SweepRun, dir: string, r: TrainResult, budget: number | null): RunRecord => ({
    label: run.label, value: run.value, seed: run.seed, out: join(out, dir), wallSeconds: r.summary.wallSeconds,
    final: r.summary.final, best: r.summary.best, settle: settleReport(r.history, budget),
  });

  try {
    for (const { run, s } of setups) {
      const dir = run.label.replace(/[^A-Za-z0-9_.=-]+/g, '_');
      const r = await runOne(run, s, dir);
      const rec = record(run, dir, r, spec.axis === 'budget' ? run.value : null);
      runs.push(rec);
      log(`sweep: ${run.label}: final accuracy ${rec.final.accuracy.toFixed(3)} tokens ${rec.final.tokens.toFixed(2)} (${rec.wallSeconds} s)`);
      if (vsStatic) {
        const lambda = Number(rec.settle.meanLambdaLastThird.toFixed(4));
        const staticRun: SweepRun = { ...run, label: `static lambda_tok=${lambda} (for B=${run.value})${run.seed !== null ? ` seed ${run.seed}` : ''}`,
          overrides: { ...run.overrides, lambdaMode: 'manual', lambdaTok: parseField('lambdaTok', lambda) } };
        const sd = `static-B=${run.value}${run.seed !== null ? `_seed_${run.seed}` : ''}`;
        const rs = await runOne(staticRun, setup(presetName, { ...sets, ...staticRun.overrides }), sd);
        const st = record(staticRun, sd, rs, run.value);
        runs.push(st);
        log(`sweep: ${staticRun.label}: final accuracy ${st.final.accuracy.toFixed(3)} tokens ${st.final.tokens.toFixed(2)}`);
        pairs.push({ budget: run.value, seed: run.seed, staticLambdaTok: lambda, dual: pairView(rec), static: pairView(st) });
      }
    }
  } finally {
    backend.destroy();
  }
  const points = runs.map((r) => ({ label: r.label, value: r.value, seed: r.seed, accuracy: r.final.accuracy, tokens: r.final.tokens, out: r.out }));
  const summary = {
    preset: presetName, axis: spec.axis, values: spec.values, seeds: spec.seeds, set: sets, backend: backend.name,
    wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
    runs, frontier: paretoFrontier(points), ...(vsStatic ? { dualVsStatic: pairs } : {}),
  };
  writeAtomic(join(out, 'sweep.json'), JSON.stringify(summary, null, 2) + '\n');
  log(`sweep: wrote ${join(out, 'sweep.json')}`);
  return summary;
}

/** What the dual-vs-static comparison shows of a run. */
function pairView(r: RunRecord) {
  return {
    finalAccuracy: r.final.accuracy, finalTokens: r.final.tokens, tokensLastThird: r.settle.tokensLastThird,
    budgetGap: r.settle.budgetGap, stepsToSettle: r.settle.stepsToSettle, meanLambdaLastThird: r.settle.meanLambdaLastThird, wallSeconds: r.wallSeconds,
  };
}
