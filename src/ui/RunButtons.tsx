// Start, Pause, Step, Reset, Warm start, Restore best (by the chosen rule,
// shown beside it); speed normal/fast; where the run stands, read live from
// telemetry. Focus follows the run: Start moves it to Pause and back.
import { useId, useRef } from 'react';
import { BEST_RULE_LABELS, bestBy, ruleSentence, type BestRule } from '../store/bestRule';
import { EXPLAIN } from './explain';
import { StepProgress } from './StepProgress';
import { fmt, pct } from './labels';
import { useApp, useAppStore, useHub, useHubFrame } from './storeContext';
import { lifecycleOf, populationRun, shortLabel, type Lifecycle, chosenMember } from '../store/currentRun';

/** The main chart when it lies below the first screen (a phone), else null. */
export function chartBelow(doc: Pick<Document, 'querySelector'> = document, viewportHeight = window.innerHeight): Element | null {
  const chart = doc.querySelector('section.chart.pareto');
  return chart && chart.getBoundingClientRect().top > viewportHeight * 0.6 ? chart : null;
}

/** Each member's steps done (its hub rows), in the sweep's order. */
export function memberSteps(runs: readonly { label: string; runId: string | null }[], stepsOf: (runId: string) => number): { label: string; done: number }[] {
  return runs.filter((r) => r.runId !== null).map((r) => ({ label: r.label, done: stepsOf(r.runId!) }));
}

/** "of 40", or "until paused" (the words after the step number). */
const ofSteps = (untilPaused: boolean, steps: number) => (untilPaused ? ' · until paused' : ` of ${steps}`);

/** Where the current population stands, beside Start: the least step of its members (they step together), each one's on hover. */
function PopulationWhere({ lifecycle }: { lifecycle: Lifecycle }) {
  const size = useApp((s) => s.population?.length ?? 0);
  const runs = useApp((s) => (s.population ? populationRun(s)?.runs : undefined));
  const steps = useApp((s) => (s.population ? populationRun(s)?.steps : undefined) ?? s.config.steps);
  const untilPaused = useApp((s) => (s.population ? populationRun(s)?.untilPaused ?? s.untilPaused : s.untilPaused));
  const busy = useApp((s) => s.busy);
  const hub = useHub();
  useHubFrame();
  // a member's steps: its metrics on the charts, or (just resumed, before its first new step) its record's count
  const recorded = useApp((s) => JSON.stringify(Object.fromEntries((runs ?? []).filter((r) => r.runId).map((r) => [r.runId, s.runs.find((m) => m.id === r.runId)?.steps ?? 0]))));
  const floor: Record<string, number> = JSON.parse(recorded);
  const each = memberSteps(runs ?? [], (id) => { const x = hub.get(id); return Math.max(x && x.rows > 0 ? x.last('step') + 1 : 0, floor[id] ?? 0); });
  // one step number on the screen: the chosen member's (the task card and the transcripts show its steps too)
  const chosenId = useApp((s) => (s.population ? chosenMember(s)?.runId ?? null : null)); // an id: a selector's value must be stable
  const mine = each.find((m) => chosenId !== null && runs?.some((r) => r.runId === chosenId && r.label === m.label));
  // after a reload the run resumes from its members' last saved step: the status says that step, as the offer does
  const resumeAt = useApp((s) => (s.resumable?.members !== undefined && s.resumable.id === (s.population ? populationRun(s)?.id : undefined) ? s.resumable.step : null));
  const done = resumeAt ?? mine?.done ?? (each.length ? Math.min(...each.map((m) => m.done)) : 0);
  const title = each.map((m) => `${shortLabel(m.label)}: step ${m.done}`).join('\n');
  return (
    <p className="where" aria-live="polite" data-testid="run-where" data-lifecycle={lifecycle} title={title}>
      {mine && resumeAt === null ? <span data-testid="step-of">{shortLabel(mine.label)}: </span> : null}Step <strong data-testid="step-count">{done}</strong>{ofSteps(untilPaused, steps)} · <span data-testid="run-status">{busy ?? lifecycle}</span>
      {each.length > 0 && <span className="sr-only"> (a population of {size}: {each.map((m) => `${shortLabel(m.label)} at step ${m.done}`).join(', ')})</span>}
    </p>
  );
}

