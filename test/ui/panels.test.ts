// The banners, the transcript viewer, the step anatomy, the Pareto chart's
// caption and the runs table, rendered in given states.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import type { RunMeta } from '../../src/store/runTypes';
import type { StepAnatomy as Anatomy, Transcripts as T } from '../../src/worker/protocol';
import { Banners } from '../../src/ui/Banners';
import { ChartsPanel } from '../../src/ui/ChartsPanel';
import { ConfirmDialog } from '../../src/ui/ConfirmDialog';
import { RunsTable } from '../../src/ui/RunsTable';
import { StepAnatomy } from '../../src/ui/StepAnatomy';
import { Transcripts } from '../../src/ui/Transcripts';
import { DeviceInfo } from '../../src/ui/DeviceInfo';
import { buttons, render, text } from './render';

const config = presetConfig(findPreset('relay-silence'));

describe('banners', () => {
  it('no WebGPU: the page trains on the CPU engine without asking, says why in one line; the device panel names the browsers that have it', () => {
    const none = { gpu: { state: 'none', reason: 'navigator.gpu found no adapter' }, backendChoice: 'cpu' } as const;
    const t = text(render(Banners, { ...none, trainer: { cpuEngine: 'wasm' } as never }));
    expect(t).toMatch(/did not give the page WebGPU \(navigator\.gpu found no adapter\): training on the CPU engine \(WebAssembly SIMD\)/);
    const d = text(render(DeviceInfo, none));
    expect(d).toMatch(/Chrome and Edge 113 or newer/);
    expect(d).toMatch(/Safari 26 or newer/);
    expect(d).toMatch(/Firefox 141 or newer on Windows/);
    expect(buttons(render(Banners, none))).not.toContain('Use the CPU backend'); // nothing to choose: it already trains there
    // where simd128 does not validate, the notice names the reference
    expect(text(render(Banners, { ...none, trainer: { cpuEngine: 'reference' } as never }))).toMatch(/training on the CPU reference \(plain JavaScript: WebAssembly SIMD is not available here\)/);
    // the person chose the CPU: nothing to say; before boot chose anything: nothing yet
    expect(text(render(Banners, { ...none, backendPref: 'cpu', busy: null }))).not.toMatch(/WebGPU/);
    expect(text(render(Banners, { gpu: none.gpu, backendChoice: null, busy: null }))).not.toMatch(/WebGPU/);
  });

  it('the device panel names the CPU engine\'s threads, and the note of a page that is not cross-origin isolated', () => {
    const none = { gpu: { state: 'none', reason: 'navigator.gpu found no adapter' }, backendChoice: 'cpu' } as const;
    const on = (count: number, note: string | null) => render(DeviceInfo, { ...none, trainer: { backend: 'cpu', cpuEngine: 'wasm', cpuThreads: { count, workerChunks: 12, variant: 'fma' }, backendNote: note } as never });
    const two = on(2, null);
    expect(text(two)).toMatch(/The run trains on: cpu \(WebAssembly SIMD, 2 threads\)\./);
    expect(two).toMatch(/data-threads="2" data-worker-chunks="12" data-variant="fma"/);
    const one = on(1, 'one thread: this page is not cross-origin isolated');
    expect(text(one)).toMatch(/The run trains on: cpu \(WebAssembly SIMD\)\./);
    expect(text(one)).toMatch(/one thread: this page is not cross-origin isolated/);
  });

  it('lists URL parameters not applied, shows warm-start progress, a lost device and a diverged run with what to try', () => {
    const h = render(Banners, {
      urlProblems: ['groupSize must be in [1, 64]; got 999; not applied', 'unknown parameter "bogus" (not a config field)'],
      busy: null, progress: 0.25, message: 'warm start: pretraining step 150/600, loss 1.2345',
      flags: [{ kind: 'nonfinite-update', step: 6, message: 'step 6: skipped' }, { kind: 'diverged', step: 7, message: 'paused: 3 consecutive updates were skipped' }],
      trainer: { runId: 'r', preset: 'relay-silence', config, pending: {}, status: 'running', message: null, backend: 'webgpu', warmStart: null, stepCount: 9, lambdaTok: 0.1, evals: [], bestEval: null, flags: [], skippedUpdates: 0,
        recovery: { step: 8, lostAtStep: 11, reason: 'WebGPU device lost (unknown)', count: 1 } },
    });
    const t = text(h);
    expect(t).toMatch(/groupSize must be in \[1, 64\]; got 999; not applied/);
    expect(t).toMatch(/unknown parameter "bogus"/);
    expect(h).toMatch(/<progress[^>]*value="0.25"/);
    expect(t).toMatch(/pretraining step 150\/600/);
    // a run being born: its stage is the busy line (the current run's message is not its progress)
    const born = text(render(Banners, { busy: 'warm start: pretraining step 3/600', progress: 0.005, message: 'ready: the old run' }));
    expect(born).toMatch(/warm start: pretraining step 3\/600/);
    expect(born).not.toMatch(/the old run/);
    expect(t).toMatch(/The GPU device was lost at step 11 \(WebGPU device lost \(unknown\)\)\. The run resumed from its last checkpoint, step 8/);
    expect(t).toMatch(/Training diverged \(step 7\) paused: 3 consecutive updates were skipped/);
    expect(t).toMatch(/lower learning rate/);
    expect(t).toMatch(/1 update skipped for a non-finite loss or gradient \(last at step 7\)/); // index 6: the 7th step, where the time series mark it
  });

  it('a degenerate flag is a visible banner with its message', () => {
    const t = text(render(Banners, { flags: [{ kind: 'degenerate', step: 20, message: 'every philosopher THINKs forever: no deadlock, no meals' }] }));
    expect(t).toMatch(/The policy looks degenerate \(step 20\) every philosopher THINKs forever/);
  });

  it('the confirm dialog is named by its title and described by its body', () => {
    const h = render(ConfirmDialog, { confirm: { title: 'Start a new run?', body: 'nLayer cannot change while a run trains.', confirmLabel: 'Start a new run', onConfirm: async () => {} } });
    const labelledby = /aria-labelledby="([^"]+)"/.exec(h)![1];
    expect(h).toContain(`id="${labelledby}">Start a new run?</h2>`);
    expect(buttons(h)).toEqual(['Cancel', 'Start a new run']);
  });
});

