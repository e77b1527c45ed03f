// The anatomy of a step: one group of the last step with its G episodes, their
// rewards, the group mean and std, the advantages, each sequence's ratio, which
// were clipped, and the objective with these numbers. Every number comes from
// the worker (stepAnatomy); the page only writes them into the formulas.
import { useId, useState } from 'react';
import type { AnatomyEpisode, StepAnatomy as Anatomy } from '../worker/protocol';
import { fmt } from './labels';
import { useApp, useAppStore, usePanelRun, useThrottledEffect } from './storeContext';
import { shortLabel } from '../store/currentRun';

const f4 = (x: number) => fmt(x, 4);
/** Sequence-level variants show s_i; token-level ones rho_t (anatomies from before the loss table carry no level). */
const seqLevel = (a: Anatomy) => (a.level ? a.level === 'sequence' : a.algorithm === 'gspo');

function AdvantageFormula({ a, e }: { a: Anatomy; e: AnatomyEpisode }) {
  const r = e.reward.reward;
  if (a.zeroStd) return <p>Every reward in this group is equal, so there is no signal: A<sub>i</sub> = 0 for all {a.groupSize} episodes.</p>;
  if (a.advantageMode === 'none') return <p className="math">A<sub>i</sub> = r<sub>i</sub> − mean = {f4(r)} − {f4(a.mean)} = <strong>{f4(e.advantage)}</strong></p>;
  const sd = a.advantageMode === 'batch' ? a.batchStd : a.std;
  return (
    <p className="math">
      A<sub>i</sub> = (r<sub>i</sub> − mean) / ({a.advantageMode === 'batch' ? 'batch std' : 'std'} + {a.stdEps}) = ({f4(r)} − {f4(a.mean)}) / ({f4(sd)} + {a.stdEps}) = <strong>{f4(e.advantage)}</strong>
    </p>
  );
}

function ObjectiveFormula({ a, e }: { a: Anatomy; e: AnatomyEpisode }) {
  const lo = 1 - a.epsLow, hi = 1 + a.epsHigh, A = e.advantage;
  return (
    <>
      {e.sequences.map((s, i) => (
        <div key={i} className="math">
          {/* no count here: the episode's token count is the reward's (message tokens, EOS not counted); |y_i| below is the sequence's length */}
          <p>{s.role}: {s.tokens.join(' ')}</p>
          {seqLevel(a) ? (
            <>
              <p>log s<sub>i</sub> = (1/|y<sub>i</sub>|) Σ<sub>t</sub> (log π<sub>θ</sub> − log π<sub>old</sub>) = {fmt(s.logRatio, 5)}, so s<sub>i</sub> = {fmt(s.ratio, 6)} (|y<sub>i</sub>| = {s.length}: every sampled position, EOS included)</p>
              <p>
                L<sub>i</sub> = −min(s<sub>i</sub>·A<sub>i</sub>, clip(s<sub>i</sub>, 1−ε<sub>low</sub>, 1+ε<sub>high</sub>)·A<sub>i</sub>) = −min({fmt(s.ratio, 6)} × {f4(A)}, clip({fmt(s.ratio, 6)}, {fmt(lo, 6)}, {fmt(hi, 6)}) × {f4(A)}) = <strong>{fmt(s.loss, 5)}</strong>
                {s.clipped ? ' (clipped: no gradient from this sequence)' : ''}
              </p>
            </>
          ) : (
            <>
              <p>ρ<sub>t</sub> = π<sub>θ</sub>/π<sub>old</sub> per token: {s.tokenRatios.map((r) => fmt(r, 5)).join(', ')}</p>
              <p>
                L<sub>i</sub> = (1/|y<sub>i</sub>|) Σ<sub>t</sub> {a.termFormula ?? <>−min(ρ<sub>t</sub>·A<sub>i</sub>, clip(ρ<sub>t</sub>, {fmt(lo, 4)}, {fmt(hi, 4)})·A<sub>i</sub>)</>} = <strong>{fmt(s.loss, 5)}</strong>
                {s.clippedTokens > 0 ? ` (${s.clippedTokens} token${s.clippedTokens > 1 ? 's' : ''} clipped)` : ''}
              </p>
            </>
          )}
          {s.termsText && <p>{s.termsText}</p>}
        </div>
      ))}
    </>
  );
}

