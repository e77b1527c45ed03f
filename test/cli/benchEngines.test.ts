// `bench --compare --backend reference,cpu`: several engines and PyTorch side by side. Asserted: the
// table's arithmetic from hand figures (GFLOP/s = GFLOP / s, each ratio the quotient of two ms
// columns), each case's FLOP count recomputed by hand from the shapes it reports, the arguments
// PyTorch is given (the CPU, one thread), a missing torch reported in words, and bad flags.
// Torch is not needed (fake scripts stand in); no speed is asserted.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CaseResult, type CompareResult, type TorchCompare } from '../../src/cli/commands/benchCompare';
import { DEFAULT_PYTHONS, findTorch } from '../../src/cli/commands/benchTorch';
import { formatEngines, parseEngineList, sideRows, type EnginesResult } from '../../src/cli/commands/benchEngines';
import { gspo, ROOT, tempDir } from './run';

const SCRIPT = join(ROOT, 'scripts', 'torch_rl_step.py');
let dir = '', fake = '', noTorch = '', argsLog = '';

beforeAll(() => {
  dir = tempDir();
  argsLog = join(dir, 'args.jsonl');
  // stand-ins: one whose torch "imports" and takes 2.5 ms a step, one that answers as the real script does without torch
  fake = join(dir, 'fake_torch.py');
  writeFileSync(fake, [
    'import json, sys',
    'if "--probe" in sys.argv:',
    '    print(json.dumps({"torch": "9.9-fake", "device": "cpu", "device_name": "cpu", "blas": "libfakeblas.so"})); sys.exit(0)',
    `open(${JSON.stringify(argsLog)}, "a").write(json.dumps(sys.argv[1:]) + "\\n")`,
    'print(json.dumps({"ms_per_step": 2.5, "steps": 1, "device": "cpu", "device_name": "cpu (1 threads)", "torch": "9.9-fake", "generation_path": "kvcache: fake", "threads": 1, "blas": "libfakeblas.so"}))',
  ].join('\n'));
  noTorch = join(dir, 'no_torch.py');
  writeFileSync(noTorch, 'import sys\nprint("torch is not installed for " + sys.executable + " (ModuleNotFoundError: fake)", file=sys.stderr)\nsys.exit(3)\n');
});

const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

const kase = (name: string, ms: number, flops: number) => ({
  name, model: '2x4x64', P: 32, G: 8, steps: 3, ms, stepsPerSec: 1000 / ms, flops, gflops: flops / ms / 1e6,
  phases: { rollout: 0, reward: 0, update: 0 }, evalMs: 0, evalEpisodes: 64, generation: { path: 'incremental (x)', fedTokens: 0, forwardRows: 0 },
}) as unknown as CaseResult;
const engine = (backend: string, ms: number[]): CompareResult => ({
  backend, device: backend, floor: null, batchRatio: null, limit: null,
  cases: [kase('default', ms[0], 2e9), kase('largest', ms[1], 3e10)],
});

describe('the side-by-side table from hand figures', () => {
  // 2 GFLOP in 200 / 50 / 40 ms: 10 / 40 / 50 GFLOP/s; 30 GFLOP in 3000 / 600 / 500 ms: 10 / 50 / 60 GFLOP/s
  const results = [engine('reference', [200, 3000]), engine('cpu', [50, 600])];
  const torch: TorchCompare = { available: true, version: '9.9', python: '/usr/bin/python3', blas: 'libopenblas.so', place: { device: 'cpu', threads: 1 }, results: [
    { case: 'default', ms: 40 }, { case: 'largest', ms: 500 },
  ] };
  it('ms, GFLOP/s and the ratios as quotients of the ms columns', () => {
    const rows = sideRows(results, torch);
    expect(rows[0].ms).toEqual({ reference: 200, cpu: 50, torch: 40 });
    expect(rows[0].gflops).toEqual({ reference: 10, cpu: 40, torch: 50 });
    expect(rows[0].ratios).toEqual({ 'reference/cpu': 4, 'reference/torch': 5, 'cpu/torch': 1.25 });
    expect(rows[1].ratios).toEqual({ 'reference/cpu': 5, 'reference/torch': 6, 'cpu/torch': 1.2 });
    const out = formatEngines({ engines: ['reference', 'cpu'], threads: 1, skipped: [], results, torch, rows });
    expect(out).toMatch(/^case +model +P x G +GFLOP\/step +reference ms +cpu ms +torch ms +reference GFLOP\/s +cpu GFLOP\/s +torch GFLOP\/s +reference\/cpu +reference\/torch +cpu\/torch$/m);
    expect(out).toMatch(/^default +2x4x64 +32 x 8 +2\.000 +200\.0 +50\.0 +40\.0 +10\.00 +40\.00 +50\.00 +4\.00x +5\.00x +1\.25x$/m);
    expect(out).toMatch(/^largest +2x4x64 +32 x 8 +30\.000 +3000\.0 +600\.0 +500\.0 +10\.00 +50\.00 +60\.00 +5\.00x +6\.00x +1\.20x$/m);
    expect(out).toMatch(/torch = PyTorch 9\.9 on the CPU, 1 thread/);
    expect(out).toMatch(/BLAS: libopenblas\.so/);
  });
  it('without torch: no torch columns, and one line saying PyTorch was not found', () => {
    const none: TorchCompare = { available: false, reason: 'PyTorch was not found: torch is not installed for python3 (x)', results: [] };
    const rows = sideRows(results, none);
    expect(rows[0].ratios).toEqual({ 'reference/cpu': 4 });
    const out = formatEngines({ engines: ['reference', 'cpu'], threads: 1, skipped: [{ engine: 'webgpu', reason: 'no adapter' }], results, torch: none, rows });
    expect(out).not.toMatch(/torch ms/);
    expect(out).toMatch(/^PyTorch: not compared \(PyTorch was not found: torch is not installed for python3 \(x\)\)$/m);
    expect(out).toMatch(/^webgpu: not measured \(no adapter\)$/m);
    expect(out).toMatch(/^default +2x4x64 +32 x 8 +2\.000 +200\.0 +50\.0 +10\.00 +40\.00 +4\.00x$/m);
  });
});

