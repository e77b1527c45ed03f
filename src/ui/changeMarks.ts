// Where a run's live settings changed (RunMeta.changes), as marks: a vertical
// line on every time series at the first step that used the new value, and a
// labelled point on the accuracy-vs-tokens trail at the first eval measured
// after that step (the first point with the new value; an eval before it was
// measured at the old one). Steps on the page count from 1: "step k" is the
// k-th step, and the eval "at step k" came after it.
import type { RunConfig } from '../config';
import { changeStep } from '../store/runTypes';
import { labelOf, fmt } from './labels';

export { changeStep };

export interface Change { step: number; field: keyof RunConfig; value: string | number }

export interface ChangeMark {
  /** The first step (counting from 1) that used the new values. */
  step: number;
  /** The values set then, the last of each field (a slider drag sets many). */
  set: { field: keyof RunConfig; value: string | number }[];
  label: string;
}

const MAX = 40;

const valueText = (v: string | number) => (typeof v === 'number' ? fmt(v, 4) : v);

/** One mark per step at which something changed (`changes[i].step`: steps taken when it was set). */
export function changeMarks(changes: readonly Change[] | undefined): ChangeMark[] {
  const byStep = new Map<number, Map<keyof RunConfig, string | number>>();
  for (const c of changes ?? []) {
    const m = byStep.get(c.step) ?? new Map();
    m.delete(c.field); // re-inserted: the last value of a field, in the order last set
    m.set(c.field, c.value);
    byStep.set(c.step, m);
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).slice(-MAX).map(([taken, m]) => {
    const set = [...m.entries()].map(([field, value]) => ({ field, value }));
    return { step: changeStep({ step: taken }), set, label: set.map((s) => `${labelOf(s.field)} ${valueText(s.value)}`).join(', ') };
  });
}

/**
 * For each mark, the eval it labels on the trail: the first one taken after the mark's step (the eval
 * at step k follows the k-th step), so the first measured with the new value. A mark with no such eval
 * yet is left out until one comes.
 */
export function markedEvals<E extends { step: number }>(marks: readonly ChangeMark[], evals: readonly E[]): { mark: ChangeMark; at: E }[] {
  const out: { mark: ChangeMark; at: E }[] = [];
  for (const mark of marks) {
    let at: E | null = null;
    for (const e of evals) if (e.step >= mark.step && (at === null || e.step < at.step)) at = e;
    if (at) out.push({ mark, at });
  }
  return out;
}
