// The labels at the heads of population members' trails ("λ=0.1"). Early in
// training the heads sit close together, and labels written beside each head
// piled into one unreadable stack; here each label is placed in pixels (the
// chart's own scales) beside its head, moved up or down a line when it would
// overlap one already placed, with a thin leader to its head, and left out when
// no nearby line is free (its head and legend entry still name the run).
import { useXAxisScale, useYAxisScale } from 'recharts';

export interface LabelAt { id: string; x: number; y: number; text: string }
export interface PlacedLabel extends LabelAt { dy: number }

/** A label's height in px (11 px type) and its width per character (a generous estimate for the page's sans-serif at 11 px). */
export const LINE_PX = 13;
export const CHAR_PX = 6.6;
const GAP_PX = 6; // from the head's centre to the label's left edge

interface Box { x0: number; y0: number; x1: number; y1: number }
const boxOf = (l: LabelAt, dy: number): Box => ({ x0: l.x + GAP_PX, x1: l.x + GAP_PX + l.text.length * CHAR_PX, y0: l.y + dy - LINE_PX / 2, y1: l.y + dy + LINE_PX / 2 });
const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/**
 * Where each label goes: beside its head (dy = 0), else the nearest free line above or below, up to
 * `maxLines` lines away; a label with no free line is left out. Labels are placed from the top head down,
 * so the result does not depend on the order they come in. Returns the placed ones, each with its dy.
 */
export function placeLabels(labels: readonly LabelAt[], maxLines = 3): PlacedLabel[] {
  const order = [...labels].filter((l) => l.text && Number.isFinite(l.x) && Number.isFinite(l.y)).sort((a, b) => a.y - b.y || a.x - b.x || (a.id < b.id ? -1 : 1));
  const tries = [0, ...Array.from({ length: maxLines }, (_, k) => [-(k + 1), k + 1]).flat()].map((k) => k * LINE_PX);
  const placed: (PlacedLabel & { box: Box })[] = [];
  for (const l of order) {
    for (const dy of tries) {
      const box = boxOf(l, dy);
      if (placed.some((p) => overlaps(p.box, box))) continue;
      placed.push({ ...l, dy, box });
      break;
    }
  }
  return placed.map(({ box: _box, ...p }) => p);
}

/** The head labels of the Pareto chart, drawn inside the chart (its scales turn tokens and accuracy into pixels). */
export function TrailLabels({ heads }: { heads: readonly { id: string; tokens: number; accuracy: number; label: string }[] }) {
  const xs = useXAxisScale(), ys = useYAxisScale();
  if (!xs || !ys) return null;
  const placed = placeLabels(heads.filter((h) => h.label).map((h) => ({ id: h.id, x: Number(xs(h.tokens)), y: Number(ys(h.accuracy)), text: h.label })));
  return (
    <g className="trail-labels" data-labels={heads.filter((h) => h.label).length} data-placed={placed.length}>
      {placed.map((p) => (
        <g key={p.id} data-run-id={p.id}>
          {p.dy !== 0 && <line x1={p.x + 3} y1={p.y} x2={p.x + GAP_PX - 1} y2={p.y + p.dy} stroke="#9aa" strokeWidth={0.8} />}
          <text x={p.x + GAP_PX} y={p.y + p.dy} dominantBaseline="central" fontSize={11} fill="#333">{p.text}</text>
        </g>
      ))}
    </g>
  );
}
