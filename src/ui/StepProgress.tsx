// Progress inside a long step (a software GPU or the CPU can take many
// seconds per step): the worker's count of minibatch updates made (after the
// rollout) when it reports one, else the time since the last step ended
// against how long that step took (an estimate, said as one). Shown only for
// steps over 2 s. Pause takes effect at the next minibatch.
import type { StepWithin } from '../worker/protocol';
import { useEffect, useRef, useState } from 'react';

const LONG_MS = 2000;

/** The share of a step done by the clock (capped below 1: the estimate never claims the step is over). */
export function stepShare(elapsedMs: number, lastStepMs: number): number {
  if (!(lastStepMs > 0)) return 0;
  return Math.min(0.95, Math.max(0, elapsedMs / lastStepMs));
}

export function StepProgress({ running, done, lastStepMs, within = null }: { running: boolean; done: number; lastStepMs: number; within?: StepWithin | null }) {
  const since = useRef({ done, at: Date.now() });
  const [now, setNow] = useState(() => Date.now());
  if (since.current.done !== done) since.current = { done, at: Date.now() };
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [running]);
  if (!running) return null;
  if (within && within.step === done) {
    return (
      <p className="step-progress" data-testid="step-progress">
        <progress max={within.of} value={within.done} aria-label={`Step ${done + 1} in progress`} />{' '}
        <small className="muted">step {done + 1}: episodes played; {within.done} of {within.of} minibatch updates made. Pause stops at the next minibatch.</small>
      </p>
    );
  }
  if (!(lastStepMs > LONG_MS)) return null;
  const elapsed = Math.max(0, now - since.current.at);
  return (
    <p className="step-progress" data-testid="step-progress">
      <progress max={1} value={stepShare(elapsed, lastStepMs)} aria-label={`Step ${done + 1} in progress`} />{' '}
      <small className="muted">step {done + 1}: {(elapsed / 1000).toFixed(0)} s so far; the last took {(lastStepMs / 1000).toFixed(0)} s (playing the episodes). Pause stops at the next minibatch update.</small>
    </p>
  );
}
