// Whether a child process (the CLI) can get a WebGPU adapter. Under CI=true a
// missing adapter is a failure, never a silent skip.
import { spawnSync } from 'node:child_process';
import { ROOT } from './run';

let cached: { ok: boolean; reason: string } | null = null;

export function webgpuForCli(): { ok: boolean; reason: string } {
  if (cached) return cached;
  const code = "const { createNodeBackend } = await import('./src/gpu/node.ts'); const r = await createNodeBackend(); " +
    "console.log(JSON.stringify({ ok: !!r.backend, reason: r.reason })); r.backend?.destroy(); process.exit(0);";
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  try { cached = JSON.parse(r.stdout.trim().split('\n').pop() ?? ''); } catch { cached = { ok: false, reason: `probe failed: ${r.stderr.trim().split('\n').pop()}` }; }
  if (!cached!.ok && process.env.CI === 'true') throw new Error(`WebGPU is required under CI=true: ${cached!.reason}`);
  if (!cached!.ok) console.warn(`WebGPU CLI tests skipped: ${cached!.reason}`);
  return cached!;
}
