// The current run's last and best eval, every field (env extras included,
// whatever the environment reports), and a note on what the best is.
import { memo } from 'react';
import type { EvalRecord } from '../rl/runRecord';
import { fmt } from './labels';
import type { ShownRun } from './shownRuns';

const ORDER = ['step', 'accuracy', 'tokens', 'turns', 'reward', 'lambdaTok'];

export const EvalTable = memo(function EvalTable({ run }: { run: ShownRun | undefined }) {
  const last: EvalRecord | undefined = run?.evals[run.evals.length - 1];
  const best = run?.meta?.bestEval ?? null;
  if (!last) return <section aria-label="Last eval" className="eval-table" data-control="evalTable"><h3>Last eval</h3><p className="muted">No eval yet: the first comes with the first step (the warm start's point).</p></section>;
  const keys = [...ORDER.filter((k) => k in last), ...Object.keys(last).filter((k) => !ORDER.includes(k)).sort()];
  return (
    <section aria-label="Last eval" className="eval-table" data-control="evalTable">
      <h3>Last eval</h3>
      <table>
        <thead><tr><th scope="col">field</th><th scope="col">last</th><th scope="col">best</th></tr></thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k}><th scope="row">{k}</th><td>{fmt(last[k], 4)}</td><td>{best && k in best ? fmt(best[k], 4) : '–'}</td></tr>
          ))}
        </tbody>
      </table>
      <p className="muted">The best column is the eval with the highest accuracy (ties: fewer tokens). Restore best follows the rule chosen under Run (accuracy, reward, or a token target).</p>
    </section>
  );
});
