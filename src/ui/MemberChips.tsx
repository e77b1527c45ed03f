// The current population's members as chips under the lambda_tok slider: the
// chosen one (the member the slider moves and the inspector shows) is pressed;
// a click chooses another, and the choice stays until the person makes another.
import { populationRun, shortLabel } from '../store/currentRun';
import { shownMember } from '../store/sweepPopulation';
import { useApp } from './storeContext';

export function MemberChips() {
  const pop = useApp((s) => (s.population ? populationRun(s) : null));
  const chosen = useApp((s) => (s.population ? shownMember(s)?.runId ?? null : null));
  const choose = useApp((s) => s.selectSweepRun);
  const members = (pop?.runs ?? []).filter((r) => r.runId !== null);
  if (members.length < 2) return null;
  return (
    <div className="member-chips" role="group" aria-label="Choose the member" data-testid="member-chips">
      {members.map((r) => (
        <button key={r.runId} type="button" className="chip" aria-pressed={r.runId === chosen} data-run-id={r.runId!}
          onClick={() => void choose(r.runId!)}>{shortLabel(r.label)}</button>
      ))}
    </div>
  );
}