export function StepAnatomy() {
  const id = useId();
  const anatomy = useApp((s) => s.anatomy);
  const error = useApp((s) => s.anatomyError);
  const group = useApp((s) => s.anatomyGroup);
  const { runId, label, steps: stepCount } = usePanelRun();
  const held = useApp((s) => s.panelMember?.label ?? null);
  const fast = useApp((s) => s.speed === 'fast');
  const store = useAppStore();
  const [picked, setPicked] = useState(0);
  const groups = anatomy?.groups ?? store.getState().config.promptsPerStep;
  // DAPO's overlong shaping in force at that step: the reward lines show its term
  const overlong = (anatomy?.weights.overlongCache ?? 0) > 0;
  // follows the run (a forward pass in the worker each time): at most every 2 s, not in fast mode
  const [chosen, setChosen] = useState(false); // the person picked a group: keep it; else open one with a learning signal
  useThrottledEffect(() => { if (stepCount > 0) void store.getState().loadAnatomy(Math.min(group, Math.max(0, groups - 1)), !chosen); }, `${runId}:${stepCount}`, 2000, !fast);
  const signal = anatomy?.signal;
  const e = anatomy?.episodes[Math.min(picked, (anatomy?.episodes.length ?? 1) - 1)];
  return (
    <section aria-label="Anatomy of a step" className="anatomy">
      <div className="row">
        <div className="field wide">
          <label htmlFor={`${id}-g`}>Group</label>
          <select id={`${id}-g`} value={group} aria-describedby={`${id}-g-help`} onChange={(ev) => { setPicked(0); setChosen(true); void store.getState().loadAnatomy(Number(ev.target.value)); }}>
            {Array.from({ length: groups }, (_, g) => <option key={g} value={g}>{g + 1} of {groups}{signal ? (signal[g] ? ' · signal' : ' · no signal') : ''}{anatomy?.inLoss && !anatomy.inLoss[g] ? ' · left the loss' : ''}</option>)}
          </select>
          {signal && <small id={`${id}-g-help`} className="help">{signal.filter(Boolean).length} of {signal.length} groups have a learning signal (rewards not all equal); the others have std 0 and give no gradient.</small>}
        </div>
        <button type="button" onClick={() => void store.getState().loadAnatomy(group)}>Refresh</button>
      </div>
      {label !== null && <p className="member-shown" data-testid="anatomy-member">Member <strong>{shortLabel(held ?? label)}</strong> of the population (choose another under the lambda_tok slider or on the chart).</p>}
      {stepCount === 0 && <p className="muted">{label !== null ? 'This member has not finished a step yet.' : 'Take a step first (Step or Start).'}</p>}
      {error && <p role="alert" className="error">{error}</p>}
      {anatomy && (
        <>
          <p>
            Step {anatomy.step + 1}, group {anatomy.group + 1}{anatomy.zeroStd ? ' (no signal)' : ''}{anatomy.inLoss ? (anatomy.inLoss[anatomy.group] ? ' (in the loss: dynamic sampling kept it)' : ` (left the loss: dynamic sampling ${anatomy.zeroStd ? 'drops groups whose rewards are all equal' : 'trains the first P groups with signal, and this one came after them'})`) : ''}: one task played G = {anatomy.groupSize} times ({anatomy.algorithm.toUpperCase()}, advantage mode {anatomy.advantageMode}).
            Rewards r = {anatomy.episodes[0]?.rEnvName ?? 'r_task'} − {fmt(anatomy.weights.lambdaTok, 4)}·tokens{anatomy.weights.lambdaTurn ? ` − ${fmt(anatomy.weights.lambdaTurn)}·turns` : ''}{anatomy.weights.lambdaRep ? ` − ${fmt(anatomy.weights.lambdaRep)}·repetition` : ''}{overlong ? ` − ${fmt(anatomy.weights.overlongPenalty ?? 0)}·overlong (DAPO's soft punishment: per message turn, 0 up to L_max − ${anatomy.weights.overlongCache} tokens, then linear to 1 at the turn's limit)` : ''}.
            Group mean {f4(anatomy.mean)}, std {f4(anatomy.std)}.
          </p>
          <div className="anatomy-wrap">
          <table className="anatomy-table">
            <thead>
              {/* short headers (full names on hover) and the generated text on a row of its own: the numbers fit the inspector's width */}
              <tr>
                <th scope="col">#</th><th scope="col" title="the task's reward">r_task</th><th scope="col" title="message tokens, as the reward counts them (EOS not counted)">tokens</th>
                <th scope="col" title="reward">r<sub>i</sub></th><th scope="col" title="advantage">A<sub>i</sub></th>
                <th scope="col" title={seqLevel(anatomy) ? 'sequence ratio' : 'mean token ratio'}>{seqLevel(anatomy) ? <>s<sub>i</sub></> : 'mean ρ_t'}</th>
                <th scope="col">clipped</th><th scope="col" title="the sequence's loss">L<sub>i</sub></th>
              </tr>
            </thead>
            {anatomy.episodes.map((ep, i) => (
              <tbody key={ep.episode} className={i === picked ? 'picked' : ''} onClick={() => setPicked(i)}>
                <tr>
                  <td rowSpan={2}><button type="button" className="link" aria-pressed={i === picked} aria-label={`Episode ${i + 1}`} onClick={() => setPicked(i)}>{i + 1}</button></td>
                  <td>{fmt(ep.reward.rTask)}</td>
                  <td>{ep.reward.tokens}</td>
                  <td>{f4(ep.reward.reward)}</td>
                  <td>{f4(ep.advantage)}</td>
                  <td>{ep.sequences.map((s, k) => <div key={k}>{fmt(s.ratio, 6)}</div>)}</td>
                  <td>{ep.sequences.map((s, k) => <div key={k}>{s.clipped ? (!seqLevel(anatomy) ? `${s.clippedTokens} tok` : 'yes') : 'no'}</div>)}</td>
                  <td>{ep.sequences.map((s, k) => <div key={k}>{fmt(s.loss, 4)}</div>)}</td>
                </tr>
                <tr className="generated"><td colSpan={7}>{ep.sequences.map((s) => `${s.role}: ${s.tokens.join(' ')}`).join(' | ')}</td></tr>
              </tbody>
            ))}
          </table>
          </div>
          {e && (
            <div className="formulas" aria-label={`Formulas for episode ${picked + 1}`}>
              <h4>Episode {picked + 1} in the formulas</h4>
              <p className="math">r<sub>i</sub> = {e.rEnvName}{e.terms ? ` (${Object.entries(e.terms).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')})` : ''} − λ_tok × tokens{anatomy.weights.lambdaTurn ? ' − λ_turn × turns' : ''}{anatomy.weights.lambdaRep ? ' − λ_rep × repetition' : ''}{overlong ? ' − overlongPenalty × overlong' : ''}</p>
              <p className="math">r<sub>i</sub> = {fmt(e.rEnv, 4)} − {fmt(anatomy.weights.lambdaTok, 4)} × {e.reward.tokens}{anatomy.weights.lambdaTurn ? ` − ${fmt(anatomy.weights.lambdaTurn)} × ${e.reward.turns}` : ''}{anatomy.weights.lambdaRep ? ` − ${fmt(anatomy.weights.lambdaRep)} × ${e.reward.repetition}` : ''}{overlong ? ` − ${fmt(anatomy.weights.overlongPenalty ?? 0)} × ${fmt(e.reward.overlong ?? 0, 4)}` : ''} = <strong>{f4(e.reward.reward)}</strong></p>
              <AdvantageFormula a={anatomy} e={e} />
              <ObjectiveFormula a={anatomy} e={e} />
            </div>
          )}
          <p className="muted">{anatomy.ratioNote} {anatomy.aggregationNote ?? <>L is the mean of L<sub>i</sub> over every sequence of the minibatch;</>} The optimizer follows its gradient.</p>
        </>
      )}
    </section>
  );
}
