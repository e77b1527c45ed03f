// The runs a chart draws: the current run first, then the overlaid ones, each
// with its colour, name and evals.
import type { EvalRecord } from '../rl/trainer';
import type { RunMeta } from '../store/runTypes';
import type { AppState } from '../store/types';
import { runColor } from './palette';

export interface ShownRun {
  id: string;
  name: string;
  color: string;
  current: boolean;
  evals: EvalRecord[];
  meta: RunMeta | undefined;
}

export function shownRuns(s: Pick<AppState, 'runs' | 'overlay' | 'runId' | 'trainer' | 'preset'>): ShownRun[] {
  const out: ShownRun[] = [];
  const byId = new Map(s.runs.map((r) => [r.id, r]));
  if (s.runId) {
    const m = byId.get(s.runId);
    out.push({ id: s.runId, name: m?.name ?? `${s.preset} (this run)`, color: runColor(m?.colorIndex ?? s.runs.length), current: true, evals: m?.evals ?? s.trainer?.evals ?? [], meta: m });
  }
  for (const id of s.overlay) {
    if (id === s.runId) continue;
    const m = byId.get(id);
    if (m) out.push({ id, name: m.name, color: runColor(m.colorIndex), current: false, evals: m.evals, meta: m });
  }
  return out;
}
