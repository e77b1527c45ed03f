// The reward's weights. lambda_tok is a slider that applies at the next step;
// in budget mode the dual update moves it, and the slider follows (moving it
// by hand sets the value the dual update goes on from).
import { useEffect, useId, useRef, useState } from 'react';
import { fmt } from './labels';
import { ConfigField } from './ConfigField';
import { useApp, useHub, useHubFrame } from './storeContext';

const DEBOUNCE_MS = 150;

export function RewardControls() {
  const id = useId();
  const mode = useApp((s) => s.config.lambdaMode);
  const configured = useApp((s) => s.config.lambdaTok);
  const trainerLambda = useApp((s) => s.trainer?.lambdaTok);
  const runId = useApp((s) => s.runId);
  const error = useApp((s) => s.fieldErrors.lambdaTok);
  const setField = useApp((s) => s.setField);
  const hub = useHub();
  useHubFrame(); // re-render as telemetry arrives (budget mode moves the value)
  const [draft, setDraft] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);

  const fromRun = runId ? hub.get(runId)?.last('lambda_tok') : undefined;
  const live = mode === 'budget' ? (Number.isFinite(fromRun) ? fromRun! : trainerLambda ?? configured) : configured;
  const value = draft ?? live;
  const max = value > 1 ? 10 : 1;
  const onChange = (v: number) => {
    setDraft(v);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      void setField('lambdaTok', v).finally(() => setDraft((d) => (d === v ? null : d))); // a newer drag keeps its value
    }, DEBOUNCE_MS);
  };
  return (
    <section aria-labelledby={`${id}-h`} className="reward">
      <h2 id={`${id}-h`}>Reward</h2>
      <p className="formula">r = r_task − λ_tok·tokens − λ_turn·turns − λ_rep·repetition</p>
      <div className={`field slider${error ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-lt`}>lambda_tok</label>
        <input id={`${id}-lt`} type="range" min={0} max={max} step={0.005} value={value} aria-describedby={`${id}-lt-help`}
          aria-valuetext={fmt(value)} onChange={(e) => onChange(Number(e.target.value))} />
        <output htmlFor={`${id}-lt`} data-testid="lambda-tok-value">{fmt(value, 4)}</output>
        <small id={`${id}-lt-help`} className="help">
          {mode === 'budget' ? 'penalty per message token, set by the dual update toward the budget (it moves by itself)' : 'penalty per message token; applies at the next step'}
        </small>
        {error && <small role="alert" className="error">{error}</small>}
      </div>
      <ConfigField name="lambdaTurn" />
      <ConfigField name="lambdaRep" />
      <ConfigField name="lambdaMode" />
      {mode === 'budget' && (
        <>
          <ConfigField name="budget" />
          <ConfigField name="dualEta" />
          <ConfigField name="lambdaMax" />
        </>
      )}
    </section>
  );
}
