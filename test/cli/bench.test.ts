// `bench --compare`: the figures' arithmetic (GFLOP/s, the batch ratio; the WebGPU floor is in
// test/gpu/benchCompare.test.ts), the
// JSON contract with scripts/torch_rl_step.py (through fake scripts: torch is not needed), the
// script's torch-free parts (--plan, --probe, bad arguments), and bad flags. No speed is asserted.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { benchPopulation, formatPopulation, type PopulationResult } from '../../src/cli/commands/benchPopulation';
import { WasmBackend } from '../../src/simd/wasmBackend';
import { formatCompare, moreSteps, stepsRule, type CaseResult, type CompareResult } from '../../src/cli/commands/benchCompare';
import { parseTorchResult, torchArgs } from '../../src/cli/commands/benchTorch';
import { limitShares } from '../../src/cli/commands/benchParts';
import { trainFlops } from '../../src/model/flops';
import { gspo, ROOT, tempDir } from './run';

const SCRIPT = join(ROOT, 'scripts', 'torch_rl_step.py');
let dir = '', fake = '', argsLog = '';

beforeAll(() => {
  dir = tempDir();
  argsLog = join(dir, 'args.jsonl');
  // a stand-in for the real script: --probe says torch 9.9; a timing run logs its arguments and takes 2.5 ms
  fake = join(dir, 'fake_torch.py');
  writeFileSync(fake, [
    'import json, sys',
    'if "--probe" in sys.argv:',
    '    print(json.dumps({"torch": "9.9-fake", "device": "cuda", "device_name": "Fake GPU"})); sys.exit(0)',
    `open(${JSON.stringify(argsLog)}, "a").write(json.dumps(sys.argv[1:]) + "\\n")`,
    'print("progress line")',
    'print(json.dumps({"ms_per_step": 2.5, "steps": 1, "device": "cuda", "device_name": "Fake GPU", "torch": "9.9-fake", "generation_path": "recompute: fake"}))',
  ].join('\n'));
});

