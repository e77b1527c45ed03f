// `robustness [--grid clean,noisy] [--out DIR] [--doc FILE] [--members N] [--memory-limit MiB]`:
// the relay lessons off their calibrated point (src/rl/robustness.ts), every cell a member of
// one CPU population (a thread each; cells whose warm start does not ship pretrain it in their
// own thread), then a table: each cell's final greedy eval against what its lesson promises,
// failures listed by name. `--doc docs/robustness.md` writes the table there with the command.
import { join } from 'node:path';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { clip, hasKey, InputError } from '../../contract/errors';
import { readEvalsFile } from '../evalsFile';
import type { EvalRecord } from '../../rl/runRecord';
import { judgeClean, judgeLength, judgeNoisy, robustnessCells, type Check, type Grid, type RobustnessCell } from '../../rl/robustness';
import { parseFlags, type FlagSpec } from '../args';
import { log, outOrDefault, prepareOutFile, writeAtomic } from '../io';
import { MEMBER_FILES, prepareJobTree } from '../outputTree';
import { JOB_FILE, onInterrupt, openJob } from '../jobResume';
import { finishedResult, RESUME_MEMBER_FILES } from '../resumeState';
import type { MemberJob, MemberOutcome } from '../memberPool';
import { placeRuns, runLanes, type LaneRun } from '../runLanes';
import { parseSets, recipeOverrides, setup, type RunSetup } from './runSetup';
import { checkExclusive } from '../flagChecks';
import { markdownCodeBlock } from '../../store/textFormats';
import { shellWord } from '../../export/literal';
import { checkRuns, failedRuns, oneLine } from '../jobRuns';

export const robustnessFlags: FlagSpec = {
  grid: { kind: 'string', help: 'clean, noisy, length (the noisy relay off its points, 3 seeds a cell) or a comma list (default clean,noisy)' },
  out: { kind: 'string', help: 'folder for the runs and robustness.json (default runs/robustness-<time>)' },
  doc: { kind: 'string', help: 'also write the table as markdown to this file (e.g. docs/robustness.md)' },
  members: { kind: 'int', help: 'cells training at once (default: as many as fit in memory)' },
  'memory-limit': { kind: 'number', help: 'MiB the population may use (default 3/4 of the available memory)' },
  shipped: { kind: 'bool', help: 'run every cell as its preset ships, without the setting\'s recipe (docs/recipe.md)' },
  set: { kind: 'list', help: 'config override key=value for every cell (repeatable; not a field a cell sets), e.g. steps=40 for a quick look: the verdicts then judge short runs' },
  backend: { kind: 'string', help: 'the CPU engine the cells train on: cpu (default, the WebAssembly SIMD engine on every core; wasm = cpu) or reference' },
  judge: { kind: 'string', help: 'train nothing: judge the cells already in this folder (an earlier --out); a cell without its final eval is listed as not finished' },
  fresh: { kind: 'bool', help: 'start anew in an --out that holds an earlier robustness run (removes its files); without it the same run continues there, and other settings are refused' },
};

export interface CellResult {
  label: string; grid: Grid; overrides: Record<string, unknown>; out: string; wallSeconds: number | null;
  warmStart: Record<string, number> | null; final: Record<string, number> | null;
  checks: Check[]; pass: boolean; why: string; warmStartSource: string | null;
}

function parseGrids(flag: unknown): Grid[] {
  if (flag === undefined) return ['clean', 'noisy'];
  const parts = String(flag).split(',').map((x) => x.trim());
  const bad = parts.filter((x) => x !== 'clean' && x !== 'noisy' && x !== 'length');
  if (bad.length > 0 || parts.length === 0) throw new InputError(`--grid must be clean, noisy, length or a comma list of them; got "${String(flag).slice(0, 40)}"`);
  return [...new Set(parts)] as Grid[];
}

const fmt = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '-' : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(3));

/** What the recipe set in a cell (its overrides beyond the grid's own settings), short: "160 steps, T 0.7, lambda 0.073 for 80 steps". */
export function recipeText(o: Record<string, unknown>): string {
  const parts: string[] = [];
  if (o.steps !== undefined) parts.push(`${String(o.steps)} steps`);
  if (o.temperature !== undefined) parts.push(`T ${String(o.temperature)}`);
  if (o.lambdaHold !== undefined && Number(o.lambdaHold) > 0) parts.push(`lambda ${String(o.lambdaStart)} for ${String(o.lambdaHold)} steps`);
  for (const k of ['lr', 'groupSize', 'promptsPerStep', 'epsLow', 'epsHigh']) if (o[k] !== undefined) parts.push(`${k} ${String(o[k])}`);
  return parts.length ? parts.join(', ') : 'as shipped';
}

