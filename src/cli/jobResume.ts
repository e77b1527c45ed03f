// Resume for the jobs of several runs (sweep, ...): the job's folder holds job.json (the command, the settings
// that decide its results, its member folders, done or not). The same command run again into the same folder
// continues (each finished member's result.json is reused, each interrupted member continues from its saved
// state: resumeState.ts); the same command with other settings is refused naming the fields that differ (exit 2);
// --fresh removes the old run's files (only the files a job and its members write) and starts anew; a finished
// job with the same settings says so and gives its result file again. Ctrl-C (SIGINT, SIGTERM) prints one line:
// what is saved and the command that resumes.
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { clip, InputError } from '../contract/errors';
import { MEMBER_FILES } from './outputTree';
import { differingFields, removeStaleTemps, RESULT_FILE, RESUME_MEMBER_FILES, savedStep } from './resumeState';
import { log, writeAtomic } from './io';

export const JOB_FILE = 'job.json';

/** A regular file (a link to a device, such as /dev/full in the tests, is not a run's file). */
const isFile = (p: string): boolean => { try { return statSync(p).isFile(); } catch { return false; } };

interface JobState { version: 1; command: string; settings: Record<string, unknown>; members: string[]; done: boolean }

const readJob = (out: string): JobState | null => {
  try {
    const j = JSON.parse(readFileSync(join(out, JOB_FILE), 'utf8')) as JobState;
    return j && j.version === 1 && typeof j.command === 'string' && j.settings && Array.isArray(j.members) ? j : null;
  } catch { return null; }
};

const show = (v: unknown) => (v === undefined ? 'unset' : clip(typeof v === 'string' ? v : JSON.stringify(v), 60));

/** Removes what a job and its members wrote in `out` (its own `files`, job.json, each member's files), nothing else. */
function removeJobFiles(out: string, files: readonly string[], members: readonly string[]): void {
  for (const m of new Set(members)) {
    const dir = join(out, m);
    if (!existsSync(dir)) continue;
    removeStaleTemps(dir);
    for (const f of [...MEMBER_FILES, ...RESUME_MEMBER_FILES]) rmSync(join(dir, f), { force: true });
    try { if (readdirSync(dir).length === 0) rmdirSync(dir); } catch { /* kept: it holds something else */ }
  }
  for (const f of [...files, JOB_FILE]) rmSync(join(out, f), { force: true });
}

export interface OpenedJob {
  /** The job's result file when the job finished already with these settings (nothing to train). */
  finished: unknown | null;
  /** Marks the job finished (call after its result file is written, when no run failed). */
  done(): void;
}

/**
 * Opens `out` for a job of `command` with `settings` (what decides its results) and member folders `members`;
 * `files` are the job's own files, `files[0]` its result file. Throws an InputError (exit 2) when `out` holds a
 * job of other settings (or of files this check cannot vouch for), unless `fresh`, which removes them first.
 */
