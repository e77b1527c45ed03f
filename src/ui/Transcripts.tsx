// Transcripts of the last step (sampled) and the last eval (greedy): who said
// what, silence shown as silence, multi-line text in monospace, every
// generated token coloured by its log-prob; filter success / failure / silent.
import { useId, useState } from 'react';
import type { EpisodeTranscript, TranscriptTurn } from '../worker/protocol';
import { fmt } from './labels';
import { LogpLegend, TokenChips } from './TokenChips';
import { useApp, useAppStore, usePanelRun, useThrottledEffect } from './storeContext';
import { shortLabel } from '../store/currentRun';

type Filter = 'all' | 'success' | 'failure' | 'silent';
const success = (e: EpisodeTranscript) => e.score.rTask >= 0.5;
const silent = (e: EpisodeTranscript) => e.turns.some((t) => t.silent);

/** Generated lines pair with generated turns role by role when the env renders one line per turn. */
function pairsByRole(ep: EpisodeTranscript): boolean {
  const count = (xs: string[]) => xs.reduce((m, r) => m.set(r, (m.get(r) ?? 0) + 1), new Map<string, number>());
  const a = count(ep.lines.filter((l) => l.generated).map((l) => l.role)), b = count(ep.turns.map((t) => t.role));
  return a.size === b.size && [...a].every(([r, n]) => b.get(r) === n);
}

/** Why a failure can be pushed up (or a success down): the advantage compares the episode with its group, not with success. */
export function advantageNote(ok: boolean, advantage: number, reward: number): string | null {
  if (!ok && advantage > 0) return `Failed, yet its advantage is positive: its group's mean reward was lower than this episode's ${fmt(reward)}, so the update makes it more likely.`;
  if (ok && advantage < 0) return `Succeeded, yet its advantage is negative: its group's mean reward was higher than this episode's ${fmt(reward)} (others did better, e.g. the same success with fewer tokens), so the update makes it less likely.`;
  return null;
}

function AdvantageNote({ ok, advantage, reward }: { ok: boolean; advantage: number; reward: number }) {
  const note = advantageNote(ok, advantage, reward);
  return note ? <p className="advantage-note" data-testid="advantage-note">{note}</p> : null;
}

function Episode({ ep }: { ep: EpisodeTranscript }) {
  // the k-th generated line of a role is the k-th generated turn of that role (when the env renders one line per turn)
  const paired = pairsByRole(ep);
  const seen = new Map<string, number>();
  const turnOf = (role: string): TranscriptTurn | undefined => {
    const k = seen.get(role) ?? 0;
    seen.set(role, k + 1);
    return ep.turns.filter((t) => t.role === role)[k];
  };
  const tags = [success(ep) ? 'success' : 'failure', ...(silent(ep) ? ['silent'] : [])];
  return (
    <details className={`episode ${tags.join(' ')}`}>
      <summary>
        Episode {ep.episode + 1}{ep.group !== undefined ? ` · group ${ep.group + 1}` : ''} · {tags.join(', ')} · {ep.reward.tokens} token{ep.reward.tokens === 1 ? '' : 's'} · reward {fmt(ep.reward.reward)}{ep.advantage !== undefined ? ` · advantage ${fmt(ep.advantage, 3)}` : ''}{ep.advantage !== undefined && !success(ep) && ep.advantage > 0 ? " (its group's mean reward was lower)" : ''}
      </summary>
      <ol className="lines">
        {ep.lines.map((l, i) => {
          const turn = l.generated && paired ? turnOf(l.role) : undefined;
          return (
            <li key={i} className={l.generated ? 'generated' : 'context'}>
              <span className="role">{l.role}{l.generated ? ' (generated)' : ''}</span>
              {turn && <TokenChips turn={turn} />}
              {l.text.includes('\n') ? <pre>{l.text}</pre> : <code className="text">{l.text}</code>}
            </li>
          );
        })}
      </ol>
      {!paired && ep.turns.length > 0 && (
        <>
          <p className="muted">The sampled tokens, turn by turn:</p>
          <ol className="lines">
            {ep.turns.map((t, i) => (
              <li key={i} className="generated"><span className="role">{t.role} {t.agent} · turn {t.turn}</span><TokenChips turn={t} /></li>
            ))}
          </ol>
        </>
      )}
      {ep.advantage !== undefined && <AdvantageNote ok={success(ep)} advantage={ep.advantage} reward={ep.reward.reward} />}
      <p className="muted">r_task {fmt(ep.score.rTask)} · tokens {ep.reward.tokens} · turns {ep.reward.turns} · repetition {ep.reward.repetition} · reward {fmt(ep.reward.reward, 4)}</p>
    </details>
  );
}