const transcripts: T = {
  train: {
    step: 4, total: 256, episodes: [
      { episode: 0, lines: [
        { role: 'scout', text: 'Scout sees 1 2 3, asked position 2, Solver knows: yes', generated: false, tokens: [] },
        { role: 'scout', text: '(silent)', generated: true, tokens: [1] },
        { role: 'solver', text: 'board:\n| 1 | 2 |\n| 3 | 4 |', generated: false, tokens: [] },
        { role: 'solver', text: 'answers 2 (correct)', generated: true, tokens: [5, 1] },
      ], turns: [
        { role: 'scout', turn: 0, agent: 0, message: true, ids: [1], tokens: ['EOS'], logp: [-0.105], silent: true },
        { role: 'solver', turn: 1, agent: 1, message: false, ids: [5, 1], tokens: ['2', 'EOS'], logp: [-0.01, -2.3], silent: false },
      ], score: { rTask: 1, extras: {} }, reward: { reward: 1, rTask: 1, tokens: 0, turns: 0, repetition: 0 }, group: 0, advantage: 0.7069 },
      { episode: 4, lines: [{ role: 'scout', text: '7 7', generated: true, tokens: [8, 8] }],
        turns: [{ role: 'scout', turn: 0, agent: 0, message: true, ids: [8, 8], tokens: ['7', '7'], logp: [-1, -1], silent: false }],
        score: { rTask: 0, extras: {} }, reward: { reward: -0.2, rTask: 0, tokens: 2, turns: 1, repetition: 0 }, group: 0, advantage: -1.2 },
    ],
  },
  eval: null,
};

