// A population is the run the page shows, training or not: the line beside Start counts its
// members' steps (the least, each one's in words) with the lifecycle's word, the Transcripts and
// Anatomy panels name the chosen member (hovering changes nothing), and the lambda_tok slider is
// the chosen member's, said before it is moved.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import { MetricsHub } from '../../src/store/metricsHub';
import type { SweepRecord } from '../../src/store/sweepSlice';
import { METRIC_INDEX, METRIC_NAMES } from '../../src/worker/protocol';
import { chartBelow, RunButtons } from '../../src/ui/RunButtons';
import { RewardControls } from '../../src/ui/RewardControls';
import { StepAnatomy } from '../../src/ui/StepAnatomy';
import { Transcripts } from '../../src/ui/Transcripts';
import { render, text } from './render';

/** A hub where run `id` has done `steps` steps, its lambda_tok `lambda` at each. */
function withSteps(hub: MetricsHub, id: string, steps: number, lambda: number) {
  const C = METRIC_NAMES.length, rows = new Float64Array(steps * C);
  for (let r = 0; r < steps; r++) { rows[r * C + METRIC_INDEX.step] = r; rows[r * C + METRIC_INDEX.lambda_tok] = lambda; }
  hub.append(id, rows, steps);
}

const run = (label: string, value: number, runId: string | null, status: 'running' | 'pending' | 'done') =>
  ({ label, value, status, runId, accuracy: null, tokens: null, startedAt: 0, finishedAt: null });
const sweep: SweepRecord = {
  id: 's', preset: 'relay-noisy-quick', axis: 'lambdaTok', base: {}, steps: 40, status: 'running', message: null, createdAt: 0,
  runs: [run('lambda_tok=0', 0, 'a', 'running'), run('lambda_tok=0.1', 0.1, 'b', 'running'), run('lambda_tok=0.3', 0.3, 'c', 'running')],
};

const pop = { preset: 'relay-noisy-quick', population: [0, 0.1, 0.3] };