/**
 * Pause/Continue in the strip docked at the foot of a phone's screen, beside the lambda_tok slider, once the run has
 * started (from 641 px up Run's own buttons sit beside the chart): the run is paused without scrolling 2,000 px back up.
 */
export function DockRun() {
  const a = useAppStore().getState();
  const lifecycle = useApp((s) => lifecycleOf(s, s.trainer?.stepCount ?? 0));
  const running = useApp((s) => lifecycle === 'training' || s.status === 'running' || s.sweep?.status === 'running');
  const off = useApp((s) => s.trainer?.config == null || s.busy !== null || (s.taskDraft !== null && s.config.env !== 'custom'));
  if (lifecycle === 'idle' && !running) return null; // Start sits above (and brings the chart into view); once it trains, Pause is here
  const label = running ? 'Pause' : 'Continue';
  return <button type="button" className="dock-run" data-testid="dock-run" disabled={off} onClick={() => void (running ? a.pause() : a.start())}>{label}</button>;
}

export function RunButtons() {
  const id = useId();
  const status = useApp((s) => s.status);
  const ready = useApp((s) => s.trainer?.config != null);
  const busy = useApp((s) => s.busy);
  const runId = useApp((s) => s.runId);
  const steps = useApp((s) => s.config.steps);
  // the run's own count (a finished run that goes on has raised it), else the setup's
  const runTarget = useApp((s) => s.trainer?.config?.steps ?? s.config.steps);
  const evals = useApp((s) => s.trainer?.evals);
  const speed = useApp((s) => s.speed);
  const within = useApp((s) => s.stepWithin);
  const rule = useApp((s) => s.bestRule);
  const target = useApp((s) => s.bestTarget);
  const population = useApp((s) => s.population);
  const sweepRunning = useApp((s) => s.sweep?.status === 'running');
  const untilPaused = useApp((s) => s.untilPaused);
  const memberEvals = useApp((s) => { const m = s.population ? chosenMember(s) : null; return m ? s.runs.find((r) => r.id === m.runId)?.evals : undefined; });
  const loaded = useApp((s) => s.populationLoaded);
  const cpu = useApp((s) => s.backendChoice === 'cpu');
  const axis = useApp((s) => (s.config.lambdaMode === 'budget' ? 'B' : 'lambda_tok'));
  const warmSource = useApp((s) => s.trainer?.warmStart ?? null);
  const a = useAppStore().getState(); // actions only: they never change
  const hub = useHub();
  const pauseRef = useRef<HTMLButtonElement>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  useHubFrame();
  const series = runId ? hub.get(runId) : undefined;
  const done = series && series.rows > 0 ? series.last('step') + 1 : 0;
  const lifecycle = useApp((s) => lifecycleOf(s, done));
  // a population trains in workers of its own: Start and Pause follow it
  const running = lifecycle === 'training' || status === 'running' || sweepRunning;
  // "your task" chosen, its task not in use yet: nothing to start until Use (the relay behind the editor is not it)
  const taskPending = useApp((s) => s.taskDraft !== null && s.config.env !== 'custom');
  // your task stopped the run (a banner says which function): Continue and Step wait for a changed task
  const taskFailed = useApp((s) => s.trainer?.taskFailure != null);
  const off = !ready || busy !== null;
  const pick = bestBy(rule, target, (population ? memberEvals : evals) ?? []);
  // after Start the Start button is disabled: focus goes to Pause (and back after Pause), not to the page
  // on a phone the chart sits far below Start: bring it into view, so pressing Start visibly does something
  const start = async () => {
    await a.start();
    const chart = chartBelow();
    pauseRef.current?.focus({ preventScroll: chart !== null });
    chart?.scrollIntoView({ block: 'start' }); // at once: a smooth scroll is cut short when the page redraws under load
  };
  const pause = async () => { await a.pause(); startRef.current?.focus(); };
  return (
    <section aria-labelledby={`${id}-h`} className="run-buttons">
      <h2 id={`${id}-h`}>Run</h2>
      <div className="buttons">
        <button ref={startRef} id="start-button" data-control="start" type="button" className="primary" disabled={off || running || taskPending || taskFailed} aria-describedby={taskPending ? `${id}-no-task` : undefined} onClick={() => void start()}
          title={lifecycle === 'idle' ? undefined : 'goes on from where the run is, with what was changed meanwhile'}>{lifecycle === 'idle' ? 'Start' : 'Continue'}</button>
        <button ref={pauseRef} data-control="pause" type="button" disabled={off || !running} onClick={() => void pause()}>Pause</button>
        <button type="button" data-control="step" disabled={off || running || taskPending || taskFailed} onClick={() => void a.stepOnce()}>Step</button>
        <button type="button" data-control="reset" disabled={off} onClick={() => void a.reset()}>Reset</button>
        <button type="button" data-control="warmStart" disabled={off} onClick={() => void a.warmStart()}>Warm start</button>
      </div>
      {taskPending && <p id={`${id}-no-task`} className="population-note" data-testid="no-task">No task in use yet: Check it in the editor, then <strong>Use this task</strong>; Start trains it.</p>}
      {population && !taskPending && (
        <p className="population-note" data-testid="population-note" data-values={population.join(',')} data-loaded={loaded}>
          Start trains {population.length} runs side by side, one per {axis}: {population.join(', ')}{cpu && !sweepRunning && loaded > 0 ? ` (${loaded} of ${population.length} loaded)` : ''}.{' '}
          <button type="button" className="link" disabled={running} onClick={() => a.setPopulation(null)}>Train one run instead</button>
        </p>
      )}
      {population ? <PopulationWhere lifecycle={lifecycle} /> : (
        <p className="where" aria-live="polite" data-testid="run-where" data-lifecycle={lifecycle}>
          Step <strong data-testid="step-count">{done}</strong>{ofSteps(untilPaused, runTarget)} · <span data-testid="run-status">{busy ?? lifecycle}</span>
        </p>
      )}
      {/* which warm start the run began from: shipped (it fits the setting, e.g. any channel noise its range covers) or made here */}
      {warmSource && <p className="muted small" data-testid="warm-source">Warm start: {warmSource}</p>}
      <StepProgress running={running} done={done} within={within} lastStepMs={series && series.rows > 0 ? series.last('step_time_ms') : 0} />
      <details className="explain small" data-control="reset"><summary>Reset or Warm start?</summary>{EXPLAIN.resetVsWarm}</details>
      <div className="best">
        <div className="field wide" data-control="bestRule">
          <label htmlFor={`${id}-rule`}>Best</label>
          <select id={`${id}-rule`} value={rule} aria-describedby={`${id}-rule-says`} onChange={(e) => a.setBestRule(e.target.value as BestRule)}>
            {(Object.keys(BEST_RULE_LABELS) as BestRule[]).map((r) => <option key={r} value={r}>{BEST_RULE_LABELS[r]}</option>)}
          </select>
        </div>
        {rule === 'tokens' && (
          <div className="field">
            <label htmlFor={`${id}-target`}>Token target</label>
            <input id={`${id}-target`} type="number" min={0} max={1000} step="any" defaultValue={target} key={target}
              onBlur={(e) => a.setBestRule('tokens', Number(e.target.value))} onKeyDown={(e) => { if (e.key === 'Enter') a.setBestRule('tokens', Number((e.target as HTMLInputElement).value)); }} />
          </div>
        )}
        <div className="buttons" data-control="restoreBest">
          <button type="button" disabled={off || !pick} onClick={() => void a.restoreBest()} aria-describedby={`${id}-rule-says`}>Restore best</button>
        </div>
        <p id={`${id}-rule-says`} className="muted" data-testid="best-rule">
          {ruleSentence(rule, target)}{pick ? ` Now: step ${pick.step}, ${pct(pick.accuracy)} at ${fmt(pick.tokens)} tokens.` : ' No eval yet.'}
        </p>
      </div>
      <label className="until small" htmlFor={`${id}-until`}>
        <input id={`${id}-until`} type="checkbox" checked={untilPaused} disabled={off} onChange={(e) => void a.setUntilPaused(e.target.checked)} data-testid="until-paused" />
        {' '}train until paused (else to steps = {steps}, in Evaluation)
      </label>
      <fieldset className="speed" data-control="speed">
        <legend>Speed</legend>
        <label><input type="radio" name={`${id}-speed`} checked={speed === 'normal'} onChange={() => a.setSpeed('normal')} /> normal</label>
        <label><input type="radio" name={`${id}-speed`} checked={speed === 'fast'} onChange={() => a.setSpeed('fast')} /> fast (charts redraw once a second)</label>
      </fieldset>
    </section>
  );
}