const py = (args: string[]) => {
  const r = spawnSync('python3', args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('the PyTorch JSON contract', () => {
  it('reads the last line of stdout and checks each field', () => {
    const good = { ms_per_step: 3, steps: 2, device: 'cpu', device_name: 'cpu (4 threads)', torch: '2.5.0', generation_path: 'recompute' };
    expect(parseTorchResult(`warming up\n${JSON.stringify(good)}\n`).ms_per_step).toBe(3);
    expect(() => parseTorchResult('Traceback ...')).toThrow(/not JSON/);
    expect(() => parseTorchResult(JSON.stringify({ ...good, ms_per_step: -1 }))).toThrow(/ms_per_step must be a positive number/);
    expect(() => parseTorchResult(JSON.stringify({ ...good, steps: 0 }))).toThrow(/steps must be a whole number/);
    expect(() => parseTorchResult(JSON.stringify({ ...good, torch: undefined }))).toThrow(/torch must be a string/);
    expect(() => parseTorchResult('[1]')).toThrow(/not a JSON object/);
  });
  it('passes the case\'s model, batch, sequence lengths, generation path and settings', () => {
    const c = {
      model: '8x8x256', vocabSize: 32, blockSize: 24, P: 32, G: 8,
      shape: { gen: [{ count: 256, context: 9, new: 9, distinct: 32 }, { count: 256, context: 18, new: 2, distinct: 256 }], trainRows: 512, T: 23, minibatches: 4 },
      generation: { path: 'recompute (...)', fedTokens: 0, forwardRows: 0 },
      settings: { lr: 3e-4, epsLow: 3e-4, epsHigh: 4e-4, gradClip: 1, weightDecay: 0, temperature: 1 },
    } as unknown as CaseResult;
    const a = torchArgs(c, 3, 0);
    expect([flag(a, '--n-layer'), flag(a, '--n-head'), flag(a, '--n-embd'), flag(a, '--vocab-size'), flag(a, '--block-size')]).toEqual(['8', '8', '256', '32', '24']);
    expect([flag(a, '--prompts'), flag(a, '--group'), flag(a, '--minibatches'), flag(a, '--train-rows'), flag(a, '--steps')]).toEqual(['32', '8', '4', '512', '3']);
    expect(flag(a, '--warmup')).toBe('1'); // a case measured without its warm-up count: one, as before
    expect(flag(torchArgs({ ...c, warmup: 3 } as CaseResult, 3, 0), '--warmup')).toBe('3'); // as many untimed steps as the engine took
    expect(flag(a, '--gen')).toBe('256:9:9:32,256:18:2:256'); // the first turn's 32 prompts, each prefilled once for its 8 episodes
    expect(flag(a, '--gen-path')).toBe('recompute');
    expect(flag(torchArgs({ ...c, generation: { ...c.generation, path: 'incremental (...)' } }, 3, 0), '--gen-path')).toBe('kvcache');
    // the real script accepts exactly these arguments (its --plan needs no torch)
    const r = py([SCRIPT, '--plan', ...a]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.episodes).toBe(256);
    expect(plan.gen_positions).toBe(11);
    expect(plan.gen.map((g: { distinct: number }) => g.distinct)).toEqual([32, 256]);
    expect(plan.T).toBe(23);
  });
});

describe('how many steps a case takes (stepsRule, moreSteps)', () => {
  const r = stepsRule(false);
  it('the JIT\'s warm-up: at least 1 step, then more while under 5 s, at most 25; then 3 untimed and 3 timed', () => {
    expect([moreSteps(0, 9e9, r.jit), moreSteps(1, 9e9, r.jit)]).toEqual([true, false]); // the minimum, however long
    expect([moreSteps(3, 4999, r.jit), moreSteps(3, 5000, r.jit)]).toEqual([true, false]);
    expect([moreSteps(24, 0, r.jit), moreSteps(25, 0, r.jit)]).toEqual([true, false]);
    // steps of 120 ms: 5 s / 120 ms = 41.7, so the cap of 25 ends it; of 900 ms: 6 (5.4 s); of 4 s: 2; of a minute: 1
    const count = (stepMs: number) => { let n = 0; while (moreSteps(n, n * stepMs, r.jit)) n++; return n; };
    expect([count(120), count(900), count(4000), count(60_000)]).toEqual([25, 6, 2, 1]);
    expect([r.warmup, r.timed]).toEqual([3, 3]);
  });
  it('--quick: no JIT warm-up, one untimed step and one timed', () => {
    const q = stepsRule(true);
    expect([moreSteps(0, 0, q.jit), q.warmup, q.timed]).toEqual([false, 1, 1]);
  });
});

describe('the --compare table', () => {
  const c = {
    name: 'default', model: '2x4x64', P: 32, G: 8, steps: 3, ms: 50, stepsPerSec: 20, phases: { rollout: 30, reward: 1, update: 19 }, evalMs: 12, evalEpisodes: 64,
    flops: 2e9, gflops: 40, perStep: { dispatches: 1000, clears: 12, submissions: 40, readbacks: 6, uploads: 30 }, floorMs: 25, pctOfFloor: 200,
    generation: { path: 'recompute (x)', fedTokens: 1, forwardRows: 9 },
  } as unknown as CaseResult;
  const base: CompareResult = { backend: 'webgpu', device: 'GPU', floor: { dispatchUs: 5, submitMs: 0.5, dispatchesTimed: 2000 }, cases: [c], batchRatio: null, limit: null, torch: { available: false, reason: 'torch is not installed (x)', results: [] } };
  it('without torch: one line saying so, and this project\'s figures', () => {
    const out = formatCompare(base);
    expect(out.match(/PyTorch/g)).toHaveLength(1);
    expect(out).toMatch(/^PyTorch: not compared \(torch is not installed \(x\)\)$/m);
    expect(out).toMatch(/^default +2x4x64 +32 x 8 +50\.0 +20\.000 +30\.0 +1\.0 +19\.0 +12\.0 \(64\) +2\.000 +40\.00 +1000 +12 +40 +6 +30 +25\.0 +200% +3 \+ 1$/m); // 3 timed steps after 1 untimed (a case without its count: one)
    expect(out).toMatch(/dispatch floor: 5\.00 us per dispatch \(2000 trivial dispatches timed\), 0\.500 ms per submit \+ sync round trip/);
  });
  it('with torch: this ms, torch ms and their ratio (50 / 20 = 2.50x), and both generation paths', () => {
    const result = { ms_per_step: 20, steps: 3, device: 'cuda', device_name: 'H100', torch: '2.5.0', generation_path: 'recompute: y' };
    const out = formatCompare({ ...base, torch: { available: true, version: '2.5.0', results: [{ case: 'default', ms: 20, ratio: 2.5, result }] } });
    expect(out).toMatch(/^PyTorch 2\.5\.0 on cuda \(H100\); generation there: recompute: y$/m);
    expect(out).toMatch(/^generation here: recompute \(x\)$/m);
    expect(out).toMatch(/^default +2x4x64 +32 x 8 +50\.0 +20\.0 +2\.50x$/m);
  });
});

describe('the share of the limit per part (the CPU engine)', () => {
  // a 50 ms step: rollout 30 ms for 0.6 GFLOP, reward 2, update 15 ms for 1.4 GFLOP, 3 ms between the phases
  const c = {
    name: 'default', model: '2x4x64', P: 32, G: 8, steps: 3, ms: 50, stepsPerSec: 20, phases: { rollout: 30, reward: 2, update: 15 }, evalMs: 12, evalEpisodes: 64,
    flops: 2e9, gflops: 40, flopParts: { rollout: 0.6e9, update: 1.4e9 }, generation: { path: 'incremental (x)', fedTokens: 1, forwardRows: 1 },
  } as unknown as CaseResult;
  it('each part\'s GFLOP/s over threads x the core\'s limit, by hand; the whole step is the time-weighted sum of its parts', () => {
    // the limit: 50 GFLOP/s a core x 2 threads = 100
    const s = Object.fromEntries(limitShares(c, 50, 2).map((p) => [p.part, p]));
    expect(Object.keys(s)).toEqual(['rollout', 'reward', 'update', 'rest', 'whole step']);
    expect(s.rollout.gflops).toBeCloseTo(20, 9); // 0.6 GFLOP in 30 ms
    expect(s.rollout.ofLimit).toBeCloseTo(0.2, 9);
    expect(s.update.gflops).toBeCloseTo(1400 / 15, 9); // 1.4 GFLOP in 15 ms
    expect(s.update.ofLimit).toBeCloseTo(1400 / 15 / 100, 9);
    expect([s.reward.gflops, s.reward.ofLimit, s.rest.ms, s.rest.ofLimit]).toEqual([0, 0, 3, 0]);
    expect(s['whole step'].ofLimit).toBeCloseTo(0.4, 9); // 2 GFLOP in 50 ms = 40 of 100
    expect([s.rollout.ofStep, s.reward.ofStep, s.update.ofStep, s.rest.ofStep]).toEqual([0.6, 0.04, 0.3, 0.06]);
  });
  it('the table in the --compare output names the limit and prints each part\'s row', () => {
    const out = formatCompare({ backend: 'cpu', device: 'cpu, 2 threads', floor: null, cases: [c], batchRatio: null, limit: { core: { gflops: 50, variant: 'fma', mulAddGflops: 32, flopPerRun: 1, runs: 1, flopPerIter: 8 }, threads: 2 } });
    expect(out).toMatch(/^share of the limit per part: 50\.0 GFLOP\/s a core \(128-bit SIMD with fused multiply-adds, the build that runs; 32\.0 with a multiply then an add\), measured now x 2 threads = 100\.0 GFLOP\/s$/m);
    const plain = formatCompare({ backend: 'cpu', device: 'cpu, 2 threads', floor: null, cases: [c], batchRatio: null, limit: { core: { gflops: 50, variant: 'simd', mulAddGflops: 50, flopPerRun: 1, runs: 1, flopPerIter: 8 }, threads: 2 } });
    expect(plain).toMatch(/^share of the limit per part: 50\.0 GFLOP\/s a core \(128-bit SIMD, a multiply then an add: the plain build runs\), measured now x 2 threads = 100\.0 GFLOP\/s$/m);
    expect(out).toMatch(/^default +rollout +30\.0 +60% +0\.600 +20\.00 +20%$/m);
    expect(out).toMatch(/^default +rest +3\.0 +6% +0\.000 +0\.00 +0%$/m);
    expect(out).toMatch(/^default +whole step +50\.0 +100% +2\.000 +40\.00 +40%$/m);
  });
});

describe('scripts/torch_rl_step.py without torch', () => {
  it('--plan: minibatches split whole episodes, every row in exactly one', () => {
    const r = py([SCRIPT, '--plan', '--prompts', '3', '--group', '4', '--minibatches', '4', '--gen', '12:5:6,12:11:2', '--block-size', '16', '--train-rows', '24', '--seed', '5']);
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.episodes).toBe(12);
    expect(p.sequences).toBe(24);
    expect(p.T).toBe(15);
    const rows: number[] = p.minibatches.flat();
    expect([...rows].sort((x, y) => x - y)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(p.minibatch_rows).toEqual(p.minibatches.map((m: number[]) => m.length));
    // 12 episodes in 4 minibatches: 3 each; rows i and i + 12 are the same episode's two turns
    for (const mb of p.minibatches as number[][]) {
      const eps = new Set(mb.map((i) => p.row_episode[i]));
      expect(eps.size).toBe(3);
      for (const i of mb) expect(p.row_episode[i]).toBe(i % 12);
      for (const e of eps) expect(mb.filter((i) => p.row_episode[i] === e)).toHaveLength(2);
    }
  });
  it('bad arguments exit 2 naming the argument', () => {
    let r = py([SCRIPT, '--plan', '--gen', '4:3:x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--gen entry 0 \('4:3:x'\) must be COUNT:CONTEXT:NEW or COUNT:CONTEXT:NEW:DISTINCT/);
    r = py([SCRIPT, '--plan', '--gen', '12:5:6:5', '--block-size', '16']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--gen entry 0: DISTINCT \(5\) must divide COUNT \(12\)/);
    r = py([SCRIPT, '--plan', '--gen', '4:20:8', '--block-size', '24']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CONTEXT \+ NEW = 28 exceeds --block-size 24/);
    r = py([SCRIPT, '--plan', '--n-embd', '30', '--n-head', '4']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--n-embd \(30\) must be divisible by --n-head \(4\)/);
    r = py([SCRIPT, '--plan', '--train-rows', '999', '--prompts', '2', '--group', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--train-rows must be in \[1, 4\]/);
  });
  it('--probe: JSON with the torch version, or exit 3 with one line saying torch is missing', () => {
    const r = py([SCRIPT, '--probe']);
    if (r.code === 0) expect(typeof JSON.parse(r.stdout).torch).toBe('string');
    else {
      expect(r.code).toBe(3);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/torch is not installed/);
    }
  });
});

describe('bench flags', () => {
  it('--torch-script and --python only with --compare; --backend must be known', () => {
    let r = gspo(['bench', '--torch-script', 'x.py']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--torch-script only applies with --compare/);
    r = gspo(['bench', '--compare', '--backend', 'gpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--backend must be webgpu, cpu \(the CPU engine: WebAssembly SIMD on every core; wasm is the same\) or reference \(the plain TypeScript reference, slow\), got "gpu"/);
    r = gspo(['bench', '--compare', '--quick=yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--quick must be true or false/);
  });
});

describe('bench --compare --quick', () => {
  it('reference, --json, a fake PyTorch: three cases at the page\'s sizes, the figures\' arithmetic, the ratio to the fake', () => {
    const r = gspo(['bench', '--compare', '--quick', '--backend', 'reference', '--json', '--torch-script', fake]);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json;
    expect(j.backend).toBe('reference'); // every command's name for it
    expect(j.cases.map((c: CaseResult) => [c.model, c.P, c.G])).toEqual([['2x4x64', 1, 2], ['2x4x64', 4, 4], ['8x8x256', 1, 2]]);
    expect(j.floor).toBeNull(); // no dispatches on the CPU
    for (const c of j.cases as CaseResult[]) {
      expect(c.gflops).toBeCloseTo(c.flops / c.ms / 1e6, 9);
      expect(c.stepsPerSec).toBeCloseTo(1000 / c.ms, 9);
      const [L, , C] = c.model.split('x').map(Number);
      // at least the forward + backward of the loss rows; generation adds the rest
      expect(c.flops).toBeGreaterThan(trainFlops({ nLayer: L, nEmbd: C, vocabSize: c.vocabSize }, c.shape.trainRows, c.shape.T));
      // the loss rows' mean length: each minibatch's rows are cut to its longest sequence (Trainer rowLength)
      expect(c.shape.T).toBeGreaterThanOrEqual(1);
      expect(c.shape.T).toBeLessThanOrEqual(c.blockSize - 1);
      // relay: each turn generates one sequence per episode
      for (const g of c.shape.gen) expect(g.count % (c.P * c.G)).toBe(0);
      // the first turn's contexts are the prompts, a group's G episodes in a row: prefilled once each, here and in PyTorch
      expect(c.shape.gen[0].distinct).toBe(c.P);
    }
    expect(j.batchRatio.stepTime).toBeCloseTo(j.cases[1].ms / j.cases[0].ms, 9);
    expect(j.batchRatio.of).toBe('P4 G4 / P1 G2');
    expect(j.torch.available).toBe(true);
    expect(j.torch.version).toBe('9.9-fake');
    expect(j.torch.results.map((t: { ratio: number }) => t.ratio)).toEqual(j.cases.map((c: CaseResult) => c.ms / 2.5));
    const logged = readFileSync(argsLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(logged.map((a) => [flag(a, '--n-layer'), flag(a, '--n-embd'), flag(a, '--prompts'), flag(a, '--group')])).toEqual([['2', '64', '1', '2'], ['2', '64', '4', '4'], ['8', '256', '1', '2']]);
    expect(logged.map((a) => flag(a, '--train-rows'))).toEqual(j.cases.map((c: CaseResult) => String(c.shape.trainRows)));
    // beside a CPU engine PyTorch runs on the CPU at one thread (the engine's)
    for (const a of logged) expect([flag(a, '--device'), flag(a, '--threads')]).toEqual(['cpu', '1']);
    // the population case: K members on threads, each step timed until every member has stepped
    const pop = j.population as PopulationResult;
    expect(pop.rows.map((x) => x.K)).toEqual([1, 2, 4]);
    for (const x of pop.rows) expect(x.ratio).toBeCloseTo(x.ms / pop.rows[0].ms, 9);
    expect(pop.how).toMatch(/one worker thread per member/);
  }, 600_000);

  it('formats the population table from hand figures: ratio to K = 1, time per member, readbacks per minibatch, the host\'s time beside the GPU wait', () => {
    const out = formatPopulation({ how: 'members in turn on one device (not stacked yet)', model: '2x4x64', P: 32, G: 8, steps: 3, cores: 2, rows: [
      { K: 1, ms: 40, ratio: 1, gflops: 2, perStep: { dispatches: 600, clears: 30, submissions: 5, readbacksPerMinibatch: 1, waitMs: 15 } },
      { K: 4, ms: 100, ratio: 2.5, gflops: 3.2, perStep: { dispatches: 2400, clears: 30, submissions: 20 } },
    ] });
    expect(out).toMatch(/K members of 2x4x64 at P32 x G8, members in turn on one device/);
    // GPU wait 15 of the 40 ms step: the host worked the other 25
    expect(out).toMatch(/^1 +40\.0 +1\.00x +40\.0 +2\.00 +600 +30 +5 +1\.00 +15\.0 +25\.0$/m);
    expect(out).toMatch(/^4 +100\.0 +2\.50x +25\.0 +3\.20 +2400 +30 +20 +- +- +-$/m); // no readback count, no wait: dashes
  });
  it('a K that does not fit is a row saying why, after the Ks that ran; the bench goes on', async () => {
    const out = formatPopulation({ how: 'one stacked population', model: '2x4x64', P: 32, G: 8, steps: 3, cores: 2, rows: [
      { K: 1, ms: 40, ratio: 1, gflops: 2 },
      { K: 16, ms: Number.NaN, ratio: Number.NaN, gflops: Number.NaN, error: 'wasm backend: 4108.6 MiB of tensors do not fit' },
    ] });
    expect(out).toMatch(/^1 +40\.0 +1\.00x/m);
    expect(out).not.toMatch(/^16 /m);
    expect(out).toMatch(/^K=16: not measured: wasm backend: 4108\.6 MiB of tensors do not fit$/m);
    // a real engine too small for even one member: the result names the refusal instead of throwing
    const b = new WasmBackend({ maxBytes: 2 ** 20 });
    try {
      const r = await benchPopulation(b, true);
      expect(r.rows).toHaveLength(1);
      expect(r.rows[0].K).toBe(1);
      expect(r.rows[0].error).toMatch(/do not fit/);
    } finally { b.destroy(); }
  });
});
