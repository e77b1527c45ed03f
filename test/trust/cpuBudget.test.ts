// The CPU engine had no memory budget. A run is now estimated
// before anything is allocated and refused, naming the estimate and the setting to lower, when it is
// over 3/4 of the machine's memory; --memory-limit may lower that, not raise it past the machine.
import { totalmem } from 'node:os';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCpuBudget, cpuLimitBytes, MACHINE_SHARE } from '../../src/cli/cpuBudget';
import { InputError } from '../../src/contract/errors';
import { setup } from '../../src/cli/commands/runSetup';
import { modelConfigFor } from '../../src/rl/pretrain';
import { gspo, tempDir } from '../cli/run';

const GiB = 2 ** 30, MiB = 2 ** 20;
const LARGEST = { promptsPerStep: 256, groupSize: 64, evalEpisodes: 4096, nLayer: 8, nEmbd: 256, nHead: 4 };

describe('the CPU memory budget', () => {
  it('the limit: 3/4 of the machine, or --memory-limit at most the machine', () => {
    expect(MACHINE_SHARE).toBe(0.75);
    expect(cpuLimitBytes(undefined, 24 * GiB)).toBe(18 * GiB);
    expect(cpuLimitBytes(1024, 24 * GiB)).toBe(1024 * MiB);
    expect(() => cpuLimitBytes(1e9, 24 * GiB)).toThrow(InputError);
    expect(() => cpuLimitBytes(1e9, 24 * GiB)).toThrow('--memory-limit 1000000000 MiB is more than this machine\'s memory (24576 MiB); it can lower the budget, not raise it');
    expect(() => cpuLimitBytes(0, 24 * GiB)).toThrow(/positive number of MiB/);
  });

  it('the largest run (P256 x G64, 4,096 eval episodes, 8 x 256 model) is refused at 18 GiB, naming what to lower; the default fits', () => {
    const big = setup('relay-silence', LARGEST);
    const model = modelConfigFor(big.env, big.config);
    expect(() => checkCpuBudget(big.config, model, 1, 18 * GiB)).toThrow(/^the run needs about \d+ MiB of memory on the CPU .* more than the 18432 MiB it may use .*: lower /);
    const small = setup('relay-silence', {});
    expect(checkCpuBudget(small.config, modelConfigFor(small.env, small.config), 1, 18 * GiB)).toBeLessThan(18 * GiB);
  });

  it('K members at once are K times one', () => {
    const s = setup('relay-silence', {});
    const m = modelConfigFor(s.env, s.config);
    const one = checkCpuBudget(s.config, m, 1, 18 * GiB);
    expect(checkCpuBudget(s.config, m, 1, 18 * GiB, 3)).toBe(3 * one);
    expect(() => checkCpuBudget(s.config, m, 1, 2 * one, 3)).toThrow(/^3 runs at once need about/);
  });

  it('sweep --memory-limit past the machine: exit 2 before any run', () => {
    const r = gspo(['sweep', '--preset', 'relay-silence', '--lambdas', '0,0.1', '--set', 'steps=1', '--memory-limit', '1000000000', '--out', tempDir() + '/s']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--memory-limit 1000000000 MiB is more than this machine's memory/);
  }, 60_000);

  // on a machine of 64 GiB or more the largest run could fit, and this would start it
  it.skipIf(totalmem() >= 64 * GiB)('train of the largest run on the CPU: exit 2 up front, not an allocation failure', () => {
    const sets = Object.entries(LARGEST).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    const t0 = Date.now();
    const r = gspo(['train', '--preset', 'relay-silence', '--backend', 'cpu', ...sets, '--out', tempDir() + '/t']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the run needs about \d+ MiB of memory on the CPU/);
    expect(Date.now() - t0).toBeLessThan(30_000);
  }, 60_000);

  it.skipIf(totalmem() >= 64 * GiB)('pretrain of the largest run on the CPU (its last step builds the run and evaluates): exit 2 up front, nothing written', () => {
    const sets = Object.entries(LARGEST).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    const out = tempDir() + '/w.safetensors';
    const r = gspo(['pretrain', '--preset', 'relay-silence', '--backend', 'cpu', '--steps', '1', ...sets, '--out', out]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the run needs about \d+ MiB of memory on the CPU/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