/** What the list shows, truthfully: a sample of the step's episodes (steps count from 1), and how many pass the filter. */
export function transcriptCount(which: 'train' | 'eval', block: { step: number; episodes: unknown[]; total?: number }, shown: number, filter: Filter): string {
  const total = block.total ?? block.episodes.length;
  const where = which === 'train' ? `step ${block.step + 1} (sampled)` : `the eval at step ${block.step} (greedy)`;
  const sample = `${block.episodes.length} of ${total} episodes of ${where}`;
  return filter === 'all' ? `Showing ${sample}.` : `${shown} ${filter} among ${sample}.`;
}

export function Transcripts() {
  const id = useId();
  const transcripts = useApp((s) => s.transcripts);
  const { runId, label, steps } = usePanelRun();
  const held = useApp((s) => s.panelMember?.label ?? null); // whose transcripts the store holds now
  const fast = useApp((s) => s.speed === 'fast');
  const store = useAppStore();
  const [which, setWhich] = useState<'train' | 'eval'>('train');
  const [filter, setFilter] = useState<Filter>('all');
  // refresh when the run has moved on, at most every 2 s (not in fast mode)
  useThrottledEffect(() => void store.getState().loadTranscripts(), `${runId}:${steps}`, 2000, !fast);
  const block = transcripts?.[which] ?? null;
  const shown = (block?.episodes ?? []).filter((e) => filter === 'all' || (filter === 'success' ? success(e) : filter === 'failure' ? !success(e) : silent(e)));
  return (
    <section aria-label="Transcripts" className="transcripts">
      <div className="row">
        <fieldset>
          <legend>Episodes of</legend>
          <label><input type="radio" name={`${id}-w`} checked={which === 'train'} onChange={() => setWhich('train')} /> last step (sampled)</label>
          <label><input type="radio" name={`${id}-w`} checked={which === 'eval'} onChange={() => setWhich('eval')} /> last eval (greedy)</label>
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-f`}>Show</label>
          <select id={`${id}-f`} value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
            <option value="all">all</option><option value="success">success</option><option value="failure">failure</option><option value="silent">silent</option>
          </select>
        </div>
        <button type="button" onClick={() => void store.getState().loadTranscripts()}>Refresh</button>
      </div>
      <LogpLegend />
      {label !== null && <p className="member-shown" data-testid="transcripts-member">Member <strong>{shortLabel(held ?? label)}</strong> of the population (choose another under the lambda_tok slider or on the chart).</p>}
      {!block && <p className="muted">{label !== null ? (steps > 0 && held === null ? 'This member is not loaded (the page was reloaded): press Step or Continue.' : `No ${which === 'train' ? 'step' : 'eval'} of this member yet: its transcripts appear after its first step.`) : `No ${which === 'train' ? 'step' : 'eval'} yet: press Step or Start.`}</p>}
      {block && <p className="muted" data-testid="transcript-count">{transcriptCount(which, block, shown.length, filter)}</p>}
      {shown.map((ep) => <Episode key={`${which}-${block!.step}-${ep.episode}`} ep={ep} />)}
    </section>
  );
}
