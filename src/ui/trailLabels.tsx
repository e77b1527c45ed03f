// Every text label of the accuracy-vs-tokens chart: the heads of population members' trails ("λ=0.1"), the
// populations' frontier labels, the live changes ("lambda_tok 0.05") and the scripted baselines' names. Early in
// training the heads, the warm-start star and the first evals sit close together, and labels written beside
// their points (recharts' LabelList) printed over each other and over the marks. Here each label is placed in
// pixels (the chart's own scales): on its preferred side of its point, else the nearest free spot (the other
// side, a half line or more up or down, above or below), never over another label, a mark (eval dots, heads,
// stars, crosses, change rings) or the plot area's edge; a label moved away from its point gets a thin leader,
// and one with no free spot nearby is left out (its legend entry and tooltip still name it).
import { useLayoutEffect, useRef, useState } from 'react';
import { DefaultZIndexes, usePlotArea, useXAxisScale, useYAxisScale, ZIndexLayer } from 'recharts';

/** A box in px: x0 < x1, y0 < y1 (y down, as on the screen). */
export interface Box { x0: number; y0: number; x1: number; y1: number }
export type Side = 'right' | 'left' | 'top' | 'bottom';

export interface LabelAt {
  id: string;
  /** The point it labels, in px. */
  x: number; y: number;
  text: string;
  /** The radius of the mark drawn at the point (px): the label keeps clear of it. Default 4. */
  r?: number;
  /** Font size (px), default 11; bold text is wider. */
  size?: number; bold?: boolean;
  /** The text's width (px) when measured; else estimated generously from its length. */
  width?: number;
  /** Where it goes when that spot is free. Default right. */
  side?: Side;
  /** Lower is placed first (wins a contested spot); then from the top of the chart down. Default 0. */
  priority?: number;
}
export interface Placed {
  /** The box the label takes (its text starts at x0 + 1, centred on the box's middle line). */
  box: Box;
  /** Its vertical offset from the point (the box's middle line less y). */
  dy: number;
  /** A leader from the point's mark to the label, when the label is not right beside it. */
  leader: [number, number, number, number] | null;
}

export type PlacedLabel<L extends LabelAt = LabelAt> = L & Placed;

/** Per character, in em: generous for the page's sans-serif (DejaVu Sans, the widest common one, averages ~0.6). */
export const CHAR_EM = 0.65;
export const BOLD_CHAR_EM = 0.75;
/** A label's box height per px of font size (the glyph box is ~1.16 em; the rest is margin). */
export const LINE_EM = 1.3;
/** From the mark's edge to the label. */
export const GAP_PX = 3;

export const lineOf = (size = 11) => size * LINE_EM;
/** The estimated width of a text in px (with 1 px either side). */
export const estimateWidth = (text: string, size = 11, bold = false) => [...text].length * size * (bold ? BOLD_CHAR_EM : CHAR_EM) + 2;
export const overlaps = (a: Box, b: Box, gap = 0) => a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;
const inside = (a: Box, b: Box) => a.x0 >= b.x0 && a.x1 <= b.x1 && a.y0 >= b.y0 && a.y1 <= b.y1;
/** The box of a mark of radius r at (x, y), with `pad` px around it. */
export const markBox = (x: number, y: number, r: number, pad = 1): Box => ({ x0: x - r - pad, x1: x + r + pad, y0: y - r - pad, y1: y + r + pad });
/** The distance from a point to a box (0 inside it). */
const distance = (x: number, y: number, b: Box) => Math.hypot(Math.max(b.x0 - x, 0, x - b.x1), Math.max(b.y0 - y, 0, y - b.y1));

const SIDES: Side[] = ['right', 'left', 'top', 'bottom'];

/**
 * The spots a label may take, nearest first: beside its point on either side (its middle line on the point's, or
 * up to `maxLines` lines above or below in half-line steps), above or below it (centred, or starting or ending at
 * the point, up to `maxLines` lines further away). Ties go to the preferred side, then the smaller shift.
 */