/** The markdown table of one grid: a row per cell, its measures, PASS or the failed criteria. */
function table(results: CellResult[], grid: Grid): string {
  const rows = results.filter((r) => r.grid === grid);
  const keys = grid === 'clean' ? ['accuracy', 'tokens', 'silenceKnown', 'silenceUnknown'] : ['accuracy', 'tokens', 'tokensUnknown', 'silenceKnown'];
  const head = `| cell | recipe | warm start acc / tokens | ${keys.join(' | ')} | verdict |\n|---|---|---|${keys.map(() => '---').join('|')}|---|`;
  const body = rows.map((r) => {
    const w = r.warmStart ? `${fmt(r.warmStart.accuracy)} / ${fmt(r.warmStart.tokens)}` : '-';
    return `| ${r.label} | ${recipeText(r.overrides)} | ${w} | ${keys.map((k) => fmt(r.final?.[k])).join(' | ')} | ${r.pass ? 'PASS' : `FAIL: ${r.why}`} |`;
  });
  return [head, ...body].join('\n');
}

export function robustnessMarkdown(results: CellResult[], command: string, wallSeconds: number): string {
  const failed = results.filter((r) => !r.pass);
  const grids = [...new Set(results.map((r) => r.grid))];
  const parts = [
    '# Robustness: the relay lessons off their calibrated point',
    '',
    'Made by one command (a population on a CPU engine, the WebAssembly SIMD one unless the command says',
    '--backend cpu: one thread per cell; a warm start that does not ship is pretrained in its cell\'s thread',
    'until held-out greedy accuracy 0.95 and the repertoire hold):',
    '',
    markdownCodeBlock(command, 'sh'), // a path in the command cannot close the block
    '',
    `${results.length} cells, ${results.length - failed.length} pass, ${failed.length} fail${Number.isFinite(wallSeconds) ? `; ${Math.round(wallSeconds)} s wall on ${availableParallelism()} cores` : ''}.`,
    'Every figure is the final greedy eval (512 or 256 held-out tasks, at the cell\'s last step); the criteria are in `src/rl/robustness.ts`;',
    'each cell runs with its setting\'s recipe (`src/rl/recipe.ts`, docs/recipe.md) unless the command says --shipped.',
  ];
  if (grids.includes('clean')) {
    parts.push('', '## Clean relay (relay-silence): digits and the known-task mix', '',
      'Passes when final accuracy is within 0.02 of the warm start\'s, tokens at most 30% of the warm start\'s,',
      'silence at least 0.95 on known tasks and at most 0.05 on unknown ones.', '', table(results, 'clean'));
  }
  if (grids.includes('noisy')) {
    parts.push('', '## Noisy relay, advantage r - mean (relay-noisy-dr): channel noise and lambda_tok', '',
      'Passes when silence on known tasks is at least 0.9, the message tokens on unknown tasks are within 1 of',
      'the analytic optimum n* (the n maximising 1 - 0.9 eps^n - lambda_tok n) and accuracy within 0.03 of',
      'pKnown + (1 - pKnown)(1 - 0.9 eps^n*).', '', table(results, 'noisy'));
  }
  if (grids.includes('length')) {
    parts.push('', '## Noisy relay, the length half: settings off the grid, three seeds each', '',
      'The noisy relay at channel noise and lambda_tok the recipe was not fitted to, each with three seeds of its own.',
      'Passes when silence on known tasks is at least 0.9, the message tokens on unknown tasks are within 1 of',
      'the analytic optimum n*, and accuracy is at least 0.96 (or the optimum\'s - 0.03 where that is lower).', '', table(results, 'length'));
  }
  parts.push('', '## Failures', '', failed.length === 0 ? 'None.' : failed.map((r) => `- **${r.label}**: ${r.why}`).join('\n'));
  return parts.join('\n') + '\n';
}

/** A cell judged from its evals: the first (the warm start) against the last, when that is the run's final step. */
function judged(cell: RobustnessCell, s: RunSetup, out: string, warm: Record<string, number>, final: Record<string, number>, notices: string[], extra: Partial<CellResult>): CellResult {
  const checks = cell.grid === 'clean' ? judgeClean(warm as EvalRecord, final as EvalRecord)
    : cell.grid === 'length' ? judgeLength(s.config, final as EvalRecord) : judgeNoisy(s.config, final as EvalRecord);
  const failed = checks.filter((c) => !c.ok);
  const why = [...failed.map((c) => `${c.name} ${fmt(c.value)}, needs ${c.want}`), ...notices.map((n) => `(warm start: ${n})`)].join('; ');
  return { label: cell.label, grid: cell.grid, overrides: cell.overrides, out, wallSeconds: null, warmStart: warm, final, checks, pass: failed.length === 0, why, warmStartSource: null, ...extra };
}

