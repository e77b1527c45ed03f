// The runs a chart draws: the current run first, then the overlaid ones, each
// with its colour, name and evals.
import type { EvalRecord } from '../rl/runRecord';
import type { RunMeta } from '../store/runTypes';
import type { AppState } from '../store/types';
import type { SweepRecord } from '../store/sweepSlice';
import { memberLabel, memberOf, runColors } from './palette';
import { lambdaSetting } from '../store/currentRun';

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
 * and labelled with it; other runs keep their colour. The values are those of `shown`, `all` and the sweep.
 */
export function colorSweepMembers(shown: ShownRun[], sweep: SweepRecord | null, all: readonly RunMeta[] = []): ShownRun[] {
  const colours = runColors([...shown.map((r) => ({ id: r.id, member: r.meta?.member })), ...all.map((m) => ({ id: m.id, member: m.member }))], sweep);
  return shown.map((r) => {
    const m = memberOf({ id: r.id, member: r.meta?.member }, sweep);
    return m ? { ...r, color: colours.get(r.id)!, valueLabel: movedLabel(memberLabel(m), m.axis, r.meta) } : r;
  });
}

/** A member's trail label: its value, and where a live change moved its lambda_tok, the value it landed on ("λ=0→0.3"), as its chip says. */
export function movedLabel(label: string, axis: string, m: RunMeta | undefined): string {
  if (!m || axis !== 'lambdaTok' || !(m.changes ?? []).some((c) => c.field === 'lambdaTok')) return label;
  const now = lambdaSetting(m);
  return now === m.config.lambdaTok ? label : `${label}→${now}`;
}

/** Every run's colour (palette.ts runColors): the stored runs, and the current run before its record exists. */
export function colorsOf(s: Pick<AppState, 'runs' | 'runId' | 'sweep'>): Map<string, string> {
  const unrecorded = s.runId && !s.runs.some((r) => r.id === s.runId) ? [{ id: s.runId, colorIndex: s.runs.reduce((a, r) => Math.max(a, r.colorIndex + 1), 0) }] : [];
  return runColors([...s.runs, ...unrecorded], s.sweep);
}

/** The shown runs, each in its one colour and, when it is a population member, labelled with its value. */
export function shownRuns(s: Pick<AppState, 'runs' | 'overlay' | 'runId' | 'trainer' | 'preset' | 'sweep'>): ShownRun[] {
  const out: ShownRun[] = [];
  const byId = new Map(s.runs.map((r) => [r.id, r]));
  const colours = colorsOf(s);
  const labelOf = (id: string, m: RunMeta | undefined) => { const mm = memberOf({ id, member: m?.member }, s.sweep); return mm ? { valueLabel: movedLabel(memberLabel(mm), mm.axis, m) } : {}; };
  if (s.runId) {
    const m = byId.get(s.runId);
    out.push({ id: s.runId, name: m?.name ?? `${s.preset} (this run)`, color: colours.get(s.runId)!, current: true, evals: m?.evals ?? s.trainer?.evals ?? [], meta: m, ...labelOf(s.runId, m) });
  }
  for (const id of s.overlay) {
    if (id === s.runId) continue;
    const m = byId.get(id);
    if (m) out.push({ id, name: m.name, color: colours.get(id)!, current: false, evals: m.evals, meta: m, ...labelOf(id, m) });
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
