// The Sweep panel: pick lambda_tok values (or budgets in budget mode), run one
// run per value (side by side as a population when the page can spawn workers,
// else one after another in the training worker), watch where each run is, and
// see which final evals are on the frontier. The runs themselves are drawn on the
// accuracy-vs-tokens chart (their trails live, coloured by value); clicking a
// value overlays its run there, hovering it highlights its trail. A finished
// sweep offers the same values on a sister preset: both populations then draw
// their frontiers on the one chart.
import { noTokensReason } from './taskPicture';
import { useId } from 'react';
import { paretoFrontier } from '../rl/pareto';
import { defaultDraft, sweepAxisOf, type SweepRecord, type SweepRunRecord } from '../store/sweepSlice';
import { fmt, pct } from './labels';
import { useApp, useAppStore, useHub } from './storeContext';
import { SweepMembers } from './SweepMembers';
import { sistersOf } from './sisters';

interface SweepPoint { label: string; short: string; value: number; accuracy: number; tokens: number; runId: string }

const axisName = (axis: SweepRecord['axis']) => (axis === 'budget' ? 'B' : 'λ');

export function sweepPoints(s: SweepRecord): SweepPoint[] {
  return s.runs.filter((r): r is SweepRunRecord & { accuracy: number; tokens: number; runId: string } => r.status === 'done' && r.accuracy !== null && r.tokens !== null && r.runId !== null)
    .map((r) => ({ label: r.label, short: `${axisName(s.axis)}=${fmt(r.value)}`, value: r.value, accuracy: r.accuracy, tokens: r.tokens, runId: r.runId }));
}

/**
 * Before a sweep starts: about how long K runs of `steps` steps take side by side on `cores` cores,
 * from this run's recent step times (ms): each core trains K / cores members. Null without a step yet.
 */
export function sweepEstimate(recentStepMs: readonly number[], steps: number, K: number, cores: number): number | null {
  const xs = recentStepMs.filter((x) => Number.isFinite(x) && x > 0).sort((a, b) => a - b);
  if (xs.length === 0 || K < 1) return null;
  const median = xs[Math.floor(xs.length / 2)];
  return Math.round((median * steps * Math.max(1, K / Math.max(1, cores))) / 1000);
}

const duration = (s: number) => (s < 90 ? `${s} s` : `${Math.round(s / 60)} min`);