function candidates(l: LabelAt, w: number, h: number, maxLines: number): Box[] {
  const r = l.r ?? 4, g = GAP_PX;
  const out: { box: Box; d: number; rank: number; shift: number }[] = [];
  const rank = (s: Side) => (s === (l.side ?? 'right') ? 0 : 1 + SIDES.filter((x) => x !== (l.side ?? 'right')).indexOf(s));
  const add = (s: Side, x0: number, cy: number, shift: number) => {
    const box = { x0, x1: x0 + w, y0: cy - h / 2, y1: cy + h / 2 };
    out.push({ box, d: Math.round(distance(l.x, l.y, box) * 2) / 2, rank: rank(s), shift });
  };
  for (let k = 0; k <= 2 * maxLines; k++) {
    for (const sign of k === 0 ? [1] : [-1, 1]) {
      const dy = (sign * k * h) / 2;
      add('right', l.x + r + g, l.y + dy, k);
      add('left', l.x - r - g - w, l.y + dy, k);
    }
    if (k > maxLines) continue;
    const lift = k * h;
    for (const [s, cy] of [['top', l.y - r - g - h / 2 - lift], ['bottom', l.y + r + g + h / 2 + lift]] as const) {
      add(s, l.x - w / 2, cy, k);
      add(s, l.x - r, cy, k + 0.5);
      add(s, l.x + r - w, cy, k + 0.5);
    }
  }
  return out.sort((a, b) => a.d - b.d || a.rank - b.rank || a.shift - b.shift).map((c) => c.box);
}

/**
 * Where each label goes: its preferred spot beside its point when free, else the nearest free one (see
 * `candidates`); free means inside `bounds` (when given), clear of every box in `obstacles` (the marks: give each
 * its drawn size plus a pixel) and at least a pixel from every label placed before it. A label with no free
 * spot is left out, and so is a repeat of a label already placed (the same text at the same point). Labels are
 * placed by priority, then from the top of the chart down, so the result does not depend on their order.
 * Returns the placed ones.
 */
export function placeLabels<L extends LabelAt>(labels: readonly L[], opts: { obstacles?: readonly Box[]; bounds?: Box; maxLines?: number } = {}): PlacedLabel<L>[] {
  const { obstacles = [], bounds, maxLines = 3 } = opts;
  const order = [...labels].filter((l) => l.text && Number.isFinite(l.x) && Number.isFinite(l.y))
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || a.y - b.y || a.x - b.x || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const placed: PlacedLabel<L>[] = [];
  for (const l of order) {
    if (placed.some((p) => p.text === l.text && Math.abs(p.x - l.x) < 1 && Math.abs(p.y - l.y) < 1)) continue;
    const w = Math.max(l.width ?? 0, 0) || estimateWidth(l.text, l.size, l.bold), h = lineOf(l.size);
    const box = candidates(l, w, h, maxLines).find((b) => (!bounds || inside(b, bounds)) && !obstacles.some((o) => overlaps(o, b)) && !placed.some((p) => overlaps(p.box, b, 1)));
    if (!box) continue;
    const r = l.r ?? 4, d = distance(l.x, l.y, box);
    let leader: Placed['leader'] = null;
    if (d > r + GAP_PX + 0.5) {
      // from the mark's edge towards the nearest point of the label
      const nx = Math.min(Math.max(l.x, box.x0), box.x1), ny = Math.min(Math.max(l.y, box.y0), box.y1);
      const ux = (nx - l.x) / d, uy = (ny - l.y) / d;
      leader = [l.x + ux * (r + 1), l.y + uy * (r + 1), nx, ny];
    }
    placed.push({ ...l, box, dy: (box.y0 + box.y1) / 2 - l.y, leader });
  }
  return placed;
}

/** A label of the chart in data coordinates (tokens, accuracy), in its group (the class of its <g>). */
export interface ChartLabel {
  id: string; group: string; tokens: number; accuracy: number; text: string;
  r: number; size?: number; bold?: boolean; color?: string; side?: Side;
  /** The run it names (kept as data-run-id on its <g>). */
  runId?: string;
}
/** A mark on the chart (its centre in data coordinates, its radius in px): labels keep clear of it. */
export interface ChartMark { tokens: number; accuracy: number; r: number }

