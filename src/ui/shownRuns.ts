// The runs a chart draws: the current run first, then the overlaid ones, each
// with its colour, name and evals.
import type { EvalRecord } from '../rl/runRecord';
import type { RunMeta } from '../store/runTypes';
import type { AppState } from '../store/types';
import type { SweepRecord } from '../store/sweepSlice';
import { runColor } from './palette';
import { valueColor } from './liveTrail';

export interface ShownRun {
  id: string;
  name: string;
  color: string;
  current: boolean;
  evals: EvalRecord[];
  meta: RunMeta | undefined;
  /** A sweep member's value ("λ=0.1"), written at the head of its trail. */
  valueLabel?: string;
}

/**
 * Population members coloured on one sequential scale by their value (low to high, within their own sweep)
 * and labelled with it: the runs that record their sweep (`meta.member`), and the current sweep's runs.
 */
export function colorSweepMembers(shown: ShownRun[], sweep: SweepRecord | null): ShownRun[] {
  const memberOf = (r: ShownRun): { sweep: string; axis: 'lambdaTok' | 'budget'; value: number } | undefined => {
    if (r.meta?.member) return r.meta.member;
    const m = sweep?.runs.find((x) => x.runId === r.id);
    return m && sweep ? { sweep: sweep.id, axis: sweep.axis, value: m.value } : undefined;
  };
  const values = new Map<string, Set<number>>();
  const add = (id: string, v: number) => values.set(id, (values.get(id) ?? new Set()).add(v));
  if (sweep) for (const r of sweep.runs) add(sweep.id, r.value);
  for (const r of shown) { const m = memberOf(r); if (m) add(m.sweep, m.value); }
  return shown.map((r) => {
    const m = memberOf(r);
    if (!m) return r;
    const sorted = [...values.get(m.sweep)!].sort((a, b) => a - b);
    return { ...r, color: valueColor(sorted.indexOf(m.value), sorted.length), valueLabel: `${m.axis === 'budget' ? 'B' : 'λ'}=${m.value}` };
  });
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

/**
 * What the charts depend on in the store, as one string: the charts redraw when it changes
 * (or when telemetry arrives), not on every store update (a checkpoint saved, a rename elsewhere).
 */
export function chartSignature(s: Pick<AppState, 'runs' | 'overlay' | 'runId' | 'trainer' | 'preset' | 'config' | 'flags' | 'sweep'>): string {
  const runs = shownRuns(s).map((r) => {
    const last = r.evals[r.evals.length - 1];
    return [r.id, r.name, r.color, r.evals.length, last?.step, last?.accuracy, last?.tokens, r.meta?.bestEval?.step,
      r.meta?.baselines?.length, r.meta?.curriculum?.length, r.meta?.comparison?.step, r.meta?.changes?.length, r.meta?.member?.sweep];
  });
  const t = s.trainer;
  return JSON.stringify([runs, t?.baselines?.length, t?.curriculum?.length, t?.comparison?.step ?? null, s.config.lambdaMode, s.config.budget, s.config.env,
    s.flags.length, s.sweep?.id, s.sweep?.runs.map((r) => r.runId)]);
}
