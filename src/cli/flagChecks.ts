// Checks across flags, which no single flag's parse can make: a live change after the run's last
// step, and a plan of many runs, which must be confirmed with --yes after its estimate is shown.
import type { MemberChange } from '../rl/population';
import { clip, InputError } from '../contract/errors';
import type { FlagSpec } from './args';

/**
 * Each --at change must land on a step some member it names runs: step s applies before step s
 * of 0..steps-1, so a change at s >= steps would never apply (`steps[m]` is member m's count).
 */
export function checkChangeSteps(command: string, texts: readonly string[], changes: readonly MemberChange[], steps: readonly number[]): void {
  changes.forEach((c, i) => {
    const members = c.member === null ? steps.map((_, m) => m) : [c.member];
    const last = Math.max(...members.map((m) => steps[m] - 1)); // members: at most the plan's runs (MAX_SWEEP_RUNS)
    if (c.step > last) {
      throw new InputError(`${command}: --at ${clip(texts[i], 60)}: step ${c.step} is after the last step (${last}${c.member === null ? '' : ` of member ${c.member}`}), so the change would never apply`);
    }
  });
}

/** A plan of more runs than this prints its estimate and needs --yes. */
export const RUNS_WITHOUT_YES = 64;

/** Refuses a plan of more than RUNS_WITHOUT_YES runs unless --yes was given; the message is the estimate. */
export function confirmRuns(command: string, runs: number, trainingSteps: number, yes: boolean): void {
  if (runs <= RUNS_WITHOUT_YES || yes) return;
  throw new InputError(`${command}: ${runs} runs, ${trainingSteps} training steps in all (more than ${RUNS_WITHOUT_YES} runs): give --yes to start them, or fewer values or seeds`);
}

/** One command's usage: what --help prints. */
export function commandUsage(name: string, help: string, flags: FlagSpec): string {
  const lines = [`usage: npm run gspo -- ${name} [flags]`, '', help, '', 'flags:'];
  for (const [f, s] of Object.entries(flags)) lines.push(`  --${f.padEnd(14)} ${s.help}`);
  return lines.join('\n');
}

/** A flag that is a shorthand for a config field (`--steps` for steps) given with `--set` of that field: one would be lost. */
export function checkShorthands(command: string, flags: Record<string, unknown>, sets: Record<string, unknown>, shorthands: Record<string, string>): void {
  for (const [flag, key] of Object.entries(shorthands)) {
    if (flags[flag] !== undefined && Object.prototype.hasOwnProperty.call(sets, key)) throw new InputError(`${command}: --${flag} and --set ${key}=... both set ${key}; give one`);
  }
}

/** Flags that mean nothing together with `flag` (it replaces what they shape): refused rather than ignored. */
export function checkExclusive(command: string, flags: Record<string, unknown>, flag: string, others: readonly string[]): void {
  if (flags[flag] === undefined) return;
  const given = others.filter((o) => flags[o] !== undefined);
  if (given.length) throw new InputError(`${command}: --${flag} does not go with ${given.map((g) => '--' + g).join(', ')}`);
}
