// `study dual-static|scouts|philosophers [--seeds 1,2,3] [--out DIR] [--members N] ...`: one of
// the open questions (src/rl/studies.ts) as a CPU population: the distinct warm starts first,
// one thread each, then every run, one thread each; then the analysis as study.json, whose
// `markdown` holds the tables docs/tradeoff-lab.md quotes (also logged at the end).
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { clip, InputError } from '../../contract/errors';
import { confirmRuns, RUNS_WITHOUT_YES } from '../flagChecks';
import { checkRuns, failedRuns, oneLine } from '../jobRuns';
import { dualRows, estimate, planDualStatic, planPhilosophers, planScouts, summarizeDual, type Estimate, type Finished, type StudyRun } from '../../rl/studies';
import { parseValues } from '../../rl/sweep';
import { parseFlags, requireFlag, type Flags, type FlagSpec } from '../args';
import { log, outOrDefault, writeAtomic } from '../io';
import { MEMBER_FILES, prepareJobTree } from '../outputTree';
import { JOB_FILE, onInterrupt, openJob } from '../jobResume';
import { finishedResult, RESUME_MEMBER_FILES } from '../resumeState';
import type { MemberJob, MemberOutcome } from '../memberPool';
import { placeRuns, runLanes, type LaneRun } from '../runLanes';
import { warmStartsFor } from '../warmPool';
import { setup } from './runSetup';

export const studyFlags: FlagSpec = {
  name: { kind: 'string', help: 'dual-static | scouts | philosophers (or the first argument)' },
  seeds: { kind: 'string', help: 'seeds (default 1,2,3: three seeds give a Student-t 95% interval)' },
  backend: { kind: 'string', help: 'the CPU engine the runs train on: cpu (default, the WebAssembly SIMD engine on every core; wasm = cpu) or reference' },
  budgets: { kind: 'string', help: 'dual-static: budgets B (default 1,2,3)' },
  lambdas: { kind: 'string', help: 'dual-static: the static frontier\'s lambda_tok values (default 0,0.01,0.03,0.1,0.3)' },
  scouts: { kind: 'string', help: 'scouts: the numbers of Scouts (default 1,2,3,4)' },
  steps: { kind: 'int', help: 'philosophers: steps per run (default 60)' },
  out: { kind: 'string', help: 'folder for the runs and study.json (default runs/study-<name>-<time>)' },
  members: { kind: 'int', help: 'runs training at once (default: as many as fit in memory)' },
  'memory-limit': { kind: 'number', help: 'MiB the population may use (default 3/4 of the available memory)' },
  yes: { kind: 'bool', help: `start a study of more than ${RUNS_WITHOUT_YES} runs (without it, such a study prints its size and stops)` },
  fresh: { kind: 'bool', help: 'start anew in an --out that holds an earlier study (removes its files); without it the same study continues there, and other settings are refused' },
};

/** The flags that belong to one study: another study's flag would be silently ignored, so it is refused. */
const OWN_FLAGS: Record<string, readonly string[]> = { 'dual-static': ['budgets', 'lambdas'], scouts: ['scouts'], philosophers: ['steps'] };

const STUDIES = ['dual-static', 'scouts', 'philosophers'] as const;
type StudyName = typeof STUDIES[number];

const f3 = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(3));
const ci = (e: Estimate, d = 3) => (e.n === 0 ? '-' : e.n < 2 ? e.mean.toFixed(d) : `${e.mean.toFixed(d)} [${e.lo.toFixed(d)}, ${e.hi.toFixed(d)}]`);

function plan(name: StudyName, flags: Record<string, unknown>): StudyRun[] {
  const ints = (flag: string, fallback: string, key: 'seed' | 'scouts') => parseValues(String(flags[flag] ?? fallback), key, `--${flag}`);
  if (name === 'dual-static') {
    return planDualStatic(parseValues(String(flags.budgets ?? '1,2,3'), 'budget', '--budgets'), parseValues(String(flags.lambdas ?? '0,0.01,0.03,0.1,0.3'), 'lambdaTok', '--lambdas'), ints('seeds', '1,2,3', 'seed'));
  }
  if (name === 'scouts') return planScouts(ints('scouts', '1,2,3,4', 'scouts'), ints('seeds', '1,2,3', 'seed'));
  const steps = (flags.steps as number | undefined) ?? 60;
  if (steps < 1) throw new InputError(`--steps must be >= 1, got ${steps}`);
  return planPhilosophers(ints('seeds', '1,2,3', 'seed'), steps);
}

