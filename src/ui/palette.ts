// Colours. A run has one colour wherever it is drawn (chart trails and points,
// legends, the runs table), and `runColors` is the one place that picks it. A
// series has a colour of its own when a chart shows a single run.
import type { RunMeta } from '../store/runTypes';

const RUN_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
const SERIES_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd'];

export const runColor = (i: number): string => RUN_COLORS[((i % RUN_COLORS.length) + RUN_COLORS.length) % RUN_COLORS.length];
export const seriesColor = (i: number): string => SERIES_COLORS[i % SERIES_COLORS.length];
export const DASHES = [undefined, '6 3', '2 3', '8 3 2 3'];

/** A colour on one sequential scale (dark blue -> teal -> yellow) for the i-th of n values in order. */
export function valueColor(i: number, n: number): string {
  const stops = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [220, 200, 30]];
  const x = n <= 1 ? 0 : (i / (n - 1)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(x)), f = x - k;
  const c = stops[k].map((v, j) => Math.round(v + f * (stops[k + 1][j] - v)));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

export type Member = NonNullable<RunMeta['member']>;
/** What a run's colour depends on: its colour index, and its sweep and value when it is a population member. */
export interface ColourRun { id: string; colorIndex?: number; member?: Member }
/** The part of a sweep record that names its members (a member recorded before `meta.member` existed is found here). */
export interface SweepMembers { id: string; axis: Member['axis']; runs: readonly { runId: string | null; value: number }[] }

/** A run's sweep and value: its record's, else the sweep's entry for it. */
export function memberOf(r: ColourRun, sweep: SweepMembers | null): Member | undefined {
  if (r.member) return r.member;
  const m = sweep?.runs.find((x) => x.runId === r.id);
  return m && sweep ? { sweep: sweep.id, axis: sweep.axis, value: m.value } : undefined;
}

/** A member's label at the head of its trail: "λ=0.1" (or "B=4" in budget mode). */
export const memberLabel = (m: Member): string => `${m.axis === 'budget' ? 'B' : 'λ'}=${m.value}`;

/**
 * One colour per run id. A population member: its value's rank on the sequential scale, among the values of
 * its own sweep (from every run given and the sweep record), so the table and the chart agree whichever runs
 * are shown. Any other run: the categorical colour of its colorIndex, or the next one no run before it holds
 * (records made at the same moment can share an index; members' value colours are never categorical ones).
 * A run with neither gets none.
 */
export function runColors(runs: readonly ColourRun[], sweep: SweepMembers | null): Map<string, string> {
  const values = new Map<string, Set<number>>();
  const add = (id: string, v: number) => values.set(id, (values.get(id) ?? new Set()).add(v));
  if (sweep) for (const r of sweep.runs) add(sweep.id, r.value);
  const members = new Map<string, Member>();
  for (const r of runs) { const m = memberOf(r, sweep); if (m) { members.set(r.id, m); add(m.sweep, m.value); } }
  const out = new Map<string, string>();
  for (const [id, m] of members) {
    const sorted = [...values.get(m.sweep)!].sort((a, b) => a - b);
    out.set(id, valueColor(sorted.indexOf(m.value), sorted.length));
  }
  // the oldest index first (ties in the order given), each taking its own slot or the next free one
  const others = runs.map((r, i) => ({ r, i })).filter(({ r }) => !members.has(r.id) && r.colorIndex !== undefined && !out.has(r.id))
    .sort((a, b) => a.r.colorIndex! - b.r.colorIndex! || a.i - b.i);
  const taken = new Set<number>();
  for (const { r } of others) {
    const n = RUN_COLORS.length;
    const want = ((r.colorIndex! % n) + n) % n;
    let slot = want;
    for (let k = 0; k < n && taken.has(slot); k++) slot = (want + k) % n;
    if (taken.size >= n) slot = want; // more runs than colours: repeats cannot be helped
    taken.add(slot);
    out.set(r.id, RUN_COLORS[slot]);
  }
  return out;
}

/** A token's background by its probability: red (unlikely) through yellow to green (certain). */
export function logpColor(logp: number): string {
  const p = Math.min(1, Math.max(0, Math.exp(logp)));
  return `hsl(${Math.round(120 * p)} 70% 82%)`;
}
