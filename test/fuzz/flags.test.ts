// Fuzz: flag combinations for every command. Random argv from the command's own flags, other
// commands' flags, prototype names, malformed spellings and edge values go through parseFlags and
// the cross-flag checks (study's name and flags, sweep's axes, --set shorthands, --at steps, the
// --yes threshold). Each ends as an InputError with a bounded message or as flags that are exactly
// the command's own, each of its kind, with no contradiction left in.
import { describe, it } from 'vitest';
import { parseFlags, type FlagSpec, type Flags } from '../../src/cli/args';
import { checkChangeSteps, checkExclusive, checkShorthands, confirmRuns, RUNS_WITHOUT_YES } from '../../src/cli/flagChecks';
import { benchFlags } from '../../src/cli/commands/bench';
import { gradFlags } from '../../src/cli/commands/grad';
import { logprobsFlags } from '../../src/cli/commands/logprobs';
import { pretrainFlags } from '../../src/cli/commands/pretrain';
import { trainFlags } from '../../src/cli/commands/train';
import { evalFlags } from '../../src/cli/commands/evaluate';
import { specFrom, sweepFlags } from '../../src/cli/commands/sweep';
import { compareFlags } from '../../src/cli/commands/compare';
import { robustnessFlags } from '../../src/cli/commands/robustness';
import { studyArgs, studyFlags } from '../../src/cli/commands/study';
import { exportFlags } from '../../src/cli/commands/export';
import { parseSets } from '../../src/cli/commands/runSetup';
import { presetConfig, findPreset } from '../../src/envs/presets';
import { parseChange } from '../../src/rl/population';
import { planSweep } from '../../src/rl/sweep';
import { InputError } from '../../src/contract/errors';
import { int, pick, PROTO_KEYS, seeded, Tally } from './harness';

const CASES = 10_000;
const SPECS: Record<string, FlagSpec> = { bench: benchFlags, grad: gradFlags, logprobs: logprobsFlags, pretrain: pretrainFlags, train: trainFlags, eval: evalFlags, sweep: sweepFlags, compare: compareFlags, robustness: robustnessFlags, study: studyFlags, export: exportFlags };
const ALL_FLAGS = [...new Set(Object.values(SPECS).flatMap((s) => Object.keys(s)))];
const VALUES = ['1', '0', '-1', '2.5', '1e3', '0x10', 'NaN', 'Infinity', '', 'true', 'false', 'relay-silence', 'scouts', 'philosophers', 'dual-static', '1,2', '0,0.1', 'seed=1,2', 'lr=0.01,0.02', 'steps=5', 'lambdaTok=0.2',
  'seed=3', '5:lr=0.01', '500:lr=0.01', '1:lambdaTok=2@1', '0:lr=1@99', '--steps', 'x'.repeat(300), '__proto__=1', 'cpu', 'webgpu', '/tmp/x',
  Array.from({ length: 40 }, (_, i) => i / 100).join(','), Array.from({ length: 9 }, (_, i) => i + 1).join(',')]; // 40 values x 9 seeds: past the --yes threshold
const base = presetConfig(findPreset('relay-silence'));

function argvFor(rand: () => number, command: string): string[] {
  const own = Object.keys(SPECS[command]), out: string[] = [];
  if (command === 'study' && rand() < 0.7) out.push(pick(rand, ['scouts', 'philosophers', 'dual-static', 'bogus', '__proto__']));
  for (let n = int(rand, 6); n > 0; n--) {
    const r = rand();
    const name = r < 0.7 ? pick(rand, own) : r < 0.85 ? pick(rand, ALL_FLAGS) : r < 0.93 ? pick(rand, PROTO_KEYS) : pick(rand, ['', '-', 'help', 'Steps', 'steps ', 'set=']);
    const prefix = rand() < 0.97 ? '--' : pick(rand, ['-', '---', '']);
    if (rand() < 0.3) out.push(`${prefix}${name}=${pick(rand, VALUES)}`);
    else { out.push(`${prefix}${name}`); if (rand() < 0.85) out.push(pick(rand, VALUES)); }
  }
  return out;
}