type Done = { run: StudyRun; outcome: MemberOutcome };

function dualMarkdown(done: Done[]): { md: string; json: unknown } {
  const finished: Finished[] = done.filter((d) => d.outcome.ok).map((d) => {
    const r = (d.outcome as Extract<MemberOutcome, { ok: true }>).result;
    return { tags: d.run.tags, final: { tokens: r.summary.final.tokens, accuracy: r.summary.final.accuracy }, history: r.history };
  });
  const rows = dualRows(finished), summary = summarizeDual(rows);
  const statics = finished.filter((r) => r.tags.kind === 'static');
  const md = [
    '| B | final tokens | final accuracy | gap to the static frontier | verdict | budget gap | steps to settle | greedy - sampled tokens |',
    '|---|---|---|---|---|---|---|---|',
    ...summary.map((s) => `| ${s.budget} | ${ci(s.tokens, 2)} | ${ci(s.accuracy)} | ${ci(s.gap)} | ${s.verdict} | ${ci(s.budgetGap, 2)} | ${ci(s.stepsToSettle, 1)} | ${ci(s.greedyMinusSampled, 2)} |`),
    '', 'Per run (the static frontier of the same seed, interpolated at the dual\'s tokens):', '',
    '| B | seed | tokens | accuracy | frontier accuracy | gap | sampled tokens (last third) | lambda (last third) |', '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.budget} | ${r.seed} | ${r.tokens.toFixed(2)} | ${f3(r.accuracy)} | ${f3(r.frontierAccuracy)} | ${f3(r.gap)} | ${r.sampledTokens.toFixed(2)} | ${r.lambdaLastThird.toFixed(4)} |`),
    '', 'The static runs (final greedy evals):', '', '| lambda_tok | seed | tokens | accuracy |', '|---|---|---|---|',
    ...statics.map((s) => `| ${s.tags.lambdaTok} | ${s.tags.seed} | ${s.final.tokens.toFixed(2)} | ${f3(s.final.accuracy)} |`),
  ].join('\n');
  return { md, json: { rows, summary, statics: statics.map((s) => ({ ...s.tags, ...s.final })) } };
}

function finals(done: Done[]): { run: StudyRun; final: Record<string, number>; best: Record<string, number> | null; summary: Record<string, unknown> }[] {
  return done.filter((d) => d.outcome.ok).map((d) => {
    const s = (d.outcome as Extract<MemberOutcome, { ok: true }>).result.summary;
    return { run: d.run, final: s.final, best: s.best, summary: s };
  });
}

function scoutsMarkdown(done: Done[]): { md: string; json: unknown } {
  const rows = finals(done);
  const ns = [...new Set(rows.map((r) => Number(r.run.tags.scouts)))].sort((a, b) => a - b);
  const per = ns.map((n) => {
    const of = rows.filter((r) => r.run.tags.scouts === n);
    const e = (k: string, from: 'final' | 'warm' = 'final') => estimate(of.map((r) => (from === 'final' ? r.final[k] : (r.summary.warmStart as Record<string, number>)[k]) ?? null));
    return { scouts: n, warmAccuracy: e('accuracy', 'warm'), warmTokens: e('tokens', 'warm'), accuracy: e('accuracy'), tokens: e('tokens'), silenceKnown: e('silenceKnown'), silenceOthers: e('silenceOthers') };
  });
  const md = [
    '| N | warm start accuracy / tokens | final accuracy | final tokens | silenceKnown | silenceOthers |', '|---|---|---|---|---|---|',
    ...per.map((p) => `| ${p.scouts} | ${ci(p.warmAccuracy)} / ${ci(p.warmTokens, 2)} | ${ci(p.accuracy)} | ${ci(p.tokens, 2)} | ${ci(p.silenceKnown, 2)} | ${p.scouts > 1 ? ci(p.silenceOthers, 2) : '-'} |`),
  ].join('\n');
  return { md, json: { per, runs: rows.map((r) => ({ ...r.run.tags, final: r.final, warmStart: r.summary.warmStart, warmStartSource: r.summary.warmStartSource })) } };
}

