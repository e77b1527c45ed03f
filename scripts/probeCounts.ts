// The probe set (test/trust/taskProbes.ts) run through the CLI as a person would meet it: each probe is
// `train --task FILE` in a process of its own under a hard wall-clock limit (SIGKILL: a CLI blocked in a
// task's C loop may never see SIGTERM), and each outcome counted as a hang, an internal error, an
// escape, an unclear message (not one line, 300 characters or more, a control character, no function
// named) or ok (docs/your-task.md "The sandbox"). The probes come from this tree;
// --cli names the checkout whose CLI runs them, so an older commit can be measured the same way:
//   npx tsx scripts/probeCounts.ts [--cli DIR] [--limit-s 30] [--only REGEX] [--out results.jsonl]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { probes, type Probe } from '../test/trust/taskProbes';

const args = process.argv.slice(2);
const flag = (name: string, dflt?: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const CLI = resolve(flag('cli', join(import.meta.dirname, '..'))!);
const LIMIT_MS = Number(flag('limit-s', '30')) * 1000;
const ONLY = flag('only') !== undefined ? new RegExp(flag('only')!) : null;
const OUT = flag('out');

/** The settings the CLI tests train a task with (test/cli/userTask.test.ts): a probe that passes its checks trains 2 steps. */
const SMALL = ['--backend', 'cpu', '--steps', '2', '--set', 'promptsPerStep=4', '--set', 'groupSize=4', '--set', 'evalEpisodes=8', '--set', 'evalEvery=1', '--set', 'nEmbd=32'];
/** A secret in the CLI's environment: a task that reads the host's environment and reports it would show it. */
const CANARY = `probe-canary-${process.pid}-${Date.now()}`;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
const MAX_LINE = 300;
const FUNCTIONS = ['sample', 'solver', 'messenger', 'score', 'demo', 'heldOut', 'module'];

type Outcome = 'hang' | 'internal error' | 'escape' | 'unclear' | 'ok';
/**
 * Besides its outcome, whether an ok probe the suite expects a refusal from says what the suite expects
 * (its `expect`, worded for today's code), says it otherwise, or trains without a refusal.
 */
type Wording = 'as expected' | 'other wording' | 'not refused';
interface Result { name: string; outcome: Outcome; why: string; wording: Wording | null; code: number | null; signal: string | null; ms: number; length: number; message: string; stderrTail: string }

/**
 * The probe's code made to pass the CLI's checks when it is harmless, so that it trains: two tasks held
 * out (the probes' base task holds out one, and Check refuses an eval stream of one task), and a 2-step
 * warm start where it declares none (the default, 600 pretraining steps, would make every harmless probe
 * a minute-long run). A probe about heldOut or the pretrain field keeps its own.
 */
function quick(code: string): string {
  // strict equality: a comparison such as t < 'c' would call a returned value's Symbol.toPrimitive here, in heldOut
  let c = code.replace("t === 'a'", "t === 'a' || t === 'b'");
  if (!/heldOut/.test(c)) c = c.replace(/export default \{/, "export default { heldOut: (t) => t === 'a' || t === 'b',");
  if (!/pretrain/.test(c)) c = c.replace(/export default \{/, 'export default { pretrain: { steps: 2 },');
  return c;
}

function run(p: Probe): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'gspo-probe-'));
  const file = join(dir, 'task.js');
  writeFileSync(file, quick(p.code));
  const before = new Set(readdirSync(dir));
  const t0 = performance.now();
  // its own process group: a SIGKILL to the group ends the CLI and anything it started
  const child = spawn(process.execPath, ['--import', pathToFileURL(join(CLI, 'node_modules/tsx/dist/loader.mjs')).href, join(CLI, 'src/cli/main.ts'),
    'train', '--task', file, ...SMALL, '--out', join(dir, 'run')], { cwd: dir, detached: true, env: { ...process.env, GSPO_PROBE_CANARY: CANARY, GSPO_DEBUG: '' } });
  let stdout = '', stderr = '', killed = false;
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => { killed = true; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, LIMIT_MS);
  return new Promise((done) => child.on('close', (code, signal) => {
    clearTimeout(timer);
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* the group has ended */ }
    const ms = Math.round(performance.now() - t0);
    const extra = readdirSync(dir).filter((f) => !before.has(f) && f !== 'run');
    const written = [...extra, ...(existsSync(join(dir, 'run')) ? readdirSync(join(dir, 'run')).map((f) => join('run', f)) : [])];
    const leaked = written.some((f) => { try { return readFileSync(join(dir, f), 'latin1').includes(CANARY); } catch { return false; } });
    rmSync(dir, { recursive: true, force: true });
    const at = stderr.search(/^gspo: /m);
    const message = at >= 0 ? stderr.slice(at).replace(/\n$/, '') : '';
    // the line the CLI composes from the task ("[rule: fn] ..."), without the prefix that names the file: its length must not depend on the path
    const line = message.replace(/^gspo: (--task \S+: )?/, '');
    const specific = p.expect !== undefined && p.expect.source !== '.' && p.expect.source !== '^$';
    const wording: Wording | null = !specific ? null : code === 0 ? 'not refused' : p.expect!.test(message) ? 'as expected' : 'other wording';
    const r = (outcome: Outcome, why: string): Result => ({ name: p.name, outcome, why, wording: outcome === 'ok' ? wording : null, code, signal, ms, length: line.length, message: message.slice(0, 400), stderrTail: stderr.slice(-1000) });
    if (killed) return done(r('hang', `killed after ${LIMIT_MS / 1000} s`));
    // the escapes a probe tries: process.exit(3) from the task, a file beside the task, the host's environment
    if (code === 3) return done(r('escape', 'exit code 3: the task reached process.exit'));
    if (extra.length) return done(r('escape', `wrote ${extra.join(', ')} beside the task`));
    if (leaked || (stdout + stderr).includes(CANARY)) return done(r('escape', 'the host\'s environment reached the output'));
    if (signal) return done(r('internal error', `ended by ${signal}`));
    if (/^\s+at .*:\d+:\d+\)?$/m.test(stderr) || /internal error/.test(message)) return done(r('internal error', 'a stack trace or an internal error'));
    if (code !== 0 && code !== 2) return done(r('internal error', `exit code ${code}`));
    if (code === 0) {
      try { JSON.parse(stdout); } catch { return done(r('internal error', 'exit 0 without its JSON result')); }
      if (CONTROL.test(stderr) || CONTROL.test(stdout)) return done(r('unclear', 'a control character in the output'));
      return done(r('ok', 'trained'));
    }
    const lines = message.split('\n');
    if (lines.length > 1) return done(r('unclear', `${lines.length} lines`));
    if (line.length >= MAX_LINE) return done(r('unclear', `${line.length} characters`));
    if (CONTROL.test(message)) return done(r('unclear', 'a control character in the message'));
    // the function named: Check's "[rule: fn]" tag, else (a run's own message) the first function named in it
    const fn = /^\[[^:\]]+: ([^\]]+)\]/.exec(line)?.[1] ?? new RegExp(`\\b(${FUNCTIONS.join('|')})\\b`).exec(line)?.[1];
    if (!fn || !FUNCTIONS.includes(fn)) return done(r('unclear', `names no function${fn ? ` ("${fn}")` : ''}`));
    // where the suite asks the probe's own function (a specific expected message), the same: the watchdog
    // names the call's entry, and a view or heldOut runs inside sample's call
    if (specific && p.fn && p.fn !== 'module') {
      const names = [p.fn, ...(['solver', 'messenger', 'heldOut'].includes(p.fn) ? ['sample'] : [])];
      if (!names.includes(fn)) return done(r('unclear', `names ${fn}, not ${names.join(' or ')}`));
    }
    return done(r('ok', 'one clean line'));
  }));
}

const all = probes().filter((p) => !ONLY || ONLY.test(p.name));
const counts: Record<Outcome, number> = { hang: 0, 'internal error': 0, escape: 0, unclear: 0, ok: 0 };
const wordings: Record<Wording, number> = { 'as expected': 0, 'other wording': 0, 'not refused': 0 };
const t0 = performance.now();
if (OUT) writeFileSync(OUT, '');
for (const [i, p] of all.entries()) {
  const r = await run(p);
  counts[r.outcome]++;
  if (r.wording) wordings[r.wording]++;
  if (OUT) writeFileSync(OUT, JSON.stringify(r) + '\n', { flag: 'a' });
  process.stderr.write(`${i + 1}/${all.length} ${r.outcome.padEnd(14)} ${(r.ms / 1000).toFixed(1).padStart(5)} s  ${p.name}${r.outcome === 'ok' ? (r.wording && r.wording !== 'as expected' ? ` (${r.wording})` : '') : `: ${r.why}`}\n`);
}
const wallS = Math.round((performance.now() - t0) / 1000);
process.stdout.write(JSON.stringify({ cli: CLI, probes: all.length, limitS: LIMIT_MS / 1000, wallS, ...counts, okWordings: wordings }) + '\n');