/** The flags are exactly the spec's, each of its kind. */
function ownAndTyped(flags: Flags, spec: FlagSpec): string | null {
  for (const [k, v] of Object.entries(flags)) {
    if (!Object.prototype.hasOwnProperty.call(spec, k)) return `--${k} is not this command's`;
    const kind = spec[k].kind;
    if ((kind === 'int' && !Number.isInteger(v)) || (kind === 'number' && !Number.isFinite(v)) || (kind === 'bool' && typeof v !== 'boolean') ||
      (kind === 'list' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) || (kind === 'string' && typeof v !== 'string')) return `--${k} is ${typeof v}, not ${kind}`;
  }
  return null;
}

/** The command's cross-flag checks, as the command runs them before any work. */
function checked(command: string, argv: string[]): Flags {
  if (command === 'study') return studyArgs(argv).flags;
  const flags = parseFlags(argv, SPECS[command], command);
  const sets = parseSets(flags.set as string[] | undefined);
  if (command === 'train' || command === 'compare') checkShorthands(command, flags, sets, { steps: 'steps', seed: 'seed' });
  if (command === 'eval') checkShorthands(command, flags, sets, { episodes: 'evalEpisodes' });
  if (command === 'robustness') checkExclusive(command, flags, 'judge', ['out', 'members', 'memory-limit']);
  if (command === 'sweep' || command === 'train') {
    const spec = command === 'sweep' ? specFrom(flags, base) : { axis: 'lambdaTok' as const, values: [base.lambdaTok], seeds: [] };
    const plan = planSweep(spec), texts = (flags.at as string[] | undefined) ?? [];
    const changes = texts.map((t) => parseChange(t, plan.length, base));
    const steps = plan.map(() => (typeof flags.steps === 'number' ? flags.steps : base.steps));
    checkChangeSteps(command, texts, changes, steps);
    confirmRuns(command, plan.length, plan.length * base.steps, flags.yes === true);
  }
  return flags;
}

describe('fuzz: flag combinations', () => {
  it('every argv: refused by name, or exactly the command\'s own flags with no contradiction', () => {
    const rand = seeded(33_201);
    const tally = new Tally('flags', (e) => e instanceof InputError);
    const commands = Object.keys(SPECS);
    for (let k = 0; k < CASES; k++) {
      const command = commands[k % commands.length];
      const argv = argvFor(rand, command);
      tally.run(command, () => JSON.stringify(argv).slice(0, 300), () => checked(command, argv), (flags) => {
        const broken = ownAndTyped(flags, SPECS[command]);
        if (broken) return broken;
        const sets = flags.set ? parseSets(flags.set as string[]) : {};
        if ((command === 'train' || command === 'compare') && ((flags.steps !== undefined && 'steps' in sets) || (flags.seed !== undefined && 'seed' in sets))) return 'a shorthand and its --set both kept';
        if (command === 'sweep' && typeof flags.over === 'string' && flags.over.startsWith('seed=') && flags.seeds !== undefined) return '--over seed with --seeds kept';
        if (command === 'sweep' && [flags.lambdas, flags.budgets, flags.over].filter((x) => x !== undefined).length > 1) return 'two axes kept';
        if (command === 'sweep') {
          const runs = planSweep(specFrom(flags, base)).length;
          if (runs > RUNS_WITHOUT_YES && flags.yes !== true) return `${runs} runs without --yes`;
        }
        if (command === 'sweep' || command === 'train') {
          const last = (typeof flags.steps === 'number' ? flags.steps : base.steps) - 1;
          for (const t of (flags.at as string[] | undefined) ?? []) if (Number(t.split(':')[0]) > last) return `--at ${t} after the last step ${last} kept`;
        }
        if (command === 'robustness' && flags.judge !== undefined && flags.out !== undefined) return '--judge with --out kept';
        if (command === 'study' && flags.name !== undefined && flags.budgets !== undefined && flags.name !== 'dual-static') return 'another study\'s flag kept';
        return null;
      });
    }
    tally.report(CASES);
  });
});