function philosophersMarkdown(done: Done[]): { md: string; json: unknown } {
  const rows = finals(done).map((r) => {
    const baselines = (r.summary.baselines as { name: string; extras: Record<string, number> }[] | undefined) ?? [];
    const hierarchy = baselines.find((b) => /hierarchy/.test(b.name))?.extras.mealsPerPhilosopher ?? NaN;
    const curriculum = (r.summary.curriculum as { label: string }[] | undefined) ?? [];
    return {
      arm: String(r.run.tags.arm), seed: Number(r.run.tags.seed), stage: curriculum.length ? curriculum[curriculum.length - 1].label : 'N = 7',
      final: r.final.mealsPerPhilosopher, best: r.best?.mealsPerPhilosopher ?? NaN, hierarchy, ate: r.final.ate, deadlock: r.final.deadlockRate,
    };
  });
  // per arm over the seeds, with Student-t intervals: the curriculum against the scripted resource hierarchy
  const arms = [...new Set(rows.map((r) => r.arm))];
  const per = arms.map((arm) => {
    const of = rows.filter((r) => r.arm === arm), e = (f: (r: typeof rows[number]) => number) => estimate(of.map(f));
    return { arm, final: e((r) => r.final), vsHierarchy: e((r) => r.final - r.hierarchy), best: e((r) => r.best), deadlock: e((r) => r.deadlock) };
  });
  const md = [
    '| arm | seeds | meals per philosopher, final | final - resource hierarchy | best eval | deadlock |', '|---|---|---|---|---|---|',
    ...per.map((p) => `| ${p.arm} | ${p.final.n} | ${ci(p.final)} | ${ci(p.vsHierarchy)} | ${ci(p.best)} | ${ci(p.deadlock)} |`),
    '', 'Per run:', '',
    '| arm | seed | table at the end | meals per philosopher, final | best eval (checkpoint discipline) | resource hierarchy | final - hierarchy | ate | deadlock |', '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.arm} | ${r.seed} | ${r.stage} | ${f3(r.final)} | ${f3(r.best)} | ${f3(r.hierarchy)} | ${f3(r.final - r.hierarchy)} | ${f3(r.ate)} | ${f3(r.deadlock)} |`),
  ].join('\n');
  return { md, json: { rows, per } };
}

/** The study named (first argument or --name, not two different ones) and its flags, none of another study. */
export function studyArgs(argv: string[]): { name: StudyName; flags: Flags; positional: string | undefined } {
  const positional = argv[0] !== undefined && !argv[0].startsWith('--') ? argv[0] : undefined;
  const flags = parseFlags(positional ? argv.slice(1) : argv, studyFlags, 'study');
  if (positional !== undefined && flags.name !== undefined && flags.name !== positional) throw new InputError(`study: the study is "${clip(positional, 40)}" and --name says "${clip(String(flags.name), 40)}"; give one`);
  const name = positional ?? requireFlag(flags, 'name', 'study');
  if (!(STUDIES as readonly string[]).includes(name)) throw new InputError(`study: unknown study "${clip(name, 40)}"; studies: ${STUDIES.join(', ')}`);
  for (const [other, own] of Object.entries(OWN_FLAGS)) {
    for (const f of own) if (other !== name && flags[f] !== undefined) throw new InputError(`study ${name}: --${f} is a flag of the ${other} study`);
  }
  return { name: name as StudyName, flags, positional };
}

