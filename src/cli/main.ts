// The headless CLI: `npm run gspo -- <command> [flags]`. Progress to stderr, one JSON
// document to stdout; bad input exits 2 with one line naming the problem.
import './wasmFeatures'; // first: V8's relaxed-simd flag before any WebAssembly module is compiled
import { clip, escapeControls, hasKey, InputError, RunFault } from '../contract/errors';
import { checkResult } from './resultCheck';
import { SafetensorsError } from '../model/safetensors';
import { bench, benchFlags } from './commands/bench';
import { grad, gradFlags } from './commands/grad';
import { logprobs, logprobsFlags } from './commands/logprobs';
import { pretrainCmd, pretrainFlags } from './commands/pretrain';
import { train, trainFlags } from './commands/train';
import { evaluate, evalFlags } from './commands/evaluate';
import { sweep, sweepFlags } from './commands/sweep';
import { compare, compareFlags } from './commands/compare';
import { exportCmd, exportFlags } from './commands/export';
import { robustness, robustnessFlags } from './commands/robustness';
import { study, studyFlags } from './commands/study';
import { lesson, lessonFlags } from './commands/lesson';
import type { FlagSpec } from './args';
import { commandUsage } from './flagChecks';
import { isFsError, writeFailed } from './fsErrors';
import { followParent } from './parentWatch';
import { takeThreads } from './args';
import { wasmThreads } from './io';
import { takeTask, TASK_COMMANDS } from './taskFile';

const commands: Record<string, { run: (argv: string[]) => Promise<unknown>; flags: FlagSpec; help: string }> = {
  logprobs: { run: logprobs, flags: logprobsFlags, help: 'per-position log-probs of the given tokens' },
  grad: { run: grad, flags: gradFlags, help: 'the policy loss of a batch file and its gradient' },
  bench: { run: bench, flags: benchFlags, help: 'kernel and training-step timings' },
  pretrain: { run: pretrainCmd, flags: pretrainFlags, help: 'supervised warm start on the environment\'s demonstrations' },
  train: { run: train, flags: trainFlags, help: 'RL training (GSPO/GRPO) from the preset\'s warm start' },
  eval: { run: evaluate, flags: evalFlags, help: 'greedy evaluation of a checkpoint on the held-out set' },
  sweep: { run: sweep, flags: sweepFlags, help: 'one run per lambda_tok / budget / field value; the accuracy-vs-tokens frontier across them' },
  compare: { run: compare, flags: compareFlags, help: 'the same run once per loss variant (--losses gspo,grpo), same seed and warm start; compare.json' },
  robustness: { run: robustness, flags: robustnessFlags, help: 'the relay lessons across digits, task mix, channel noise and lambda_tok: a pass/fail table' },
  study: { run: study, flags: studyFlags, help: 'an open question as a population: dual-static, scouts or philosophers (docs/tradeoff-lab.md)' },
  lesson: { run: lesson, flags: lessonFlags, help: 'lessons for a class: --list, or NAME|FILE --check runs each step and its check (docs/lessons.md)' },
  export: { run: exportCmd, flags: exportFlags, help: 'the run\'s setup as a TRL or verl recipe (docs/export.md)' },
};

function usage(): string {
  const lines = ['usage: npm run gspo -- <command> [flags]', '', 'commands:'];
  for (const [name, c] of Object.entries(commands)) {
    lines.push(`  ${name.padEnd(9)} ${c.help}`);
    for (const [f, s] of Object.entries(c.flags)) lines.push(`      --${f.padEnd(12)} ${s.help}`);
  }
  lines.push('', 'every command:', `      --threads N   the CPU engine's threads (default: every core, at most 8; or GSPO_THREADS)`);
  lines.push(`      --task FILE   train, eval, pretrain, sweep, compare: your own task (a JavaScript module, docs/your-task.md) in place of --preset`);
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help' || name === '-h') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const cmd = hasKey(commands, name) ? commands[name] : undefined;
  if (!cmd) {
    throw new InputError(`unknown command "${clip(name)}"; commands: ${Object.keys(commands).join(', ')}`);
  }
  // --help anywhere among a command's flags: its usage, and nothing runs
  if (rest.includes('--help') || rest.includes('-h')) {
    const task = TASK_COMMANDS.includes(name) ? '\n  --task FILE      your own task (a JavaScript module, docs/your-task.md) in place of --preset' : '';
    process.stdout.write(commandUsage(name, cmd.help, cmd.flags) + task + '\n');
    return 0;
  }
  const argvOf = name === 'bench' ? rest : takeThreads(rest, process.env, wasmThreads); // bench has its own --threads
  const out = await cmd.run(await takeTask(name, argvOf, process.env)); // --task FILE: your own task as the run's preset
  checkResult(name, out); // a NaN would print as null, as if it were a result
  if (out !== undefined) process.stdout.write(JSON.stringify(out) + '\n');
  return 0;
}

followParent();

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    // one "gspo: " however many layers a message came through
    const said = (m: string) => escapeControls(m.replace(/^(gspo: )+/, ''));
    if (e instanceof InputError || e instanceof SafetensorsError) {
      process.stderr.write(`gspo: ${said(e.message)}\n`);
      process.exit(2);
    }
    // a place the command writes turned out read-only, full or blocked by a file: one line, exit 2
    if (isFsError(e)) {
      process.stderr.write(`gspo: ${writeFailed(e as NodeJS.ErrnoException)}\n`);
      process.exit(2);
    }
    if (e instanceof RunFault) {
      process.stderr.write(`gspo: ${said(e.message)}\n`);
      process.exit(1);
    }
    process.stderr.write(`gspo: internal error: ${escapeControls(e instanceof Error ? e.message : String(e))}\n`);
    if (process.env.GSPO_DEBUG && e instanceof Error) process.stderr.write(String(e.stack) + '\n');
    process.exit(1);
  },
);