describe('the population is the run', () => {
  it('beside Start: one step number, the chosen member\'s, named; each member by name', () => {
    const hub = new MetricsHub();
    withSteps(hub, 'a', 11, 0); withSteps(hub, 'b', 12, 0.1); withSteps(hub, 'c', 12, 0.3);
    const t = text(render(RunButtons, { ...pop, busy: null, sweep, status: 'idle', runId: 'main' }, hub));
    expect(t).toMatch(/λ=0: Step 11 of 40 · training/); // the first member until another is chosen
    expect(text(render(RunButtons, { ...pop, busy: null, sweep, status: 'idle', runId: 'main', sweepSelected: 'b' }, hub))).toMatch(/λ=0\.1: Step 12 of 40 · training/);
    expect(t).toMatch(/a population of 3: λ=0 at step 11, λ=0\.1 at step 12/);
    expect(t).not.toMatch(/idle/);
    // paused, finished, until paused: the same words as a lone run's, and Continue in place of Start
    const paused = text(render(RunButtons, { ...pop, busy: null, sweep: { ...sweep, status: 'stopped', message: 'paused by you' }, status: 'idle' }, hub));
    expect(paused).toMatch(/Step 11 of 40 · paused/);
    expect(paused).toMatch(/Continue/);
    expect(text(render(RunButtons, { ...pop, busy: null, sweep: { ...sweep, status: 'done' }, status: 'idle' }, hub))).toMatch(/Step 11 of 40 · finished/);
    expect(text(render(RunButtons, { ...pop, busy: null, sweep: { ...sweep, untilPaused: true }, status: 'idle' }, hub))).toMatch(/Step 11 · until paused · training/);
    // a population not started yet
    expect(text(render(RunButtons, { ...pop, busy: null, sweep: null, status: 'idle' }, hub))).toMatch(/Step 0 of \d+ · idle/);
    // no population: the lone run's line, as before
    expect(text(render(RunButtons, { status: "idle", busy: null }, hub))).toMatch(/Step 0 of \d+ · idle/);
  });

  it('Transcripts and Anatomy name the chosen member (the first until one is chosen; hovering changes nothing), paused too', () => {
    const hub = new MetricsHub();
    withSteps(hub, 'a', 3, 0); withSteps(hub, 'b', 3, 0.1);
    expect(text(render(Transcripts, { ...pop, sweep }, hub))).toMatch(/Member λ=0 of the population \(choose another/);
    expect(text(render(Transcripts, { ...pop, sweep, hoveredRun: 'b' }, hub))).toMatch(/Member λ=0 of the population/);
    expect(text(render(Transcripts, { ...pop, sweep, sweepSelected: 'b' }, hub))).toMatch(/Member λ=0\.1 of the population/);
    expect(text(render(StepAnatomy, { ...pop, sweep, sweepSelected: 'c' }, hub))).toMatch(/Member λ=0\.3 of the population/);
    // member c has no step yet: the anatomy says so, not "Take a step first"
    expect(text(render(StepAnatomy, { ...pop, sweep, sweepSelected: 'c' }, hub))).toMatch(/has not finished a step yet/);
    // paused, it is still the current run; one run again (no population in the setup), the lone run's panels
    expect(text(render(Transcripts, { ...pop, sweep: { ...sweep, status: 'stopped' }, sweepSelected: 'b' }, hub))).toMatch(/Member λ=0\.1 of the population/);
    expect(text(render(Transcripts, { sweep: { ...sweep, status: 'stopped' } }, hub))).not.toMatch(/Member/);
  });

  it('the lambda_tok slider shows and moves the chosen member (hovering does not change it), and says so', () => {
    const cfg = { ...presetConfig(findPreset('relay-noisy-quick')), lambdaMode: 'manual' as const, lambdaTok: 0.05 };
    const hub = new MetricsHub();
    withSteps(hub, 'a', 2, 0); withSteps(hub, 'b', 2, 0.1);
    // each member's setting is its run record's: its config, then its last live change of lambda_tok
    const meta = (id: string, lambdaTok: number, changes: { step: number; field: 'lambdaTok'; value: number }[] = []) => ({
      id, name: id, preset: 'relay-noisy-quick', config: { ...cfg, lambdaTok }, createdAt: 0, updatedAt: 0, status: 'running' as const, steps: 2,
      evals: [], bestEval: null, flags: [], warmStart: null, backend: null, checkpoints: {}, colorIndex: 0, source: 'trained' as const, changes,
    });
    const runs = [meta('a', 0), meta('b', 0.1, [{ step: 2, field: 'lambdaTok', value: 0.17 }]), meta('c', 0.3)];
    const h = render(RewardControls, { ...pop, config: cfg, sweep, runs, sweepSelected: 'b', hoveredRun: 'a', runId: 'main' }, hub);
    expect(h).toMatch(/<input[^>]*type="range"[^>]*value="0.17"/); // its setting now, not the last step's 0.1
    expect(text(h)).toMatch(/lambda_tok of λ=0\.1/);
    expect(text(h)).toMatch(/changes λ=0\.1 only/);
    expect(h).toMatch(/aria-pressed="true"[^>]*data-run-id="b"/); // its chip is pressed
    // nothing chosen: the first member; no population: the configured value, as before
    expect(render(RewardControls, { ...pop, config: cfg, sweep, runs, runId: 'main' }, hub)).toMatch(/<input[^>]*type="range"[^>]*value="0"/);
    expect(render(RewardControls, { config: cfg, runId: 'main' }, hub)).toMatch(/<input[^>]*type="range"[^>]*value="0.05"/);
  });

  it('Start brings the chart into view only where it lies below the first screen (a phone)', () => {
    const docWith = (top: number) => ({ querySelector: (q: string) => (q === 'section.chart.pareto' ? ({ getBoundingClientRect: () => ({ top }) } as Element) : null) });
    expect(chartBelow(docWith(2000), 844)).not.toBeNull(); // 390x844: about 2,000 px below Start
    expect(chartBelow(docWith(120), 800)).toBeNull(); // 1280x800: beside Start
    expect(chartBelow({ querySelector: () => null }, 800)).toBeNull();
  });
});
