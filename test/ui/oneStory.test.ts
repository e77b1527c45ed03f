// The page tells one story: a live change is marked on the step it took
// effect in every view (chart label, time series, runs table), the Resume
// banner says whether the run was paused, and the header's device line agrees
// with the software-adapter banner.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import type { RunMeta } from '../../src/store/runTypes';
import { Banners } from '../../src/ui/Banners';
import { changeMarks, markedEvals } from '../../src/ui/changeMarks';
import { DeviceInfo } from '../../src/ui/DeviceInfo';
import { RunsTable } from '../../src/ui/RunsTable';
import { render, text } from './render';

const config = presetConfig(findPreset('relay-silence'));
const run = (extra: Partial<RunMeta> = {}): RunMeta => ({
  id: 'cur', name: 'relay-silence #1', preset: 'relay-silence', config, createdAt: 0, updatedAt: 0, status: 'paused', steps: 20, evals: [], bestEval: null, flags: [],
  warmStart: null, backend: 'webgpu', checkpoints: { last: 20 }, colorIndex: 0, source: 'trained', ...extra,
});

describe('a live change of lambda_tok set after 3 steps (so the 4th step is the first with it)', () => {
  const changes: RunMeta['changes'] = [{ step: 3, field: 'lambdaTok', value: 0.3 }];
  const evals: RunMeta['evals'] = [
    { step: 0, accuracy: 1, tokens: 8, turns: 1, lambdaTok: 0.1, reward: 0.2 }, // before any step: measured at the old value
    { step: 10, accuracy: 0.9, tokens: 2, turns: 1, lambdaTok: 0.3, reward: 0.3 }, // after step 10: the first with the new value
    { step: 20, accuracy: 0.9, tokens: 1, turns: 1, lambdaTok: 0.3, reward: 0.6 },
  ];
  it('the time series mark it at step 4', () => {
    expect(changeMarks(changes).map((m) => m.step)).toEqual([4]);
  });
  it('the chart labels the first eval measured with the new value, not the step-0 eval', () => {
    expect(markedEvals(changeMarks(changes), evals).map((m) => m.at.step)).toEqual([10]);
    expect(markedEvals(changeMarks(changes), evals.slice(0, 1))).toEqual([]); // no eval after it yet: no label
    // a change after 10 steps applies from step 11: the eval at step 10 came before it
    expect(markedEvals(changeMarks([{ step: 10, field: 'lambdaTok', value: 0.5 }]), evals).map((m) => m.at.step)).toEqual([20]);
  });
  it('the runs table says it applied from step 4', () => {
    const t = text(render(RunsTable, { runs: [run({ changes })], runId: 'other' }));
    expect(t).toMatch(/changed live: lambdaTok 0\.3 from step 4/);
    expect(t).not.toMatch(/@3/);
  });
});

describe('the Resume banner', () => {
  it('a paused run is said to be paused, at its step', () => {
    const t = text(render(Banners, { guideDismissed: true, resumable: { id: 'r', name: 'relay-silence #2', step: 40, status: 'paused' } }));
    expect(t).toMatch(/"relay-silence #2" was paused at step 40\./);
    expect(t).not.toMatch(/was training when the page closed/);
  });
  it('an interrupted run was training when the page closed', () => {
    const t = text(render(Banners, { guideDismissed: true, resumable: { id: 'r', name: 'relay-silence #2', step: 40, status: 'interrupted' } }));
    expect(t).toMatch(/"relay-silence #2" was training when the page closed\./);
  });
  it('an interrupted population is offered as one, by its preset, member count and least step', () => {
    const t = text(render(Banners, { guideDismissed: true, resumable: { id: 's', name: 'relay-noisy-quick population', step: 12, status: 'interrupted', members: 4 } }));
    expect(t).toMatch(/The relay-noisy-quick population \(4 members\) was training when the page closed; its last saved step is 12\./);
    expect(t).toMatch(/Resume it from step 12/);
  });
});

describe('the device line', () => {
  const summary = (h: string) => text(/<summary>([\s\S]*?)<\/summary>/.exec(h)![1]);
  const trainer = (backend: 'webgpu' | 'cpu') => ({ runId: 'r', preset: 'relay-silence', config, pending: {}, status: 'idle' as const, message: null, backend, warmStart: null, stepCount: 0, lambdaTok: 0.1, evals: [], bestEval: null, flags: [], skippedUpdates: 0 });
  it('on SwiftShader the header says it is a software adapter, as the banner does', () => {
    const gpu = { state: 'ok' as const, adapter: 'Google SwiftShader (Vulkan 1.3)' };
    const line = summary(render(DeviceInfo, { gpu, trainer: trainer('webgpu') }));
    expect(line).toMatch(/^This device: WebGPU on SwiftShader, a software adapter/);
    expect(text(render(Banners, { gpu, backendChoice: 'auto', guideDismissed: true, busy: null }))).toMatch(/WebGPU here is SwiftShader ?, a software renderer/);
  });
  it('a hardware GPU is plain WebGPU; the CPU backend is the CPU backend', () => {
    expect(summary(render(DeviceInfo, { gpu: { state: 'ok', adapter: 'apple m2' }, trainer: trainer('webgpu') }))).toBe('This device: WebGPU');
    expect(summary(render(DeviceInfo, { gpu: { state: 'ok', adapter: 'Google SwiftShader' }, trainer: trainer('cpu') }))).toBe('This device: CPU backend');
  });
});

describe('a skipped update', () => {
  it('the banner names the step the time series mark (the worker\'s index 2 is the 3rd step)', () => {
    const t = text(render(Banners, { guideDismissed: true, flags: [{ kind: 'nonfinite-update', step: 2, message: 'step 2: a non-finite loss; the update was skipped' }] }));
    expect(t).toMatch(/last at step 3\)/);
  });
});
