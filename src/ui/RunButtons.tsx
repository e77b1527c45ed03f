// Start, Pause, Step, Reset, Warm start (and Restore best once there is an
// eval); speed normal/fast; where the run stands, read live from telemetry.
import { useId } from 'react';
import { useApp, useAppStore, useHub, useHubFrame } from './storeContext';

export function RunButtons() {
  const id = useId();
  const status = useApp((s) => s.status);
  const ready = useApp((s) => s.trainer?.config != null);
  const busy = useApp((s) => s.busy);
  const runId = useApp((s) => s.runId);
  const steps = useApp((s) => s.config.steps);
  const hasEval = useApp((s) => (s.trainer?.evals.length ?? 0) > 0);
  const speed = useApp((s) => s.speed);
  const a = useAppStore().getState(); // actions only: they never change
  const hub = useHub();
  useHubFrame();
  const series = runId ? hub.get(runId) : undefined;
  const done = series && series.rows > 0 ? series.last('step') + 1 : 0;
  const running = status === 'running';
  const off = !ready || busy !== null;
  return (
    <section aria-labelledby={`${id}-h`} className="run-buttons">
      <h2 id={`${id}-h`}>Run</h2>
      <div className="buttons">
        <button type="button" className="primary" disabled={off || running} onClick={() => void a.start()}>Start</button>
        <button type="button" disabled={off || !running} onClick={() => void a.pause()}>Pause</button>
        <button type="button" disabled={off || running} onClick={() => void a.stepOnce()}>Step</button>
        <button type="button" disabled={off} onClick={() => void a.reset()}>Reset</button>
        <button type="button" disabled={off} onClick={() => void a.warmStart()}>Warm start</button>
        <button type="button" disabled={off || !hasEval} onClick={() => void a.restoreBest()}>Restore best</button>
      </div>
      <p className="where" aria-live="polite" data-testid="run-where">
        Step <strong data-testid="step-count">{done}</strong> of {steps} · <span data-testid="run-status">{busy ?? status}</span>
      </p>
      <fieldset className="speed">
        <legend>Speed</legend>
        <label><input type="radio" name={`${id}-speed`} checked={speed === 'normal'} onChange={() => a.setSpeed('normal')} /> normal</label>
        <label><input type="radio" name={`${id}-speed`} checked={speed === 'fast'} onChange={() => a.setSpeed('fast')} /> fast (charts redraw once a second)</label>
      </fieldset>
    </section>
  );
}
