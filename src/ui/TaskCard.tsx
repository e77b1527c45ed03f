// The task in brief, beside the chart: who the agents are, what each knows,
// what passes between them, what is rewarded (taskPicture, from the run's
// config), and one example episode of the current policy (the last step's
// first sampled episode) with its tokens and reward; while a population
// trains, the episode of one of its members (the hovered one, else the first).
import { useId } from 'react';
import type { EpisodeTranscript } from '../worker/protocol';
import { fmt } from './labels';
import { useApp } from './storeContext';
import { shortLabel, chosenMember } from '../store/currentRun';
import { noTokensReason, taskPicture } from './taskPicture';
import { TokenChips } from './TokenChips';

function Example({ ep, step, of }: { ep: EpisodeTranscript; step: number; of?: string }) {
  return (
    <div className="task-example" data-testid="task-example">
      <h3>Now, one episode of {of ? `${shortLabel(of)}'s step ${step + 1}` : `step ${step + 1}`}</h3>
      <ol className="lines">
        {ep.turns.map((t, i) => (
          <li key={i}><span className="role">{t.role}{ep.turns.some((u) => u.role === t.role && u !== t && u.turn === t.turn) ? ` ${t.agent}` : ''}</span> <TokenChips turn={t} /></li>
        ))}
      </ol>
      <p className="muted">{ep.score.rTask >= 0.5 ? 'right' : 'wrong'} (r_task {fmt(ep.score.rTask)}) · {ep.reward.tokens} token{ep.reward.tokens === 1 ? '' : 's'} · reward {fmt(ep.reward.reward, 3)}</p>
    </div>
  );
}

export function TaskCard() {
  const id = useId();
  const config = useApp((s) => s.config);
  const own = useApp((s) => s.transcripts?.train ?? null);
  // a population's chosen member's episode (kept when it pauses or finishes); the lone run's own
  const isPopulation = useApp((s) => s.population !== null);
  const chosen = useApp((s) => (s.population ? chosenMember(s)?.runId ?? null : null));
  const member = useApp((s) => (s.population && s.sweepExample?.runId === chosen ? s.sweepExample : null));
  const example = member?.transcripts.train ?? (isPopulation ? null : own);
  const population = useApp((s) => s.population);
  const p = taskPicture(config, population);
  const noTokens = useApp((s) => noTokensReason(s.preset, s.config.env));
  const ep = example?.episodes[0];
  return (
    <section className="task-card" aria-labelledby={`${id}-h`} data-testid="task-card" data-control="taskCard">
      <details open>
        <summary><span id={`${id}-h`}>The task: {p.title}</span></summary>
        <dl>
          {p.agents.map((a) => (
            <div key={a.name}>
              <dt>{a.name}:</dt>
              <dd> knows {a.knows}; {a.does}.</dd>
            </div>
          ))}
          {p.channel && <div><dt>Between them:</dt><dd> {p.channel}.</dd></div>}
          <div><dt>Reward:</dt><dd> {p.reward}.</dd></div>
          <div data-testid="accuracy-meaning"><dt>Eval accuracy:</dt><dd> {p.accuracy.long}.</dd></div>
        </dl>
        {noTokens && <p className="small warn-text" data-testid="no-tokens">No tokens to charge: {noTokens}.</p>}
        {ep ? <Example ep={ep} step={example!.step} of={member?.transcripts.train ? member.label : undefined} /> : <p className="muted">Press Step or Start to see an episode of the current policy here.</p>}
      </details>
    </section>
  );
}
