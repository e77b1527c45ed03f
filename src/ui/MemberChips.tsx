// The current population's members as chips under the lambda_tok slider: the
// chosen one (the member the slider moves and the inspector shows) is pressed;
// a click chooses another, and the choice stays until the person makes another.
import { chosenMember, lambdaSetting, populationRun, shortLabel } from '../store/currentRun';
import { useApp } from './storeContext';

export function MemberChips() {
  const pop = useApp((s) => (s.population ? populationRun(s) : null));
  const chosen = useApp((s) => (s.population ? chosenMember(s)?.runId ?? null : null));
  const choose = useApp((s) => s.selectSweepRun);
  // each member's lambda_tok now (its last live change, else its config): shown when it moved off its value
  const settings = useApp((s) => JSON.stringify((pop?.runs ?? []).map((r) => {
    const m = r.runId ? s.runs.find((x) => x.id === r.runId) : undefined;
    return m && pop?.axis === 'lambdaTok' ? lambdaSetting(m) : r.value;
  })));
  const setting: number[] = JSON.parse(settings);
  if ((pop?.runs ?? []).filter((r) => r.runId !== null).length < 2) return null;
  return (
    <div className="member-chips" data-control="memberChips" role="group" aria-label="Choose the member" data-testid="member-chips">
      {(pop?.runs ?? []).map((r, i) => r.runId !== null && (
        <button key={r.runId} type="button" className="chip" aria-pressed={r.runId === chosen} data-run-id={r.runId} data-setting={setting[i]}
          title={`member ${shortLabel(r.label)}: lambda_tok ${setting[i]} now`} onClick={() => void choose(r.runId!)}>
          {shortLabel(r.label)}{setting[i] !== r.value ? ` → ${setting[i]}` : ''}
        </button>
      ))}
    </div>
  );
}