export function openJob(out: string, command: string, settings: Record<string, unknown>, members: readonly string[], files: readonly string[], fresh: boolean): OpenedJob {
  const old = readJob(out), resultFile = join(out, files[0]);
  const write = (done: boolean) => writeAtomic(join(out, JOB_FILE), JSON.stringify({ version: 1, command, settings, members: [...members], done } satisfies JobState, null, 2) + '\n');
  const opened: OpenedJob = { finished: null, done: () => write(true) };
  const fromBefore = [...files, ...members.flatMap((m) => [...MEMBER_FILES, ...RESUME_MEMBER_FILES].map((f) => join(m, f)))].filter((f) => isFile(join(out, f)));
  // what only a run writes (its result file, a member's config.json or saved state): a file placed there beforehand is not a run
  const runBefore = fromBefore.filter((f) => f === files[0] || /(^|[/\\])(config\.json|resume\.safetensors|result\.json)$/.test(f));
  if (fresh) {
    if (old || fromBefore.length) {
      removeJobFiles(out, files, [...(old?.members ?? []), ...members]);
      log(`${command}: --fresh: removed the earlier run's files in ${out}`);
    }
  } else if (old) {
    const diff = old.command === command ? differingFields(old.settings, settings) : ['command'];
    if (diff.length) {
      const what = old.command !== command ? `a ${old.command}, not a ${command}` : `a ${command} with other settings: ${diff.slice(0, 8).map((k) => `${k} (${show(old.settings[k])} then, ${show(settings[k])} now)`).join(', ')}${diff.length > 8 ? `, and ${diff.length - 8} more` : ''}`;
      throw new InputError(`${command}: --out "${clip(out, 200)}" holds ${what}; give the same settings to continue it, or --fresh to start anew (it removes that run's files)`);
    }
    if (old.done && existsSync(resultFile)) {
      try {
        opened.finished = JSON.parse(readFileSync(resultFile, 'utf8'));
        log(`${command}: ${out} holds this ${command}, finished; its results are in ${resultFile} (--fresh trains it anew)`);
        return opened;
      } catch { /* unreadable: the runs' own results rebuild it */ }
    }
    const kept = members.filter((m) => existsSync(join(out, m, RESULT_FILE))).length;
    const part = members.filter((m) => savedStep(join(out, m)) !== null).length;
    log(isLone(members) ? `${command}: continuing the run in ${out}: ${savedPhrase(out, members)}`
      : `${command}: continuing the ${command} in ${out}: ${kept} of ${members.length} runs finished and kept, ${part} resume from their saved state`);
  } else if (runBefore.length) {
    // a run from before resume was kept (or of another command): nothing says which settings it is of
    throw new InputError(`${command}: --out "${clip(out, 200)}" holds files of an earlier run with no ${JOB_FILE} to say its settings (e.g. ${clip(join(out, runBefore[0]), 200)}); give another --out, or --fresh to start anew (it removes those files)`);
  }
  write(false);
  return opened;
}

/** A word as a POSIX shell reads it back. */
export const shellWord = (w: string): string => (/^[A-Za-z0-9_\-.,=/:@%+]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** The command that resumes this job: the same words (without --fresh), with --out where it was the default. */
export function resumeCommand(out: string, argv: readonly string[] = process.argv.slice(2)): string {
  const words = argv.filter((w) => w !== '--fresh');
  if (!words.some((w) => w === '--out' || w.startsWith('--out='))) words.push('--out', out);
  return ['npm', 'run', 'gspo', '--', ...words].map(shellWord).join(' ');
}

/** A job of one run in its own folder (train: members ['.']). */
const isLone = (members: readonly string[]): boolean => members.length === 1 && members[0] === '.';

/** What is saved for each member now: one phrase (finished runs, and the steps the others resume from). */
export function savedPhrase(out: string, members: readonly string[]): string {
  if (isLone(members)) {
    const s = savedStep(out);
    return existsSync(join(out, RESULT_FILE)) ? 'the run finished' : s ? `step ${s.step} of ${s.of}` : 'nothing saved yet (it starts over)';
  }
  const finished = members.filter((m) => existsSync(join(out, m, RESULT_FILE))).length;
  const steps = members.filter((m) => !existsSync(join(out, m, RESULT_FILE))).map((m) => savedStep(join(out, m)));
  const at = steps.filter((s) => s !== null).map((s) => `${s!.step}/${s!.of}`);
  const none = steps.length - at.length;
  return `${finished} of ${members.length} runs finished${at.length ? `, ${at.length} saved at step ${at.join(', ')}` : ''}${none ? `, ${none} with nothing saved yet (they start over)` : ''}`;
}

/**
 * While a job trains, Ctrl-C (SIGINT) or SIGTERM prints one line (what is saved in `out`, the command that resumes)
 * and exits 130 (SIGTERM: 143). Returns the function that removes the handlers.
 */
export function onInterrupt(command: string, out: string, members: () => readonly string[]): () => void {
  const handler = (sig: NodeJS.Signals) => {
    let line: string;
    try { line = `${command}: interrupted; saved in ${out}: ${savedPhrase(out, members())}; resume with: ${resumeCommand(out)}`; } catch (e) {
      line = `${command}: interrupted; resume with: ${resumeCommand(out)}`;
    }
    process.stderr.write(line + '\n');
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => { process.off('SIGINT', handler); process.off('SIGTERM', handler); };
}
