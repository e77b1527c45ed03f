// Populations on the charts: how a hovered run stands out (its trail and time
// series over the others'), and the shown runs grouped by the sweep they belong
// to, each group with the frontier of its members' live positions, so two
// populations (relay-noisy with group normalization, relay-noisy-dr without)
// draw two frontiers on one chart.
import { paretoFrontier } from '../rl/pareto';
import type { TrailPoint } from './liveTrail';
import type { ShownRun } from './shownRuns';

export interface Emphasis { opacity: number; width: number }

/** Opacity of the runs that are not hovered while one is: faded, still readable behind it. */
export const FADED = 0.2;

/**
 * How a run's lines are drawn: as `base` while no shown run is hovered; the hovered one opaque and twice
 * as wide, every other faded to FADED of its opacity. `hovered` is null, or the id of a shown run.
 */
export function emphasis(runId: string, hovered: string | null, base: Emphasis = { opacity: 1, width: 1 }): Emphasis {
  if (hovered === null) return base;
  return runId === hovered ? { opacity: 1, width: base.width * 2 } : { opacity: base.opacity * FADED, width: base.width };
}

/** The hovered run if it is among the shown ones (a run hovered in a table that the chart does not show changes nothing). */
export const shownHovered = (shown: readonly { id: string }[], hovered: string | null): string | null =>
  hovered !== null && shown.some((r) => r.id === hovered) ? hovered : null;

export interface GroupPoint { id: string; tokens: number; accuracy: number; value: number }
export interface PopulationGroup {
  /** The sweep's id. */
  key: string;
  /** What the chart calls it: the preset (with a number when two sweeps of one preset are shown). */
  label: string;
  preset: string;
  /** Each member's live position (its trail's head), in the order of its value. */
  members: GroupPoint[];
  /** The members no other member of the group beats on both accuracy and tokens, by tokens. */
  frontier: GroupPoint[];
}

/**
 * The shown population members (runs with `meta.member`) grouped by their sweep, each member at its trail's
 * head; groups of fewer than two placed members are left out (one point is no frontier). Ordered by the
 * sweep's first appearance among the shown runs.
 */
export function populationGroups(shown: readonly ShownRun[], trails: Readonly<Record<string, readonly TrailPoint[]>>): PopulationGroup[] {
  const bySweep = new Map<string, { preset: string; members: GroupPoint[] }>();
  for (const r of shown) {
    const m = r.meta?.member;
    const head = trails[r.id]?.at(-1);
    if (!m || !head) continue;
    const g = bySweep.get(m.sweep) ?? { preset: r.meta!.preset, members: [] };
    g.members.push({ id: r.id, tokens: head.tokens, accuracy: head.accuracy, value: m.value });
    bySweep.set(m.sweep, g);
  }
  const groups = [...bySweep.entries()].filter(([, g]) => g.members.length >= 2);
  const perPreset = new Map<string, number>();
  for (const [, g] of groups) perPreset.set(g.preset, (perPreset.get(g.preset) ?? 0) + 1);
  const seen = new Map<string, number>();
  return groups.map(([key, g]) => {
    const k = (seen.get(g.preset) ?? 0) + 1;
    seen.set(g.preset, k);
    const members = [...g.members].sort((a, b) => a.value - b.value);
    return { key, preset: g.preset, label: perPreset.get(g.preset)! > 1 ? `${g.preset} (${k})` : g.preset, members, frontier: paretoFrontier([...members]) };
  });
}

/** The frontiers' colours and dashes, one per group (two populations: dark grey and orange). */
export const GROUP_STYLES = [
  { color: '#333', dash: '6 3' },
  { color: '#d35400', dash: '2 3' },
  { color: '#8e44ad', dash: '8 2 2 2' },
  { color: '#16a085', dash: '4 4' },
] as const;