export async function study(argv: string[]): Promise<unknown> {
  const { name, flags, positional } = studyArgs(argv);
  const runs = plan(name, flags);
  const setups = runs.map((r) => setup(r.preset, r.overrides as Record<string, unknown>)); // every config checked before anything runs
  confirmRuns(`study ${name}`, runs.length, setups.reduce((n, x) => n + x.config.steps, 0), flags.yes === true);
  const out = outOrDefault(flags.out, `study-${name}`);
  prepareJobTree(out, ['study.json', JOB_FILE], runs.map((r) => r.label), [...MEMBER_FILES, ...RESUME_MEMBER_FILES]); // every member folder and file, before anything trains
  const engine = flags.backend === undefined ? 'wasm' : String(flags.backend);
  if (engine !== 'wasm' && engine !== 'cpu') throw new InputError(`--backend must be cpu (the CPU engine; wasm is the same) or reference (a study trains on a CPU engine); got "${clip(engine === 'cpu' ? 'reference' : engine, 40)}"`);
  const device = { engine } as const;
  const lanes: LaneRun[] = runs.map((r, i) => ({ s: setups[i], preset: r.preset, overrides: r.overrides as MemberJob['overrides'], out: join(out, r.label), label: r.label, changes: [], resume: true }));
  const lanePlan = placeRuns(lanes, device, { members: flags.members, memoryFlag: flags['memory-limit'] });
  // what decides the results (not how many train at once): the same command continues, other settings are refused
  const settings: Record<string, unknown> = { study: name, ...Object.fromEntries(['seeds', 'budgets', 'lambdas', 'scouts', 'steps'].map((f) => [f, flags[f]])), backend: engine === 'wasm' ? 'cpu' : 'reference' };
  const job = openJob(out, `study ${name}`, settings, runs.map((r) => r.label), ['study.json'], flags.fresh === true);
  if (job.finished !== null) {
    const f = job.finished as { wallSeconds?: number; failed?: unknown[] };
    return { out, wallSeconds: f.wallSeconds, failed: f.failed ?? [] };
  }
  // a run that finished in an earlier try of this study is kept as it is
  const kept: (MemberOutcome | null)[] = runs.map((r, i) => { const k = finishedResult(lanes[i].out, r.preset, setups[i].config); return k ? { ok: true, result: k } : null; });
  for (const [i, k] of kept.entries()) if (k) log(`study ${name}: ${runs[i].label} finished in an earlier try, kept`);
  const todo = runs.map((_, i) => i).filter((i) => kept[i] === null), toTrain = todo.map((i) => lanes[i]);
  log(`study ${name}: ${runs.length} runs as a population, ${lanePlan.membersAtOnce} at once (${availableParallelism()} cores), ${engine === 'wasm' ? 'the WebAssembly SIMD engine' : 'the CPU reference'}`);
  mkdirSync(out, { recursive: true });
  const t0 = performance.now();
  const outcomes: MemberOutcome[] = kept.map((k) => k ?? { ok: false, kind: 'internal', message: 'not trained' });
  if (toTrain.length) {
    const stopWatch = onInterrupt(`study ${name}`, out, () => runs.map((r) => r.label)); // from the warm starts on
    try {
      const warm = await warmStartsFor(todo.map((i) => ({ preset: runs[i].preset, overrides: runs[i].overrides as Record<string, unknown>, engine })), lanePlan.membersAtOnce);
      const bad = warm.find((w) => !w.ok);
      if (bad && !bad.ok) throw new InputError(`study ${name}: a warm start could not be made: ${bad.message}`);
      toTrain.forEach((l, j) => { l.warm = (warm[j] as { warm: MemberJob['warm'] }).warm; });
      const got = await runLanes(toTrain, device, toTrain.length === lanes.length ? lanePlan : placeRuns(toTrain, device, { members: flags.members, memoryFlag: flags['memory-limit'] }),
        { done: (j, o) => log(`study ${name}: ${runs[todo[j]].label} ${o.ok ? 'done' : `failed: ${oneLine(o.message)}`}`) });
      todo.forEach((i, j) => { outcomes[i] = got[j]; });
    } finally { stopWatch(); }
  }
  const done = runs.map((run, i) => ({ run, outcome: outcomes[i] }));
  const { md, json } = name === 'dual-static' ? dualMarkdown(done) : name === 'scouts' ? scoutsMarkdown(done) : philosophersMarkdown(done);
  const wall = (performance.now() - t0) / 1000;
  const failed = failedRuns(runs.map((r) => r.label), outcomes);
  // the command that remakes the table: the flags as given, without where this copy went
  const given = argv.slice(positional ? 1 : 0), given1 = given.filter((a, i) => a !== '--out' && given[i - 1] !== '--out' && !a.startsWith('--out=') && a !== '--fresh');
  const command = ['npm run gspo -- study', name, ...given1].join(' ');
  const markdown = `${command}\n\n${md}\n${failed.length ? `\nStopped runs: ${failed.map((f) => `${f.label} (${f.message})`).join('; ')}\n` : ''}\n${Math.round(wall)} s wall on ${availableParallelism()} cores.\n`;
  writeAtomic(join(out, 'study.json'), JSON.stringify({ study: name, command, wallSeconds: wall, failed, ...json as object, markdown }, null, 2) + '\n');
  log(`study ${name}: done in ${Math.round(wall)} s; ${join(out, 'study.json')}\n${markdown}`);
  if (failed.length === 0) job.done(); // a study with failed runs stays open: run it again to retry them
  checkRuns(`study ${name}`, runs.length, failed, join(out, 'study.json'));
  return { out, wallSeconds: wall, failed };
}