/** Measured text widths (getComputedTextLength), by size, weight and text: measured once, then reused. */
const measured = new Map<string, number>();
const keyOf = (l: { size?: number; bold?: boolean; text: string }) => `${l.size ?? 11}|${l.bold ? 'b' : ''}|${l.text}`;

/**
 * The chart's labels, drawn inside the chart (its scales turn tokens and accuracy into pixels): each group of
 * labels in a <g> of its class with data-labels (how many it has) and data-placed (how many are drawn). Groups
 * are placed in the order given (the first wins a contested spot), drawn above the lines and marks. A text not measured yet is drawn hidden
 * once, measured, and the labels placed again with its width.
 */
export function ChartLabels({ groups, labels, marks }: { groups: readonly string[]; labels: readonly ChartLabel[]; marks: readonly ChartMark[] }) {
  const xs = useXAxisScale(), ys = useYAxisScale(), area = usePlotArea();
  const measure = useRef<SVGGElement>(null);
  const [, remeasured] = useState(0);
  useLayoutEffect(() => {
    const texts = measure.current?.querySelectorAll('text') ?? [];
    let changed = false;
    for (const t of texts) {
      const w = typeof t.getComputedTextLength === 'function' ? t.getComputedTextLength() : 0;
      if (w > 0 && t.dataset.key) { measured.set(t.dataset.key, w + 2); changed = true; }
    }
    if (changed) remeasured((n) => n + 1);
  });
  if (!xs || !ys) return null;
  const px = (tokens: number, accuracy: number) => [Number(xs(tokens)), Number(ys(accuracy))] as const;
  const obstacles = marks.map((m) => { const [x, y] = px(m.tokens, m.accuracy); return markBox(x, y, m.r); }).filter((b) => Number.isFinite(b.x0) && Number.isFinite(b.y0));
  const bounds = area ? { x0: area.x, y0: area.y, x1: area.x + area.width, y1: area.y + area.height } : undefined;
  const at = labels.map((l) => {
    const [x, y] = px(l.tokens, l.accuracy);
    return { ...l, x, y, width: measured.get(keyOf(l)), priority: groups.indexOf(l.group) };
  });
  const placed = placeLabels(at, { obstacles, bounds });
  const unmeasured = [...new Map(labels.filter((l) => !measured.has(keyOf(l))).map((l) => [keyOf(l), l])).entries()];
  // above every line and mark (recharts draws by layer, not in the order of the chart's children), each text on a
  // light box (its placed box, clear of every mark) so that a trail or frontier line under it does not cross its letters
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.label + 1}>
    <g className="chart-labels" pointerEvents="none">
      {groups.map((group) => {
        const mine = placed.filter((p) => p.group === group);
        return (
          <g key={group} className={group} data-labels={labels.filter((l) => l.group === group).length} data-placed={mine.length}>
            {mine.map((p) => (
              <g key={p.id} data-label-id={p.id} data-run-id={p.runId}>
                {p.leader && <line x1={p.leader[0]} y1={p.leader[1]} x2={p.leader[2]} y2={p.leader[3]} stroke="#9aa" strokeWidth={0.8} />}
                <rect x={p.box.x0} y={p.box.y0} width={p.box.x1 - p.box.x0} height={p.box.y1 - p.box.y0} rx={2} fill="#fff" fillOpacity={0.8} />
                <text x={p.box.x0 + 1} y={(p.box.y0 + p.box.y1) / 2} dominantBaseline="central" textAnchor="start" fontSize={p.size ?? 11} fontWeight={p.bold ? 600 : undefined} fill={p.color ?? '#333'}>{p.text}</text>
              </g>
            ))}
          </g>
        );
      })}
      {unmeasured.length > 0 && (
        <g ref={measure} className="label-measure" visibility="hidden" aria-hidden="true">
          {unmeasured.map(([key, l]) => <text key={key} data-key={key} x={0} y={0} fontSize={l.size ?? 11} fontWeight={l.bold ? 600 : undefined}>{l.text}</text>)}
        </g>
      )}
    </g>
    </ZIndexLayer>
  );
}
