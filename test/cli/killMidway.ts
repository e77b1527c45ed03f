// Starts the CLI in a process group of its own, waits until `ready()` (a saved state far enough), then kills it:
// SIGINT to the group (Ctrl-C) or SIGKILL of the process. Shared by the kill-and-resume tests.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './run';

export interface Killed { code: number | null; signal: string | null; stderr: string; ready: boolean }

/** The step of the state saved in a run's folder (resume.json), -1 when none. */
export const savedAt = (dir: string): number => {
  try { return JSON.parse(readFileSync(join(dir, 'resume.json'), 'utf8')).step as number; } catch { return -1; }
};

export async function killMidway(args: string[], ready: () => boolean, signal: 'SIGINT' | 'SIGKILL', env: Record<string, string> = {}): Promise<Killed> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args],
    { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '', exitedYet = false;
  child.stderr.on('data', (d) => { stderr += String(d); });
  child.stdout.on('data', () => {});
  const exited = new Promise<{ code: number | null; signal: string | null }>((res) => child.on('exit', (code, sig) => { exitedYet = true; res({ code, signal: sig }); }));
  let ok = false;
  for (let t = 0; t < 6000 && !exitedYet; t++) {
    if ((ok = ready())) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (ok && !exitedYet) {
    if (signal === 'SIGINT') process.kill(-child.pid!, 'SIGINT');
    else process.kill(child.pid!, 'SIGKILL');
  } else if (!exitedYet) process.kill(child.pid!, 'SIGKILL');
  return { ...(await exited), stderr, ready: ok };
}