export function SweepPanel() {
  const id = useId();
  const stored = useApp((s) => s.sweep);
  const preset = useApp((s) => s.preset);
  // a finished (or stopped) sweep of another preset is not this setup's: it is named, not shown beside this preset's estimate
  const other = stored && stored.status !== 'running' && stored.preset !== preset ? stored : null;
  const sweep = other ? null : stored;
  const config = useApp((s) => s.config);
  const draft = useApp((s) => s.sweepDraft);
  const draftError = useApp((s) => s.sweepDraftError);
  const selected = useApp((s) => s.sweepSelected);
  const busy = useApp((s) => s.busy);
  const runs = useApp((s) => s.runs);
  // actions one by one: selecting the whole state would redraw the panel on every store change
  const setSweepDraft = useApp((s) => s.setSweepDraft);
  const runSweep = useApp((s) => s.runSweep);
  const clearSweep = useApp((s) => s.clearSweep);
  const selectSweepRun = useApp((s) => s.selectSweepRun);
  const sweepSister = useApp((s) => s.sweepSister);
  const setHoveredRun = useApp((s) => s.setHoveredRun);
  const population = useApp((s) => s.population);
  const untilPaused = useApp((s) => s.untilPaused);
  const layout = useApp((s) => s.sweepLayout);
  const axis = sweepAxisOf(config);
  const running = sweep?.status === 'running';
  const text = draft ?? (population ? population.join(', ') : defaultDraft(config));
  const points = sweep ? sweepPoints(sweep) : [];
  const front = paretoFrontier(points);
  const nameOf = (runId: string | null) => runs.find((r) => r.id === runId)?.name ?? null;
  const store = useAppStore();
  const hub = useHub();
  const runId = useApp((s) => s.runId);
  const cores = store.ctx.deps.population?.cores ?? 2;
  const K = draftError ? 0 : text.split(',').length; // the draft is checked by the store (sweepDraftError)
  const recent = (() => { const s = runId ? hub.get(runId) : undefined; if (!s || s.rows === 0) return []; const c = s.column('step_time_ms'); return Array.from(c.slice(Math.max(0, c.length - 10))); })();
  const estimate = !running && K > 0 ? sweepEstimate(recent, config.steps, K, cores) : null;
  const noTokens = useApp((s) => (sweepAxisOf(s.config) === 'budget' ? null : noTokensReason(s.preset, s.config.env))); // a one-role task: every run at 0 tokens

  return (
    <section aria-labelledby={`${id}-h`} className="sweep" data-control="sweep">
      <h2 id={`${id}-h`}>Sweep</h2>
      <p className="help">
        One run per value of {axis === 'budget' ? 'the budget B (lambda_tok set by the dual update)' : 'lambda_tok'}, each from the warm start with the setup
        above, {untilPaused ? 'training until paused' : `to its last step (${config.steps} steps)`}, all evaluated on the same held-out tasks. The frontier joins the last evals no other run beats on both accuracy and tokens.
      </p>
      {noTokens && <p className="small warn-text" data-testid="sweep-no-tokens">A lambda_tok sweep changes nothing here: {noTokens}.</p>}
      <div className={`field${draftError ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-v`}>{axis === 'budget' ? 'Budgets to sweep' : 'lambda_tok values to sweep'}</label>
        <input id={`${id}-v`} type="text" value={text} disabled={running} aria-invalid={draftError ? true : undefined}
          aria-describedby={draftError ? `${id}-err` : `${id}-vh`} onChange={(e) => setSweepDraft(e.target.value)} />
        <small id={`${id}-vh`} className="help">comma-separated, e.g. {defaultDraft(config)}</small>
        {draftError && <small id={`${id}-err`} role="alert" className="error">{draftError}</small>}
      </div>
      <div className="buttons">
        {!running && <button type="button" onClick={() => void runSweep()} disabled={busy !== null || draftError !== null}>Run sweep</button>}
        {sweep && !running && <button type="button" className="small" onClick={() => clearSweep()}>Clear sweep</button>}
      </div>
      {sweep && (
        <p role="status" data-testid="sweep-progress" data-status={sweep.status} data-done={sweep.runs.filter((r) => r.status === 'done').length}>
          {running
            ? `${sweep.runs.filter((r) => r.status === 'running').length} of ${sweep.runs.length} runs training at once; ${sweep.runs.filter((r) => r.status === 'done').length} finished.`
            : sweep.status === 'done' ? `Sweep done: ${sweep.runs.length} runs of ${sweep.preset}.`
            : `Sweep ${sweep.message === 'paused by you' || sweep.message === 'stopped by you' ? 'paused' : sweep.status === 'interrupted' ? 'interrupted by a reload' : `stopped${sweep.message ? `: ${sweep.message}` : ''}`}. ${sweep.runs.filter((r) => r.status === 'done').length} of ${sweep.runs.length} runs finished; Continue trains them on.`}
        </p>
      )}
      {other && (
        <p className="help" data-testid="sweep-other">
          The last sweep ({other.runs.length} run{other.runs.length === 1 ? '' : 's'} of {other.preset}, {other.status}) belongs to the preset {other.preset}; pick that preset to see it here again. Its runs stay in the Runs tab.{' '}
          <button type="button" className="small" onClick={() => clearSweep()}>Clear that sweep</button>
        </p>
      )}
      {sweep && layout && <p className="help" data-testid="sweep-layout">Trains as {layout}.</p>}
      {!running && K > 0 && (
        <p className="help" data-testid="sweep-estimate">
          {estimate !== null
            ? untilPaused ? `${K} runs side by side on ${cores} cores, training until paused: about ${duration(estimate)} for each ${config.steps} steps (from this run's step time).` : `About ${duration(estimate)} for ${K} runs of ${config.steps} steps side by side on ${cores} cores (from this run's step time).`
            : untilPaused ? `${K} runs side by side on ${cores} cores, training until paused; take a step of this run for a time estimate.` : `${K} runs of ${config.steps} steps side by side on ${cores} cores; take a step of this run for a time estimate.`}
          {config.env === 'relay' && config.channelNoise === 0 && axis === 'lambdaTok'
            ? ' On the clean relay the frontier is a cliff (any small lambda_tok buys all the compression); the noisy-channel presets (relay-noisy-dr) give a curve.'
            : ''}
        </p>
      )}
      {sweep && running && <SweepMembers sweep={sweep} />}
      {sweep && (
        <table className="sweep-runs">
          <caption className="sr-only">Runs of the sweep</caption>
          <thead><tr><th scope="col">{axisName(sweep.axis)}</th><th scope="col">status</th><th scope="col">accuracy</th><th scope="col">tokens</th><th scope="col">frontier</th></tr></thead>
          <tbody>
            {sweep.runs.map((r) => (
              <tr key={r.label} className={r.runId !== null && r.runId === selected ? 'selected' : undefined}
                onMouseEnter={r.runId ? () => setHoveredRun(r.runId) : undefined} onMouseLeave={r.runId ? () => setHoveredRun(null) : undefined}>
                <td>{r.runId
                  ? <button type="button" className="link" onClick={() => void selectSweepRun(r.runId!)} aria-label={`Show ${nameOf(r.runId) ?? r.label} on the charts`}>{fmt(r.value)}</button>
                  : fmt(r.value)}</td>
                <td>{r.status}</td>
                <td>{pct(r.accuracy)}</td>
                <td>{fmt(r.tokens)}</td>
                <td>{front.some((p) => p.runId === r.runId) ? '✓' : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sweep && (sweep.status === 'done' || sweep.status === 'stopped') && sistersOf(sweep.preset).length > 0 && (
        <div className="buttons sweep-sisters">
          {sistersOf(sweep.preset).map((x) => (
            <button key={x.preset} type="button" className="small" disabled={busy !== null} title={`Watch: ${x.watch}`} onClick={() => void sweepSister(x.preset)}>
              Same values on {x.preset} ({x.label}): two frontiers on one chart
            </button>
          ))}
        </div>
      )}
      {points.length > 0 && (
        <p className="help" data-testid="sweep-caption" data-points={points.length} data-frontier={front.length}>
          {points.length} final eval{points.length === 1 ? '' : 's'} on the accuracy-vs-tokens chart, {front.length} on the frontier (✓).
          {selected && nameOf(selected) ? ` Highlighted: ${nameOf(selected)}.` : ' Click a value to show its run on the charts.'}
        </p>
      )}
    </section>
  );
}
