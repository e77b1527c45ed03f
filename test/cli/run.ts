// Runs the real CLI (`npm run gspo --` is `tsx src/cli/main.ts`) as a child process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface CliResult { code: number; stdout: string; stderr: string; json: any }

export function gspo(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000,
  });
  let json: unknown = undefined;
  try { json = JSON.parse(r.stdout); } catch { /* not JSON */ }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gspo-test-'));
}