describe('finding a Python with torch', () => {
  it('the first that imports torch; else every reason, in words', () => {
    expect(findTorch(['/nonexistent/python3', 'python3'], fake)).toMatchObject({ python: 'python3', status: { available: true, version: '9.9-fake', blas: 'libfakeblas.so' } });
    const none = findTorch(['/nonexistent/python3', 'python3'], noTorch).status;
    expect(none.available).toBe(false);
    if (!none.available) {
      expect(none.reason).toMatch(/^PyTorch was not found: \/nonexistent\/python3 could not be run \(ENOENT\); torch is not installed for .* \(ModuleNotFoundError: fake\)$/);
    }
  });
});

describe('bench --backend lists and --threads', () => {
  it('bad values name the flag', () => {
    const cases: [string[], RegExp][] = [
      [['bench', '--backend', 'reference,cpu'], /--backend takes a list \("reference,cpu"\) only with --compare/],
      [['bench', '--compare', '--backend', 'cpu,gpu'], /each engine of --backend must be webgpu, cpu \(the CPU engine.*\) or reference .*, got "gpu" in "cpu,gpu"/],
      [['bench', '--compare', '--backend', 'reference,,cpu'], /--backend "reference,,cpu" has an empty item/],
      [['bench', '--compare', '--backend', 'cpu,reference,cpu'], /--backend names cpu twice/],
      [['bench', '--backend', 'tpu'], /--backend must be webgpu, cpu \(the CPU engine/],
      [['bench', '--threads', '2'], /--threads only applies with --compare/],
      [['bench', '--compare', '--threads', '0'], /--threads must be at least 1, got 0/],
      [['bench', '--compare', '--threads', '1.5'], /--threads must be an integer, got "1\.5"/],
      [['bench', '--compare', '--backend', 'webgpu', '--threads', '2'], /--threads applies beside the CPU engine or the reference/],
    ];
    for (const [args, message] of cases) {
      const r = gspo(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    // every command's names, as the code's (internal: wasm the CPU engine, cpu the reference)
    const notes: string[] = [];
    expect(parseEngineList('reference,cpu,webgpu', (l) => notes.push(l))).toEqual(['cpu', 'wasm', 'webgpu']);
    expect(notes).toEqual([]);
    // the old bench names, still read: cpu,wasm was the reference and the CPU engine, said in one line
    expect(parseEngineList('cpu,wasm', (l) => notes.push(l))).toEqual(['cpu', 'wasm']);
    expect(notes).toEqual(['--backend cpu,wasm is in the old names (wasm is now called cpu, the CPU engine; cpu was the reference): read as reference,cpu']);
  });
  it('the script: --threads below 0 exits 2 naming it (no torch needed)', () => {
    const r = spawnSync('python3', [SCRIPT, '--plan', '--threads', '-1'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--threads must be at least 0/);
  });
});

// where this machine has torch (never required): the real script honours --device cpu --threads 1 and names its BLAS
const real = findTorch(DEFAULT_PYTHONS, SCRIPT);
describe.skipIf(!real.status.available)('scripts/torch_rl_step.py with torch', () => {
  it('--device cpu --threads 1: one thread, on the CPU, the BLAS named', () => {
    const r = spawnSync(real.python, [SCRIPT, '--device', 'cpu', '--threads', '1', '--prompts', '1', '--group', '2', '--steps', '1', '--warmup', '0'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const o = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect([o.device, o.threads, o.steps]).toEqual(['cpu', 1, 1]);
    expect(o.blas).toMatch(/\S/);
  });
});

describe('bench --compare --quick --backend reference,cpu', () => {
  it('a fake PyTorch: both engines, PyTorch on the CPU at one thread, FLOPs by hand, ratios the quotients', () => {
    const r = gspo(['bench', '--compare', '--quick', '--backend', 'reference,cpu', '--json', '--torch-script', fake]);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json as EnginesResult;
    expect(j.engines).toEqual(['reference', 'cpu']);
    expect(j.rows.map((x) => [x.model, x.P, x.G])).toEqual([['2x4x64', 1, 2], ['2x4x64', 4, 4], ['8x8x256', 1, 2]]);
    for (const e of j.results) {
      for (const c of e.cases) {
        // matmul FLOPs by hand: per token fed 24 L C^2 + 2 C V, per causal pair 2 L C; the loss rows forward + backward = 3x;
        // a context's positions before its last skip the last layer's proj and MLP (18 C^2), the head and that layer's pairs
        const [L, , C] = c.model.split('x').map(Number), V = c.vocabSize, k = c.counted;
        expect(k.refForward).toBe(false);
        expect(k.prefillRows).toBeGreaterThan(0);
        const skipped = k.prefillRows * (18 * C * C + 2 * C * V) + 2 * C * k.prefillPairs;
        const byHand = (k.fedTokens + 3 * k.lossPositions) * (24 * L * C * C + 2 * C * V) + 2 * L * C * (k.fedPairs + 3 * k.lossPairs) - skipped;
        expect(c.flops).toBeCloseTo(byHand, 0);
        // by part: generation is the rollout's, the loss rows the update's
        expect(c.flopParts.rollout).toBeCloseTo(k.fedTokens * (24 * L * C * C + 2 * C * V) + 2 * L * C * k.fedPairs - skipped, 0);
        expect(c.flopParts.update).toBeCloseTo(3 * k.lossPositions * (24 * L * C * C + 2 * C * V) + 2 * L * C * 3 * k.lossPairs, 0);
        expect(c.gflops).toBeCloseTo(c.flops / c.ms / 1e6, 9);
      }
    }
    const [ref, cpu] = j.results;
    // the limit is measured beside the CPU engine (its share per part), not beside the reference
    expect(ref.limit).toBeNull();
    expect(cpu.limit!.threads).toBe(1);
    expect(cpu.limit!.core.gflops).toBeGreaterThan(0);
    // the step by kind of op on the CPU engine: its ops' times and the host's add up to the timed steps' wall time
    for (const c of cpu.cases) {
      const s = c.opSplit!;
      expect(s.ops.layernormMatmulForward.calls).toBeGreaterThan(0);
      const opsMs = Object.values(s.ops).reduce((a, o) => a + o.ms, 0);
      expect(opsMs).toBeLessThanOrEqual(s.stepMs);
      const [L, , C] = c.model.split('x').map(Number);
      expect(s.flops.dense + s.flops.attention).toBeGreaterThan(3 * 24 * L * C * C); // at least one loss row's forward and backward
    }
    for (const c of ref.cases) expect(c.opSplit).toBeUndefined();
    j.rows.forEach((row, i) => {
      expect(row.ms).toEqual({ reference: ref.cases[i].ms, cpu: cpu.cases[i].ms, torch: 2.5 });
      expect(row.flops).toBe(ref.cases[i].flops); // PyTorch was given the first engine's shapes
      expect(row.gflops.torch).toBeCloseTo(row.flops / 2.5 / 1e6, 9);
      expect(row.ratios['reference/cpu']).toBeCloseTo(row.ms.reference / row.ms.cpu, 12);
      expect(row.ratios['cpu/torch']).toBeCloseTo(row.ms.cpu / 2.5, 12);
      expect(row.ratios['reference/torch']).toBeCloseTo(row.ms.reference / 2.5, 12);
    });
    const logged = readFileSync(argsLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(logged).toHaveLength(3); // PyTorch once per case, not once per engine
    for (const a of logged) expect([flag(a, '--device'), flag(a, '--threads')]).toEqual(['cpu', '1']);
    expect(logged.map((a) => flag(a, '--train-rows'))).toEqual(ref.cases.map((c) => String(c.shape.trainRows)));
  }, 600_000);

  it('no torch: the engines\' table, and PyTorch reported not found in words (exit 0)', () => {
    const r = gspo(['bench', '--compare', '--quick', '--backend', 'cpu,wasm', '--python', '/nonexistent/python3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^notice: --backend cpu,wasm is in the old names .*: read as reference,cpu$/m);
    expect(r.stdout).toMatch(/^PyTorch: not compared \(PyTorch was not found: \/nonexistent\/python3 could not be run \(ENOENT\)\)$/m);
    expect(r.stdout).toMatch(/^case +model +P x G +GFLOP\/step +reference ms +cpu ms +reference GFLOP\/s +cpu GFLOP\/s +reference\/cpu$/m);
    const row = r.stdout.split('\n').find((l) => l.startsWith('largest ') && l.endsWith('x'))!.split(/ {2,}/);
    expect(row.slice(0, 3)).toEqual(['largest', '8x8x256', '1 x 2']);
    const [refMs, cpuMs, ratio] = [Number(row[4]), Number(row[5]), Number(row[8].replace('x', ''))];
    expect(ratio).toBeCloseTo(refMs / cpuMs, 1); // the printed ratio is the quotient of the printed ms (to their rounding)
  }, 600_000);
});