describe('transcripts', () => {
  const h = render(Transcripts, { transcripts });
  const t = text(h);
  it('says who said what, shows silence as silence and multi-line text in monospace', () => {
    // episodes and steps count from 1 on the page (the worker's step index 4 is the 5th step)
    expect(t).toMatch(/Episode 1 · group 1 · success, silent · 0 tokens · reward 1 · advantage 0\.707/);
    expect(t).toMatch(/Episode 5 · group 1 · failure · 2 tokens · reward -0\.2 · advantage -1\.2/);
    expect(t).toMatch(/Showing 2 of 256 episodes of step 5 \(sampled\)\./);
    expect(t).toMatch(/scout \(generated\) silence: nothing was sent EOS/);
    expect(h).toContain('<pre>board:\n| 1 | 2 |\n| 3 | 4 |</pre>');
  });
  it('colours each generated token by its log-prob and says it on hover', () => {
    expect(h).toMatch(/title="EOS: log-prob -0\.105 \(p = 0\.90\)"/);
    expect(h).toMatch(/title="EOS: log-prob -2\.300 \(p = 0\.10\)"/);
    // p 0.90 -> hue 108 (green); p 0.10 -> hue 12 (red)
    expect(h).toMatch(/background:hsl\(108 70% 82%\)[^>]*title="EOS: log-prob -0\.105/);
    expect(h).toMatch(/background:hsl\(12 70% 82%\)[^>]*title="EOS: log-prob -2\.300/);
  });
});

describe('transcripts of an env that draws one table per round', () => {
  it('shows the tables in monospace and the sampled tokens turn by turn, each agent named', () => {
    const h = render(Transcripts, { transcripts: { eval: null, train: { step: 1, episodes: [{
      episode: 0, score: { rTask: 0, extras: {} }, reward: { reward: -1, rTask: 0, tokens: 0, turns: 0, repetition: 0 },
      lines: [{ role: 'table', text: 'round 0\n P0 THINK\n P1 TAKE_L', generated: true, tokens: [] }],
      turns: [
        { role: 'philosopher', turn: 0, agent: 0, message: false, ids: [3, 1], tokens: ['THINK', 'EOS'], logp: [-0.2, -0.01], silent: false },
        { role: 'philosopher', turn: 0, agent: 1, message: false, ids: [4, 1], tokens: ['TAKE_L', 'EOS'], logp: [-1.5, -0.01], silent: false },
      ] }] } } });
    const t = text(h);
    expect(h).toContain('<pre>round 0\n P0 THINK\n P1 TAKE_L</pre>');
    expect(t).toMatch(/The sampled tokens, turn by turn: philosopher 0 · turn 0 THINK EOS philosopher 1 · turn 0 TAKE_L EOS/);
    expect(h).toMatch(/title="TAKE_L: log-prob -1\.500 \(p = 0\.22\)"/);
  });
});

describe('step anatomy', () => {
  const anatomy: Anatomy = {
    step: 3, group: 1, groups: 4, groupSize: 2, algorithm: 'gspo', advantageMode: 'group', epsLow: 0.0003, epsHigh: 0.0004,
    weights: { lambdaTok: 0.1, lambdaTurn: 0, lambdaRep: 0 }, mean: 0.75, std: 0.3536, batchStd: 0.5, stdEps: 1e-4, zeroStd: false,
    episodes: [
      { episode: 2, lines: [], reward: { reward: 1, rTask: 1, tokens: 0, turns: 0, repetition: 0 }, rEnv: 1, rEnvName: 'r_task', advantage: 0.7069, sequences: [
        { role: 'scout', turn: 0, tokens: ['EOS'], length: 1, logRatio: 0.0005, ratio: 1.0005, tokenRatios: [1.0005], clipped: true, clippedTokens: 1, loss: -0.70718 }] },
      { episode: 3, lines: [], reward: { reward: 0.5, rTask: 1, tokens: 5, turns: 1, repetition: 0 }, rEnv: 1, rEnvName: 'r_task', advantage: -0.7069, sequences: [
        { role: 'scout', turn: 0, tokens: ['1', '2', '3', '1', '2', 'EOS'], length: 6, logRatio: -0.0001, ratio: 0.9999, tokenRatios: [1, 1, 1, 1, 1, 0.9994], clipped: false, clippedTokens: 0, loss: 0.70683 }] },
    ],
    ratioNote: 'Ratios are measured now.',
  };
  const t = text(render(StepAnatomy, { anatomy, trainer: null }));
  it('fills the formulas with the worker\'s numbers', () => {
    expect(t).toMatch(/Step 4, group 2: one task played G = 2 times \(GSPO, advantage mode group\)/);
    expect(t).toMatch(/Group mean 0\.75, std 0\.3536/);
    expect(t).toMatch(/r i = r_task − λ_tok × tokens r i = 1 − 0\.1 × 0 = 1/);
    expect(t).toMatch(/A i = \(r i − mean\) \/ \(std \+ 0\.0001\) = \(1 − 0\.75\) \/ \(0\.3536 \+ 0\.0001\) = 0\.7069/);
    expect(t).toMatch(/clip\(1\.0005, 0\.9997, 1\.0004\) × 0\.7069\) = -0\.70718 \(clipped: no gradient from this sequence\)/);
    expect(t).toMatch(/Ratios are measured now\./);
  });
  it('tabulates every episode of the group with its advantage, ratio and whether it was clipped', () => {
    expect(t).toMatch(/1 1 0 1 0\.7069 1\.0005 yes -0\.7072 scout: EOS/);
    expect(t).toMatch(/2 1 5 0\.5 -0\.7069 0\.9999 no 0\.7068 scout: 1 2 3 1 2 EOS/);
  });
});

const run = (id: string, name: string, evals: RunMeta['evals'], extra: Partial<RunMeta> = {}): RunMeta => ({
  id, name, preset: 'relay-silence', config, createdAt: 0, updatedAt: 0, status: 'paused', steps: 10, evals, bestEval: evals[0] ?? null, flags: [],
  warmStart: null, backend: 'webgpu', checkpoints: { last: 10 }, colorIndex: 0, source: 'trained', ...extra,
});

describe('runs and the Pareto chart', () => {
  const evals: RunMeta['evals'] = [
    { step: 0, accuracy: 1, tokens: 8, turns: 1, lambdaTok: 0.1, reward: 0.2 },
    { step: 5, accuracy: 0.8, tokens: 2, turns: 1, lambdaTok: 0.1, reward: 0.6 },
    { step: 10, accuracy: 0.9, tokens: 1, turns: 1, lambdaTok: 0.3, reward: 0.8, silenceKnown: 0.75 },
  ];
  it('the caption counts the eval points of the shown runs and the frontier (the point at 2 tokens is dominated)', () => {
    const other = run('old', 'older run', [{ step: 0, accuracy: 0.5, tokens: 0.5, turns: 0, lambdaTok: 1, reward: 0 }], { colorIndex: 1 });
    const t = text(render(ChartsPanel, { runs: [run('cur', 'relay-silence #1', evals), other], runId: 'cur', overlay: ['old'] }));
    expect(t).toMatch(/4 eval points from 2 runs; frontier: 3 points; best accuracy of this run: 100\.0% at 8 tokens \(step 0\)/);
    expect(t).toMatch(/silenceKnown 0\.75/); // env extras shown generically
    const only = text(render(ChartsPanel, { runs: [run('cur', 'relay-silence #1', evals), other], runId: 'cur', overlay: [] }));
    expect(only).toMatch(/3 eval points from 1 run; frontier: 2 points/);
    // two runs shown, one with evals: "from 1 run" (the noun agrees with the count, not with the runs shown)
    const idle = run('idle', 'idle run', [], { colorIndex: 2 });
    expect(text(render(ChartsPanel, { runs: [run('cur', 'relay-silence #1', evals), idle], runId: 'cur', overlay: ['idle'] }))).toMatch(/3 eval points from 1 run; frontier/);
    // none yet: said plainly, with when they come
    expect(text(render(ChartsPanel, { runs: [idle], runId: 'idle' }))).toMatch(/No eval points yet\. Points appear at every evaluation/);
  });
  it('the pin is drawn inline, not with an emoji (a colour-emoji font is not on every system)', () => {
    const h = render(RunsTable, { runs: [run('a', 'a run', evals)], runId: 'other' });
    expect(h).not.toMatch(/\u{1F4CC}/u);
    expect(h).toMatch(/<button[^>]*aria-label="Pin a run"[^>]*><svg class="pin-icon"/);
  });
  it('the runs table shows setup, best and final eval, status and the actions', () => {
    const h = render(RunsTable, { runs: [run('cur', 'relay-silence #1', evals, { changes: [{ step: 4, field: 'lambdaTok', value: 0.3 }] })], runId: 'other' });
    const t = text(h);
    expect(t).toMatch(/relay-silence #1 relay-silence: GSPO G=8 P=32 lr 0\.0003 · lambda_tok 0\.1 · 2x64 · changed live: lambdaTok 0\.3 from step 5 10 100\.0%, 8 tok \(step 0\) 90\.0%, 1 tok \(step 10\) paused/);
    for (const b of ['Rename', 'Duplicate', 'Export JSON', 'Export CSV', 'Export checkpoint', 'Load weights', 'Delete']) expect(buttons(h)).toContain(b);
  });
});
