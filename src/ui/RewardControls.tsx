// The reward's weights. lambda_tok is a slider that applies at the next step;
// in budget mode the dual update moves it, and the slider follows (moving it
// by hand sets the value the dual update goes on from).
import { useEffect, useId, useRef, useState } from 'react';
import { fmt } from './labels';
import { ConfigField } from './ConfigField';
import { RecipeNote } from './RecipeNote';
import { EXPLAIN } from './explain';
import { useApp, useHub, useHubFrame } from './storeContext';
import { chosenMember, lambdaSetting, shortLabel } from '../store/currentRun';
import { MemberChips } from './MemberChips';
import { DockRun } from './RunButtons';
import { usePhone } from './usePhone';
import { noTokensReason } from './taskPicture';

/** Keys pressed within this of each other are one change (a drag is one change, applied on release). */
export const SETTLE_MS = 500;
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
  const noTokens = useApp((s) => noTokensReason(s.preset, s.config.env)); // a one-role task: the slider has nothing to act on
  const phone = usePhone(); // Start/Pause beside the docked slider: on a phone only (elsewhere Run's own sit beside the chart)
  const hub = useHub();
  useHubFrame(); // re-render as telemetry arrives (budget mode moves the value)
  const [draft, setDraft] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);

  // a population's slider is its chosen member's (chosen with the chips below or on the chart; hovering never moves it)
  const memberId = useApp((s) => (s.population ? chosenMember(s)?.runId ?? null : null));
  const memberLabel = useApp((s) => (s.population ? chosenMember(s)?.label ?? null : null));
  // the member's setting: its last live change, else its config (not the last step's value, which lags a change by a step)
  const memberSetting = useApp((s) => {
    const m = memberId ? s.runs.find((r) => r.id === memberId) : undefined;
    return m ? lambdaSetting(m) : null;
  });
  const setMemberField = useApp((s) => s.setMemberField);
  const setPopulation = useApp((s) => s.setPopulation);
  const setFieldError = useApp((s) => s.setFieldError);
  // before Start a population's slider is its first member's value: Start trains what it shows
  const before = population && memberId === null && mode !== 'budget' ? population : null;
  const fromRun = runId ? hub.get(runId)?.last('lambda_tok') : undefined;
  const live = memberId ? memberSetting ?? configured : before ? before[0] : mode === 'budget' ? (Number.isFinite(fromRun) ? fromRun! : trainerLambda ?? configured) : configured;
  const value = draft ?? live;
  const max = value > 1 ? 10 : 1;
  // a drag (or a burst of keys) is bound to the member it began on, from press to release, whatever is chosen meanwhile
  const bound = useRef<string | null>(null);
  const dragging = useRef(false);
  const bind = () => { bound.current = memberId; };
  const unbind = () => { if (!timer.current && !dragging.current) bound.current = null; };
  /** One live change: the value the slider landed on, to the member it was bound to (or the population before Start, or the run). */
  const commit = (v: number) => {
    if (timer.current) { clearTimeout(timer.current); timer.current = null; }
    const target = bound.current ?? memberId;
    let applied: Promise<unknown>;
    if (target) applied = setMemberField(target, 'lambdaTok', String(v));
    else if (before) {
      if (before.slice(1).includes(v)) { setFieldError('lambdaTok', `another member of the population already trains lambda_tok ${v}`); applied = Promise.resolve(); }
      else { setFieldError('lambdaTok', null); setPopulation([v, ...before.slice(1)]); applied = Promise.resolve(); }
    } else applied = setField('lambdaTok', v);
    // the draft stays until the setting it was sent as is in the store (no jump back to the old value meanwhile)
    void applied.finally(() => { setDraft((d) => (d === v ? null : d)); if (!timer.current && !dragging.current) bound.current = null; });
  };
  const onChange = (v: number) => {
    setDraft(v);
    if (timer.current) clearTimeout(timer.current);
    if (dragging.current) return; // a drag applies once, on release
    timer.current = setTimeout(() => commit(v), SETTLE_MS);
  };
  const release = (el: HTMLInputElement) => {
    if (!dragging.current) return;
    dragging.current = false;
    const v = Number(el.value);
    if (v !== live) commit(v); else { setDraft(null); unbind(); }
  };
  return (
    <section aria-labelledby={`${id}-h`} className="reward">
      <h2 id={`${id}-h`}>Reward</h2>
      <p className="formula">r = r_task − λ_tok·tokens − λ_turn·turns − λ_rep·repetition</p>
      <div className={`field slider${error ? ' has-error' : ''}`}>
        <label htmlFor={`${id}-lt`} className="one-line" data-control="lambdaTok">lambda_tok{memberLabel !== null && <span data-testid="lambda-member" data-run-id={memberId ?? ''}> of {shortLabel(memberLabel)}</span>}</label>
        <input id={`${id}-lt`} data-control="lambdaTok" type="range" min={0} max={max} step={LAMBDA_STEP} value={value} disabled={noTokens !== null} aria-describedby={`${id}-lt-help${error ? ` ${id}-lt-error` : ''}`}
          aria-valuetext={fmt(value)} aria-invalid={error ? true : undefined} onChange={(e) => onChange(Number(e.target.value))}
          onPointerDown={() => { bind(); dragging.current = true; }} onPointerUp={(e) => release(e.currentTarget)} onPointerCancel={(e) => release(e.currentTarget)}
          onKeyUp={unbind} onBlur={(e) => { release(e.currentTarget); unbind(); }}
          onKeyDown={(e) => { if (bound.current === null) bind(); const v = lambdaAfterKey(e.key, value, max); if (v !== null) { e.preventDefault(); onChange(v); } }} />
        <output htmlFor={`${id}-lt`} data-control="lambdaTok" data-testid="lambda-tok-value">{fmt(value, 4)}</output>
        {phone && <DockRun />}
        <small id={`${id}-lt-help`} className="help" data-control="lambdaTok">
          {noTokens !== null ? `Off: ${noTokens}` : mode === 'budget' ? 'penalty per message token, set by the dual update toward the budget (it moves by itself)' : memberLabel !== null ? `changes ${shortLabel(memberLabel)} only, from its next step; choose the member below or on the chart (the Sweep panel changes them all)` : before ? `the first member's value: Start trains ${before.length} runs at ${before.join(', ')}` : 'penalty per message token; applies at the next step'}

        </small>
        {error && <small id={`${id}-lt-error`} role="alert" className="error">{error}</small>}
        <MemberChips />
      </div>
      <p className="explain small" data-control="lambdaTok">{EXPLAIN.lambda}</p>
      <div data-control="rewardWeights">
        <RecipeNote />
        <ConfigField name="lambdaTurn" />
        <ConfigField name="lambdaRep" />
        <ConfigField name="overlongCache" />
        <ConfigField name="overlongPenalty" />
      </div>
      <div data-control="budget">
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
      </div>
    </section>
  );
}