const isFolder = (p: string): boolean => { try { return statSync(p).isDirectory(); } catch { return false; } };

/** `--judge DIR`: the cells of an earlier run folder, judged without training. */
function judgeFolder(dir: string, planned: { cell: RobustnessCell; s: RunSetup }[]): CellResult[] {
  return planned.map(({ cell, s }) => {
    const out = join(dir, cell.label), file = join(out, 'evals.jsonl');
    // every line through the eval schema: a line that does not read stops the judging, naming file and line
    const evals = existsSync(file) ? readEvalsFile(file) as unknown as Record<string, number>[] : [];
    const last = evals.at(-1);
    if (!last || last.step !== s.config.steps) {
      return { label: cell.label, grid: cell.grid, overrides: cell.overrides, out, wallSeconds: null, warmStart: evals[0] ?? null, final: null, checks: [], pass: false,
        why: evals.length === 0 ? 'not finished: no eval yet (its warm start was still being made)' : `not finished: its last eval is at step ${last!.step} of ${s.config.steps}`, warmStartSource: null };
    }
    return judged(cell, s, out, evals[0], last, [], {});
  });
}

export async function robustness(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, robustnessFlags, 'robustness');
  const sets = parseSets(flags.set as string[] | undefined);
  const setWords = Object.entries(sets).map(([k, v]) => ` --set ${shellWord(`${k}=${v}`)}`).join('');
  // a --set of a field a cell sets would silently be lost (or change what the cell is)
  const cells = robustnessCells(parseGrids(flags.grid)).map((cell) => {
    const clash = Object.keys(sets).find((k) => hasKey(cell.overrides, k));
    if (clash) throw new InputError(`robustness: --set ${clash}: the cell "${cell.label}" sets ${clash} itself; give fields the cells do not set`);
    return { ...cell, overrides: { ...sets, ...cell.overrides } as RobustnessCell['overrides'] };
  });
  // every cell's config is checked before anything runs
  // each cell with its setting's recipe (the cell's own overrides stay), unless --shipped
  const withRecipe = (cell: RobustnessCell): RobustnessCell => flags.shipped === true ? cell
    : { ...cell, overrides: recipeOverrides(cell.preset, cell.overrides as Record<string, unknown>).overrides as RobustnessCell['overrides'] };
  const planned: { cell: RobustnessCell; s: RunSetup }[] = cells.map(withRecipe).map((cell) => ({ cell, s: setup(cell.preset, cell.overrides as Record<string, unknown>) }));
  const engine = flags.backend === undefined ? 'wasm' : String(flags.backend);
  if (engine !== 'wasm' && engine !== 'cpu') throw new InputError(`--backend must be cpu (the CPU engine; wasm is the same) or reference (robustness trains on a CPU engine); got "${clip(engine === 'cpu' ? 'reference' : engine, 40)}"`);
  checkExclusive('robustness', flags, 'judge', ['out', 'members', 'memory-limit', 'backend', 'fresh']);
  if (flags.judge !== undefined) {
    const dir = String(flags.judge);
    if (!isFolder(dir)) throw new InputError(`--judge: "${clip(dir, 200)}" is not a folder`);
    if (flags.doc !== undefined) prepareOutFile(String(flags.doc), '--doc');
    const results = judgeFolder(dir, planned);
    const command = `npm run gspo -- robustness${flags.grid !== undefined ? ` --grid ${String(flags.grid)}` : ''}${flags.shipped === true ? ' --shipped' : ''}${setWords}`;
    const md = robustnessMarkdown(results, command, NaN);
    if (flags.doc !== undefined) writeAtomic(String(flags.doc), md);
    return { judged: dir, pass: results.filter((r) => r.pass).length, cells: results.map((r) => ({ label: r.label, pass: r.pass, why: r.why })) };
  }
  const out = outOrDefault(flags.out, 'robustness');
  prepareJobTree(out, ['robustness.json', 'robustness.md', JOB_FILE], cells.map((c) => c.label), [...MEMBER_FILES, ...RESUME_MEMBER_FILES]); // every cell's folder and file, before anything trains
  if (flags.doc !== undefined) prepareOutFile(String(flags.doc), '--doc');
  const device = { engine } as const;
  // what decides the results (not how many train at once, nor --doc): the same command continues, other settings are refused
  const settings: Record<string, unknown> = { grid: cells.map((c) => c.grid).filter((g, i, a) => a.indexOf(g) === i), shipped: flags.shipped === true, backend: engine === 'wasm' ? 'cpu' : 'reference',
    ...Object.fromEntries(Object.entries(sets).map(([k, v]) => [`--set ${k}`, v])) };
  const job = openJob(out, 'robustness', settings, cells.map((c) => c.label), ['robustness.json', 'robustness.md'], flags.fresh === true);
  if (job.finished !== null) {
    const f = job.finished as { cells: CellResult[]; wallSeconds: number };
    if (flags.doc !== undefined) writeAtomic(String(flags.doc), readFileSync(join(out, 'robustness.md'), 'utf8'));
    return { out, wallSeconds: f.wallSeconds, pass: f.cells.filter((r) => r.pass).length, cells: f.cells.map((r) => ({ label: r.label, pass: r.pass, why: r.why })) };
  }
  const lanes: LaneRun[] = planned.map(({ cell, s }) => ({ s, preset: cell.preset, overrides: cell.overrides as MemberJob['overrides'], out: join(out, cell.label), label: cell.label, changes: [], resume: true }));
  // a cell that finished in an earlier try of this run is kept as it is
  const kept = planned.map(({ cell, s }, i) => finishedResult(lanes[i].out, cell.preset, s.config));
  for (const [i, k] of kept.entries()) if (k) log(`robustness: ${cells[i].label} finished in an earlier try, kept`);
  const todo = lanes.map((_, i) => i).filter((i) => kept[i] === null), toTrain = todo.map((i) => lanes[i]);
  const lanePlan = placeRuns(lanes, device, { members: flags.members, memoryFlag: flags['memory-limit'] });
  const atOnce = lanePlan.membersAtOnce, perMember = Math.max(...lanePlan.waves.map((w) => w.placement.memberBytes));
  log(`robustness: ${cells.length} cells as a population, ${atOnce} at once (about ${Math.ceil(perMember / 2 ** 20)} MiB each; ${availableParallelism()} cores), ${engine === 'wasm' ? 'the WebAssembly SIMD engine' : 'the CPU reference'}${flags.shipped === true ? ', as the presets ship' : ', each with its recipe'}`);
  mkdirSync(out, { recursive: true });
  const t0 = performance.now();
  const outcomes: MemberOutcome[] = kept.map((k) => (k ? { ok: true, result: k } : { ok: false, kind: 'internal', message: 'not trained' }));
  if (toTrain.length) {
    const stopWatch = onInterrupt('robustness', out, () => cells.map((c) => c.label));
    try {
      const got = await runLanes(toTrain, device, toTrain.length === lanes.length ? lanePlan : placeRuns(toTrain, device, { members: flags.members, memoryFlag: flags['memory-limit'] }),
        { done: (j, o) => log(`robustness: ${cells[todo[j]].label} ${o.ok ? 'done' : `failed: ${oneLine(o.message)}`}`) });
      todo.forEach((i, j) => { outcomes[i] = got[j]; });
    } finally { stopWatch(); }
  }
  const results: CellResult[] = planned.map(({ cell, s }, i) => {
    const o = outcomes[i];
    const base = { label: cell.label, grid: cell.grid, overrides: cell.overrides, out: join(out, cell.label) };
    if (!o.ok) return { ...base, wallSeconds: null, warmStart: null, final: null, checks: [], pass: false, why: `the run failed: ${oneLine(o.message)}`, warmStartSource: null };
    const sum = o.result.summary;
    return judged(cell, s, base.out, sum.warmStart as Record<string, number>, sum.final, (sum.warmStartNotices as string[] | undefined) ?? [],
      { wallSeconds: sum.wallSeconds, warmStartSource: String(sum.warmStartSource ?? '') });
  });
  const wall = (performance.now() - t0) / 1000;
  const command = `npm run gspo -- robustness${flags.grid !== undefined ? ` --grid ${String(flags.grid)}` : ''}${flags.shipped === true ? ' --shipped' : ''}${setWords}${flags.backend !== undefined ? ` --backend ${engine}` : ''}${flags.doc !== undefined ? ` --doc ${shellWord(String(flags.doc))}` : ''}`;
  const md = robustnessMarkdown(results, command, wall);
  writeAtomic(join(out, 'robustness.md'), md);
  const failed = failedRuns(cells.map((c) => c.label), outcomes);
  writeAtomic(join(out, 'robustness.json'), JSON.stringify({ cells: results, wallSeconds: wall, membersAtOnce: atOnce, ...(failed.length ? { failed } : {}) }, null, 2) + '\n');
  if (flags.doc !== undefined) writeAtomic(String(flags.doc), md);
  log(`robustness: ${results.filter((r) => r.pass).length} of ${results.length} cells pass; table in ${join(out, 'robustness.md')}`);
  if (failed.length === 0) job.done(); // a run with failed cells stays open: run it again to retry them
  checkRuns('robustness', cells.length, failed, join(out, 'robustness.json'));
  return { out, wallSeconds: wall, pass: results.filter((r) => r.pass).length, cells: results.map((r) => ({ label: r.label, pass: r.pass, why: r.why })) };
}
