// Each command takes exactly its own flags; flags that
// contradict each other, a change after the last step, and a plan of many runs without --yes are
// refused before anything runs (exit 2, one line naming the flags); --help works on every command.
import { describe, expect, it } from 'vitest';
import { checkChangeSteps, checkExclusive, checkShorthands, confirmRuns, RUNS_WITHOUT_YES } from '../../src/cli/flagChecks';
import { InputError } from '../../src/contract/errors';
import { benchFlags } from '../../src/cli/commands/bench';
import { gradFlags } from '../../src/cli/commands/grad';
import { logprobsFlags } from '../../src/cli/commands/logprobs';
import { pretrainFlags } from '../../src/cli/commands/pretrain';
import { trainFlags } from '../../src/cli/commands/train';
import { evalFlags } from '../../src/cli/commands/evaluate';
import { sweepFlags } from '../../src/cli/commands/sweep';
import { compareFlags } from '../../src/cli/commands/compare';
import { robustnessFlags } from '../../src/cli/commands/robustness';
import { lessonFlags } from '../../src/cli/commands/lesson';
import { studyFlags } from '../../src/cli/commands/study';
import { exportFlags } from '../../src/cli/commands/export';
import { gspo, tempDir } from '../cli/run';

function expectExit2(args: string[], pattern: RegExp) {
  const r = gspo(args);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stdout).toBe('');
}
const values = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i)).join(',');

describe('the checks, in process', () => {
  const change = (step: number, member: number | null = null) => ({ step, member, partial: { lr: 0.01 } });
  it('a change lands on a step some member runs: steps 0..steps-1', () => {
    expect(() => checkChangeSteps('sweep', ['9:lr=0.01'], [change(9)], [10, 5])).not.toThrow();
    expect(() => checkChangeSteps('sweep', ['10:lr=0.01'], [change(10)], [10, 5])).toThrow(/step 10 is after the last step \(9\)/);
    expect(() => checkChangeSteps('sweep', ['5:lr=0.01@1'], [change(5, 1)], [10, 5])).toThrow(/step 5 is after the last step \(4 of member 1\)/);
    expect(() => checkChangeSteps('sweep', ['4:lr=0.01@1'], [change(4, 1)], [10, 5])).not.toThrow();
  });
  it(`more than ${RUNS_WITHOUT_YES} runs need --yes`, () => {
    expect(() => confirmRuns('sweep', RUNS_WITHOUT_YES, 1, false)).not.toThrow();
    expect(() => confirmRuns('sweep', RUNS_WITHOUT_YES + 1, 650, false)).toThrow(InputError);
    expect(() => confirmRuns('sweep', RUNS_WITHOUT_YES + 1, 650, false)).toThrow(new RegExp(`${RUNS_WITHOUT_YES + 1} runs, 650 training steps.*--yes`));
    expect(() => confirmRuns('sweep', RUNS_WITHOUT_YES + 1, 650, true)).not.toThrow();
  });
  it('a shorthand and its --set; an exclusive flag', () => {
    expect(() => checkShorthands('train', { steps: 5 }, { steps: '10' }, { steps: 'steps' })).toThrow(/--steps and --set steps=... both set steps/);
    expect(() => checkShorthands('train', { steps: 5 }, { lr: '0.1' }, { steps: 'steps' })).not.toThrow();
    expect(() => checkExclusive('robustness', { judge: 'd', out: 'o' }, 'judge', ['out', 'members'])).toThrow(/--judge does not go with --out/);
    expect(() => checkExclusive('robustness', { out: 'o' }, 'judge', ['out'])).not.toThrow();
  });
});

describe('through the CLI', () => {
  it.each([
    ['sweep --over seed= with --seeds', ['sweep', '--preset', 'relay-silence', '--over', 'seed=1,2', '--seeds', '5,6'], /--over seed=\.\.\. and --seeds both give the seeds/],
    ['sweep --lambdas with --set lambdaTok', ['sweep', '--preset', 'relay-silence', '--lambdas', '0,0.1', '--set', 'lambdaTok=0.3'], /--set lambdaTok=0\.3 and the sweep .* both set lambdaTok/],
    ['sweep --at past the last step', ['sweep', '--preset', 'relay-silence', '--lambdas', '0,0.1', '--set', 'steps=5', '--at', '5:lr=0.01'], /--at 5:lr=0\.01: step 5 is after the last step \(4\)/],
    ['train --at past the last step', ['train', '--preset', 'relay-silence', '--steps', '3', '--at', '7:lr=0.01'], /train: --at 7:lr=0\.01: step 7 is after the last step \(2\)/],
    ['train --steps with --set steps', ['train', '--preset', 'relay-silence', '--steps', '3', '--set', 'steps=5'], /--steps and --set steps=\.\.\. both set steps/],
    ['eval --episodes with --set evalEpisodes', ['eval', '--preset', 'relay-silence', '--episodes', '8', '--set', 'evalEpisodes=16'], /--episodes and --set evalEpisodes/],
    ['study: positional and --name disagree', ['study', 'scouts', '--name', 'philosophers'], /the study is "scouts" and --name says "philosophers"/],
    ['study scouts --budgets', ['study', 'scouts', '--budgets', '1,2'], /study scouts: --budgets is a flag of the dual-static study/],
    ['study dual-static --steps', ['study', 'dual-static', '--steps', '5'], /study dual-static: --steps is a flag of the philosophers study/],
    ['robustness --judge with --out', ['robustness', '--judge', '.', '--out', 'x'], /--judge does not go with --out/],
    ['sweep of 70 runs without --yes', ['sweep', '--preset', 'relay-silence', '--lambdas', values(10, (i) => i / 100), '--seeds', values(7, (i) => i + 1)], /sweep: 70 runs, 7000 training steps in all .*--yes/],
    ['study of 8,192 runs without --yes', ['study', 'dual-static', '--budgets', values(64, (i) => i + 1), '--lambdas', values(64, (i) => i / 100), '--seeds', values(64, (i) => i + 1)], /study dual-static: 8192 runs, .*--yes/],
  ])('%s', (_name, args, pattern) => {
    // a fresh --out where the command takes one: were the check missing, nothing of the repo is written
    expectExit2(['sweep', 'train', 'study'].includes(args[0]) ? [...args, '--out', tempDir() + '/never'] : args, pattern);
  }, 60_000);

  it('--help on every command: exit 0, and the usage names each of its flags', () => {
    const specs = { bench: benchFlags, grad: gradFlags, logprobs: logprobsFlags, pretrain: pretrainFlags, train: trainFlags, eval: evalFlags, sweep: sweepFlags, compare: compareFlags, robustness: robustnessFlags, study: studyFlags, export: exportFlags, lesson: lessonFlags };
    for (const [name, spec] of Object.entries(specs)) {
      const r = gspo([name, '--help']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      for (const f of Object.keys(spec)) expect(r.stdout, `${name} --${f}`).toContain(`--${f}`);
    }
  }, 120_000);
});
