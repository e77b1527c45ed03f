// The reward's weights. lambda_tok is a slider that applies at the next step;
// in budget mode the dual update moves it, and the slider follows (moving it
// by hand sets the value the dual update goes on from).
import { useEffect, useId, useRef, useState } from 'react';
import { fmt } from './labels';
import { ConfigField } from './ConfigField';
import { RecipeNote } from './RecipeNote';
import { EXPLAIN } from './explain';
import { useApp, useHub, useHubFrame } from './storeContext';
import { shownMember } from '../store/sweepPopulation';

const DEBOUNCE_MS = 150;
/** The slider's step, and PageUp/PageDown's (a person can land on 0.05 or 0.3 exactly). */
export const LAMBDA_STEP = 0.01;
export const LAMBDA_PAGE = 0.1;

/** The value a key moves the slider to (null: not ours; the arrows are the browser's, by LAMBDA_STEP). */
export function lambdaAfterKey(key: string, value: number, max: number): number | null {
  const snap = (v: number) => Math.min(max, Math.max(0, Math.round(v * 100) / 100));
  if (key === 'PageUp') return snap(value + LAMBDA_PAGE);
  if (key === 'PageDown') return snap(value - LAMBDA_PAGE);
  return null;
}

export function RewardControls() {
  const id = useId();
  const mode = useApp((s) => s.config.lambdaMode);
  const configured = useApp((s) => s.config.lambdaTok);
  const trainerLambda = useApp((s) => s.trainer?.lambdaTok);
  const runId = useApp((s) => s.runId);
  const error = useApp((s) => s.fieldErrors.lambdaTok);
  const population = useApp((s) => s.population);
  const setField = useApp((s) => s.setField);
  const hub = useHub();
  useHubFrame(); // re-render as telemetry arrives (budget mode moves the value)
  const [draft, setDraft] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);

  // while a population trains the slider is one member's (the picked one, else the first: hovering a trail to reach
  // the slider would change it on the way), said beside it before it is moved
  const memberId = useApp((s) => shownMember(s, false)?.runId ?? null);
  const memberLabel = useApp((s) => shownMember(s, false)?.label ?? null);
  const setMemberField = useApp((s) => s.setMemberField);
  const followed = memberId ?? runId;
  const fromRun = followed ? hub.get(followed)?.last('lambda_tok') : undefined;
  const live = mode === 'budget' || memberId ? (Number.isFinite(fromRun) ? fromRun! : trainerLambda ?? configured) : configured;
  const value = draft ?? live;
  const max = value > 1 ? 10 : 1;
  const onChange = (v: number) => {
    setDraft(v);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      const applied = memberId ? setMemberField(memberId, 'lambdaTok', String(v)) : setField('lambdaTok', v);
      void applied.finally(() => setDraft((d) => (d === v ? null : d))); // a newer drag keeps its value
    }, DEBOUNCE_MS);
  };
  return (
    <section aria-labelledby={`${id}-h`} className="reward">
      <h2 id={`${id}-h`}>Reward</h2>
      <p className="formula">r = r_task − λ_tok·tokens − λ_turn·turns − λ_rep·repetition</p>
      <div className={`field slider${error ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-lt`}>lambda_tok{memberLabel !== null && <span data-testid="lambda-member"> of member {memberLabel}</span>}</label>
        <input id={`${id}-lt`} type="range" min={0} max={max} step={LAMBDA_STEP} value={value} aria-describedby={`${id}-lt-help${error ? ` ${id}-lt-error` : ''}`}
          aria-valuetext={fmt(value)} aria-invalid={error ? true : undefined} onChange={(e) => onChange(Number(e.target.value))}
          onKeyDown={(e) => { const v = lambdaAfterKey(e.key, value, max); if (v !== null) { e.preventDefault(); onChange(v); } }} />
        <output htmlFor={`${id}-lt`} data-testid="lambda-tok-value">{fmt(value, 4)}</output>
        <small id={`${id}-lt-help`} className="help">
          {mode === 'budget' ? 'penalty per message token, set by the dual update toward the budget (it moves by itself)' : memberLabel !== null ? `moving it changes member ${memberLabel} only, from its next step (choose another in the Sweep panel, which can also change them all)` : 'penalty per message token; applies at the next step'}
          {memberLabel !== null && mode !== 'budget' ? '' : population && mode !== 'budget' ? ` (of one run; Start's population has its own: ${population.join(', ')}; a live change to them is in the Sweep panel)` : ''}
        </small>
        {error && <small id={`${id}-lt-error`} role="alert" className="error">{error}</small>}
      </div>
      <p className="explain small">{EXPLAIN.lambda}</p>
      <RecipeNote />
      <ConfigField name="lambdaTurn" />
      <ConfigField name="lambdaRep" />
      <ConfigField name="overlongCache" />
      <ConfigField name="overlongPenalty" />
      <ConfigField name="lambdaMode" />
      {mode !== 'budget' && (
        <>
          <ConfigField name="lambdaStart" />
          <ConfigField name="lambdaHold" />
        </>
      )}
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
