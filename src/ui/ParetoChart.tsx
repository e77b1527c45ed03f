// Accuracy vs tokens, the lesson's chart: every eval point of the shown runs
// coloured by run, the current run's trail as a path, the frontier
// (src/rl/pareto.ts) as a step line, each run's warm-start point (its step-0
// eval) as a star, scripted baselines as crosses, the budget B in budget mode,
// and labelled point series (live changes on the trail; more can be passed in,
// e.g. sweep points labelled by lambda), and each run's live trail (its sampled
// episodes, smoothed: it moves every step, between evals), a sweep member's
// labelled with its value at its head, with the frontier of those heads (one per
// population when two or more are shown, each labelled with its preset). Hover
// shows the point under the mouse; hovering a trail, its head or its legend
// entry highlights that run here and on the time series.
import { memo, useMemo, useState } from 'react';
import { CartesianGrid, ComposedChart, Line, ReferenceLine, ResponsiveContainer, Scatter, XAxis, YAxis } from 'recharts';
import type { BaselineResult } from '../envs/types';
import { decimateIndices, MAX_POINTS } from '../store/decimate';
import { frontier } from '../store/modelInfo';
import { changeMarks, markedEvals } from './changeMarks';
import { ChartFrame, type LegendItem } from './ChartFrame';
import { fmt, pct } from './labels';
import type { ShownRun } from './shownRuns';
import type { TrailPoint } from './liveTrail';
import { emphasis, GROUP_STYLES, populationGroups, shownHovered } from './populations';
import type { AccuracyMeaning } from './taskPicture';
import { ChartLabels, type ChartLabel, type ChartMark } from './trailLabels';

interface Point { tokens: number; accuracy: number; step: number; lambdaTok: number; run: string; note?: string }

/** Points with a label beside them (live changes, sweep points): one series, one colour. */
export interface LabelledSeries { key: string; name: string; color: string; points: { tokens: number; accuracy: number; label: string; note?: string }[] }

function pointsOf(r: ShownRun): Point[] {
  const all = r.evals.map((e) => ({ tokens: e.tokens, accuracy: e.accuracy, step: e.step, lambdaTok: e.lambdaTok, run: r.name }));
  if (all.length <= MAX_POINTS) return all;
  return decimateIndices(all.map((p) => p.accuracy), MAX_POINTS).map((i) => all[i]);
}

/**
 * The accuracy axis: zoomed to the data (a margin of 5 points, on a 5% grid, so the points are not
 * squeezed against an edge), or the full 0-100%.
 */
export function accuracyDomain(accuracies: readonly number[], mode: 'data' | 'full'): [number, number] {
  const xs = accuracies.filter(Number.isFinite);
  if (mode === 'full' || xs.length === 0) return [0, 1];
  const lo = Math.max(0, Math.floor((Math.min(...xs) - 0.05) * 20) / 20);
  const hi = Math.min(1, Math.ceil((Math.max(...xs) + 0.05) * 20) / 20);
  return [lo, Math.max(hi, Math.min(1, lo + 0.1))];
}

/**
 * The drawn range and its ticks: the domain plus headroom above (so points at 100% and their labels
 * are not on the edge), ticks on a 5%, 10% or 25% grid that stop at 100%.
 */
export function accuracyScale([lo, hi]: [number, number]): { domain: [number, number]; ticks: number[] } {
  const span = hi - lo;
  const step = span <= 0.3 ? 0.05 : span <= 0.6 ? 0.1 : 0.25;
  const ticks: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9; k++) ticks.push(Math.round(k * step * 100) / 100 + 0); // + 0: no -0
  return { domain: [lo, hi + span * 0.06], ticks };
}

/**
 * A run's change series: a labelled point at the eval where each change took over. Every shown run's (an
 * overlaid or imported run keeps its marks); `named`: the run's name in the legend, for a run not the current one.
 */
export function changeSeries(run: ShownRun | undefined, named = false): LabelledSeries | null {
  if (!run?.meta?.changes?.length) return null;
  const marked = markedEvals(changeMarks(run.meta.changes), run.evals);
  if (!marked.length) return null;
  return {
    key: run.current ? 'changes' : `changes-${run.id}`, name: named && !run.current ? `live change (${run.name})` : 'live change', color: '#8e44ad',
    points: marked.map(({ mark, at }) => ({ tokens: at.tokens, accuracy: at.accuracy, label: mark.label, note: `from step ${mark.step}: ${mark.label} (the eval at step ${at.step} is the first measured with it)` })),
  };
}

/** "12 eval points from 3 runs", each noun agreeing with its own number. */
export const evalCountText = (points: number, runs: number): string =>
  `${points} eval point${points === 1 ? '' : 's'} from ${runs} run${runs === 1 ? '' : 's'}`;

type Hovered = (Point & { kind: 'eval' }) | { kind: 'baseline'; name: string; tokens: number; accuracy: number } | { kind: 'labelled'; label: string; note?: string; tokens: number; accuracy: number };
type HoverAt = { what: Hovered; x: number; y: number; width: number };
type OnHover = (h: HoverAt | null) => void;

const STAR = (cx: number, cy: number, r: number) => Array.from({ length: 10 }, (_, i) => {
  const a = -Math.PI / 2 + (i * Math.PI) / 5, rr = i % 2 ? r * 0.45 : r;
  return `${i ? 'L' : 'M'}${(cx + rr * Math.cos(a)).toFixed(2)},${(cy + rr * Math.sin(a)).toFixed(2)}`;
}).join('') + 'Z';

/**
 * A point's shape that reports its own hover: recharts' tooltip looks its payload up by index and,
 * with the frontier line in the chart, showed another series' point (step 60 for the step-10 eval);
 * each shape says what it is instead. Eval points carry their step and coordinates as data attributes.
 */
function hoverShape(kind: 'dot' | 'star' | 'cross' | 'ring', what: (payload: Record<string, unknown>) => Hovered, onHover: OnHover) {
  return function HoverShape(props: unknown) {
    const { cx, cy, fill, stroke, payload } = props as { cx?: number; cy?: number; fill?: string; stroke?: string; payload?: Record<string, unknown> };
    if (cx === undefined || cy === undefined || !payload) return null;
    const h = what(payload);
    const events = {
      onMouseEnter: (e: { currentTarget: SVGElement }) => onHover({ what: h, x: cx, y: cy, width: e.currentTarget.ownerSVGElement?.clientWidth ?? Infinity }),
      onMouseLeave: () => onHover(null),
    };
    if (kind === 'star') return <path d={STAR(cx, cy, 8)} fill={fill} stroke="#fff" strokeWidth={0.8} className="warm-star" {...events} />;
    if (kind === 'cross') return <path d={`M${cx - 5},${cy - 5}L${cx + 5},${cy + 5}M${cx + 5},${cy - 5}L${cx - 5},${cy + 5}`} stroke={fill} strokeWidth={2.5} className="baseline" {...events} />;
    if (kind === 'ring') return <circle cx={cx} cy={cy} r={7} fill="none" pointerEvents="stroke" stroke={stroke} strokeWidth={2.5} className="change-point" {...events} />; // the ring only: the dot inside stays hoverable
    const p = h as Point;
    return <circle cx={cx} cy={cy} r={4.5} fill={fill} className="eval-dot" data-run={p.run} data-step={p.step} data-tokens={p.tokens} data-accuracy={p.accuracy} {...events} />;
  };
}

type OnHoverRun = (id: string | null) => void;

/** The class of a labelled series' labels: every run's live changes in one ("labelled-changes"). */
const labelledGroup = (s: LabelledSeries) => (s.key.startsWith('changes') ? 'changes' : s.key);

/**
 * Every text label of the chart and every mark its labels must keep clear of (radii as drawn, strokes
 * included). Groups in the order they are placed: the heads' values first, then the populations' names,
 * the live changes (and other labelled series), the baselines' names.
 */
function labelsAndMarks({ heads, groups, labelled, baselines, points, warm }: {
  heads: readonly { id: string; tokens: number; accuracy: number; label: string }[];
  groups: ReturnType<typeof populationGroups>; labelled: readonly LabelledSeries[]; baselines: readonly BaselineResult[];
  points: readonly Point[]; warm: readonly Point[];
}): { groups: string[]; labels: ChartLabel[]; marks: ChartMark[] } {
  // a head as drawn when hovered (r 5, its stroke 0.75), hovered or not: hovering a head does not move the labels
  const HEAD_R = 5.75;
  const labels: ChartLabel[] = [
    ...heads.filter((h) => h.label).map((h) => ({ id: `head-${h.id}`, group: 'trail-labels', tokens: h.tokens, accuracy: h.accuracy, text: h.label, r: HEAD_R, runId: h.id })),
    ...groups.map((g, i) => {
      const last = g.frontier[g.frontier.length - 1]; // a member's head: the population's name above it
      return { id: `group-${g.key}`, group: 'group-labels', tokens: last.tokens, accuracy: last.accuracy, text: g.label, r: HEAD_R, bold: true, color: GROUP_STYLES[i % GROUP_STYLES.length].color, side: 'top' as const };
    }),
    ...labelled.flatMap((s) => s.points.map((p, i) => ({ id: `${s.key}-${i}`, group: `labelled-${labelledGroup(s)}`, tokens: p.tokens, accuracy: p.accuracy, text: p.label, r: 8.25, size: 10, color: s.color, side: 'top' as const }))),
    ...baselines.map((b, i) => ({ id: `baseline-${i}`, group: 'baseline-labels', tokens: b.tokens, accuracy: b.accuracy, text: b.name, r: 6.5, color: '#555' })),
  ];
  const marks: ChartMark[] = [
    ...points.map((p) => ({ tokens: p.tokens, accuracy: p.accuracy, r: 4.5 })),
    ...warm.map((p) => ({ tokens: p.tokens, accuracy: p.accuracy, r: 8.5 })),
    ...heads.map((h) => ({ tokens: h.tokens, accuracy: h.accuracy, r: HEAD_R })),
    ...baselines.map((b) => ({ tokens: b.tokens, accuracy: b.accuracy, r: 6.5 })),
    ...labelled.flatMap((s) => s.points.map((p) => ({ tokens: p.tokens, accuracy: p.accuracy, r: 8.25 }))),
  ];
  return { groups: [...new Set(labels.map((l) => l.group))], labels, marks };
}

/**
 * A trail's head: a small open circle (its label beside it) that names its run and highlights it under the
 * mouse. Made once per chart (a new function per render would rebuild the series).
 */
function headShape(onHoverRun: OnHoverRun | undefined, onChooseRun: OnHoverRun | undefined, chosen: string | null) {
  return function HeadShape(p: unknown) {
    const { cx, cy, payload } = p as { cx?: number; cy?: number; payload?: { id?: string; hovered?: boolean; tokens?: number; accuracy?: number } };
    if (cx === undefined || cy === undefined) return <g />;
    const id = payload?.id, isChosen = id !== undefined && id === chosen;
    // the chosen member's head (the slider moves it) is ringed in the accent colour; a click on a head chooses its member
    return <circle cx={cx} cy={cy} r={payload?.hovered || isChosen ? 5 : 3} fill="#fff" stroke={isChosen ? '#1f6feb' : '#789'} strokeWidth={isChosen ? 2.5 : 1.5}
      className={`trail-head${isChosen ? ' chosen' : ''}`} data-run-id={id} data-tokens={payload?.tokens} data-accuracy={payload?.accuracy}
      style={onChooseRun ? { cursor: 'pointer' } : undefined} onClick={id && onChooseRun ? () => onChooseRun(id) : undefined}
      onMouseEnter={id && onHoverRun ? () => onHoverRun(id) : undefined} onMouseLeave={onHoverRun ? () => onHoverRun(null) : undefined} />;
  };
}

function Tip({ h }: { h: Hovered }) {
  if (h.kind === 'baseline') return <><strong>{h.name}</strong> (scripted baseline)<br />accuracy {pct(h.accuracy)} · {fmt(h.tokens)} tokens</>;
  if (h.kind === 'labelled') return <><strong>changed live</strong><br />{h.note ?? h.label}<br />accuracy {pct(h.accuracy)} · {fmt(h.tokens)} tokens</>;
  return (
    <>
      <strong>{h.run}</strong><br />
      step {h.step} · lambda_tok {fmt(h.lambdaTok, 4)}<br />
      accuracy {pct(h.accuracy)} · {fmt(h.tokens)} tokens
    </>
  );
}

export const ParetoChart = memo(function ParetoChart({ runs, trails = {}, baselines, budget, axis = 'data', onAxis, extra = [], height = 340, hovered = null, onHoverRun, chosen = null, onChooseRun, accuracy }: {
  runs: ShownRun[]; baselines: BaselineResult[]; budget: number | null;
  /** What eval accuracy measures in the environment (taskPicture.ts ACCURACY): on the axis and in the caption. */
  accuracy?: AccuracyMeaning;
  /** The run under the mouse (its trail drawn over the others), and where hovering a run is reported. */
  hovered?: string | null; onHoverRun?: OnHoverRun;
  /** The population's chosen member (drawn ringed), and where a click on a member's head, trail or legend entry chooses one. */
  chosen?: string | null; onChooseRun?: OnHoverRun;
  /** Each run's live trail (liveTrail.ts: sampled episodes, smoothed), by run id. */
  trails?: Record<string, TrailPoint[]>;
  axis?: 'data' | 'full'; onAxis?: (a: 'data' | 'full') => void;
  /** More labelled point series (drawn above the runs, in the legend). */
  extra?: LabelledSeries[]; height?: number;
}) {
  const [hover, setHover] = useState<HoverAt | null>(null);
  const shapes = useMemo(() => ({
    dot: hoverShape('dot', (p) => ({ ...(p as unknown as Point), kind: 'eval' }), setHover),
    star: hoverShape('star', (p) => ({ ...(p as unknown as Point), kind: 'eval' }), setHover),
    cross: hoverShape('cross', (p) => ({ kind: 'baseline', name: String(p.name), tokens: Number(p.tokens), accuracy: Number(p.accuracy) }), setHover),
    ring: hoverShape('ring', (p) => ({ kind: 'labelled', label: String(p.label), note: p.note as string | undefined, tokens: Number(p.tokens), accuracy: Number(p.accuracy) }), setHover),
  }), []);
  const head = useMemo(() => headShape(onHoverRun, onChooseRun, chosen), [onHoverRun, onChooseRun, chosen]);
  const lit = shownHovered(runs, hovered);
  const perRun = runs.map((r) => ({ run: r, points: pointsOf(r) }));
  const all = perRun.flatMap((x) => x.points);
  // memoized: a hover redraws the chart, and new series props would make recharts rebuild every point under the mouse
  const { live, heads, headFront, groups } = useMemo(() => {
    const live = runs.map((r) => ({ run: r, trail: trails[r.id] ?? [] })).filter((x) => x.trail.length > 0);
    const heads = live.map(({ run, trail }) => ({ ...trail[trail.length - 1], run: run.name, id: run.id, label: run.valueLabel ?? '', hovered: run.id === lit }));
    const groups = populationGroups(runs, trails);
    // two populations or more: a frontier each (the group-norm lesson); else one across every head
    return { live, heads, headFront: groups.length < 2 && heads.length > 1 ? frontier(heads) : [], groups: groups.length >= 2 ? groups : [] };
  }, [runs, trails, lit]);
  const front = frontier(all);
  const warm = perRun.map((x) => ({ run: x.run, point: x.points.find((p) => p.step === 0) })).filter((x) => x.point);
  const current = runs.find((r) => r.current);
  const best = current?.meta?.bestEval;
  const changes = runs.map((r) => changeSeries(r, runs.length > 1)).filter((x): x is LabelledSeries => x !== null);
  const labelled = [...changes, ...extra];
  const domain = accuracyDomain([...all.map((p) => p.accuracy), ...heads.map((p) => p.accuracy), ...baselines.map((b) => b.accuracy), ...labelled.flatMap((s) => s.points.map((p) => p.accuracy))], axis);
  const scale = accuracyScale(domain);
  const chartLabels = labelsAndMarks({ heads, groups, labelled, baselines, points: all, warm: warm.map((w) => w.point!) });
  const legend: LegendItem[] = [
    ...(front.length > 0 ? [{ label: 'Pareto frontier', color: '#444', mark: 'dashed' as const }] : []),
    // a run with nothing drawn yet (the idle run beside a training population) is not in the legend
    ...runs.filter((r) => r.evals.length > 0 || (trails[r.id]?.length ?? 0) > 0).map((r) => ({ label: `${r.name}${r.current ? ' (trail)' : ''}`, color: r.color, mark: r.current ? 'line' as const : 'dot' as const, runId: r.id })),
    ...(live.length ? [{ label: 'live: sampled episodes, smoothed (lighter)', color: '#9aa', mark: 'line' as const }] : []),
    ...(headFront.length > 1 ? [{ label: 'frontier of the live positions', color: '#9aa', mark: 'dashed' as const }] : []),
    ...groups.map((g, i) => ({ label: `${g.label}: frontier of its ${g.members.length} runs (live)`, color: GROUP_STYLES[i % GROUP_STYLES.length].color, mark: 'dashed' as const })),
    ...(warm.length ? [{ label: 'warm start (step 0)', color: '#555', mark: 'star' as const }] : []),
    ...(baselines.length ? [{ label: 'scripted baselines', color: '#555', mark: 'cross' as const }] : []),
    ...labelled.map((s) => ({ label: s.name, color: s.color, mark: 'dot' as const })),
  ];
  const caption = (
    <p data-testid="pareto-caption" data-points={all.length} data-frontier={front.length} data-changes={changes.reduce((a, c) => a + c.points.length, 0)}
      data-trails={live.length} data-heads={heads.map((h) => `${h.tokens.toFixed(3)}:${h.accuracy.toFixed(3)}`).join(' ')}
      data-head-frontier={headFront.length} data-groups={groups.map((g) => `${g.label}:${g.frontier.length}`).join(' ')} data-hovered={lit ?? ''} data-chosen={chosen ?? ''}>
      {all.length === 0 ? 'No eval points yet' : `${evalCountText(all.length, runs.filter((r) => r.evals.length).length)}; frontier: ${front.length} point${front.length === 1 ? '' : 's'}`}
      {best ? `; best accuracy of this run: ${pct(best.accuracy)} at ${fmt(best.tokens)} tokens (step ${best.step})` : ''}
      {all.length === 0 ? '. Points appear at every evaluation (the first, step 0, is the warm start).' : '. Up and to the left is better: more accuracy for fewer tokens.'}
      {live.length > 0 ? ` The lighter lines move every step: accuracy and tokens of each step's sampled episodes (at the run's sampling temperature), smoothed; the dots are greedy evals.` : ''}
      {accuracy ? ` Eval accuracy here is ${accuracy.long}.` : ''}
      {chosen && live.some((x) => x.run.id === chosen) ? ` The ringed head is the chosen member, the one the lambda_tok slider moves (click another head, trail or legend entry to choose it).` : ''}
      {groups.length ? ` Two populations or more: each has its own frontier (${groups.map((g) => g.label).join(' vs ')}).` : ''}
      {axis === 'data' && all.length > 0 ? ` The accuracy axis is zoomed to the data (${pct(domain[0])} to ${pct(domain[1])}).` : ''}
    </p>
  );
  const tools = onAxis && (
    <button type="button" className="small" aria-pressed={axis === 'full'} onClick={() => onAxis(axis === 'full' ? 'data' : 'full')}>
      {axis === 'full' ? 'Zoom accuracy to the data' : 'Accuracy axis 0–100%'}
    </button>
  );
  return (
    <ChartFrame title="Accuracy vs tokens" control="chart" caption={caption} legend={legend} className="pareto" tools={tools} onHoverRun={onHoverRun} onChooseRun={onChooseRun} chosen={chosen}>
      {/* leaving the plot clears the hovered run: a head redrawn under a still mouse never reports its own leave */}
      <div className="pareto-plot" onMouseLeave={onHoverRun ? () => onHoverRun(null) : undefined}>
      <ResponsiveContainer width="100%" height={height}>
        <ComposedChart margin={{ top: 12, right: 24, bottom: 24, left: 12 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" dataKey="tokens" name="tokens" domain={[0, 'auto']} allowDecimals padding={{ left: 10, right: 10 }}
            label={{ value: 'message tokens per episode (eval)', position: 'insideBottom', offset: -12 }} />
          <YAxis type="number" dataKey="accuracy" name="accuracy" domain={scale.domain} ticks={scale.ticks} allowDataOverflow tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
            label={{ value: accuracy ? `eval accuracy: ${accuracy.short}` : 'eval accuracy', angle: -90, position: 'insideLeft', offset: 4, style: { textAnchor: 'middle' } }} width={56} />
          {front.length > 0 && (
            <Line data={front} dataKey="accuracy" type="stepAfter" stroke="#444" strokeDasharray="5 3" dot={false} activeDot={false}
              isAnimationActive={false} name="Pareto frontier" legendType="plainline" tooltipType="none" />
          )}
          {live.map(({ run, trail }) => {
            const e = emphasis(run.id, lit, { opacity: 0.45, width: 2 });
            return (
              <Line key={`trail-${run.id}`} data={trail} dataKey="accuracy" type="linear" stroke={run.color} strokeOpacity={e.opacity} strokeWidth={e.width} dot={false} activeDot={false}
                isAnimationActive={false} legendType="none" tooltipType="none" className={`live-trail${run.id === lit ? ' hovered' : ''}`}
                onClick={onChooseRun ? () => onChooseRun(run.id) : undefined}
                onMouseEnter={onHoverRun ? () => onHoverRun(run.id) : undefined} onMouseLeave={onHoverRun ? () => onHoverRun(null) : undefined} />
            );
          })}
          {headFront.length > 1 && (
            <Line data={headFront} dataKey="accuracy" type="stepAfter" stroke="#9aa" strokeDasharray="2 3" dot={false} activeDot={false} isAnimationActive={false} legendType="none" tooltipType="none" />
          )}
          {groups.map((g, i) => {
            const st = GROUP_STYLES[i % GROUP_STYLES.length];
            return (
              <Line key={`group-${g.key}`} data={g.frontier} dataKey="accuracy" type="stepAfter" stroke={st.color} strokeWidth={1.5} strokeDasharray={st.dash} dot={false} activeDot={false}
                isAnimationActive={false} legendType="none" tooltipType="none" className="group-frontier" name={`${g.label} frontier`} />
            );
          })}
          {heads.some((h) => h.label) && (
            <Scatter name="live positions" data={heads} fill="#9aa" isAnimationActive={false} legendType="none" shape={head} />
          )}
          {perRun.map(({ run, points }) => (
            <Scatter key={run.id} name={run.name} data={points} fill={run.color} isAnimationActive={false} shape={shapes.dot}
              line={run.current ? { stroke: run.color, strokeWidth: 1.5 } : false} lineJointType="linear" />
          ))}
          {warm.map(({ run, point }) => (
            <Scatter key={`warm-${run.id}`} name={`warm start (${run.name})`} data={[point!]} fill={run.color} shape={shapes.star} legendType="none" isAnimationActive={false} />
          ))}
          {baselines.length > 0 && (
            <Scatter name="baselines" data={baselines.map((b) => ({ tokens: b.tokens, accuracy: b.accuracy, name: b.name }))} fill="#555" shape={shapes.cross} legendType="cross" isAnimationActive={false} />
          )}
          {labelled.map((s) => (
            <Scatter key={s.key} name={s.name} data={s.points} fill="none" stroke={s.color} strokeWidth={2} shape={shapes.ring} isAnimationActive={false} className={`labelled-${labelledGroup(s)}`} />
          ))}
          {/* every text label, placed together in pixels: clear of each other and of every mark (trailLabels.tsx) */}
          {chartLabels.labels.length > 0 && <ChartLabels groups={chartLabels.groups} labels={chartLabels.labels} marks={chartLabels.marks} />}
          {budget !== null && <ReferenceLine x={budget} stroke="#e67e22" strokeDasharray="4 2" label={{ value: `B = ${budget}`, position: 'top', fontSize: 11 }} />}
        </ComposedChart>
      </ResponsiveContainer>
      </div>
      {hover && (
        <div className="tip pareto-tip" data-testid="pareto-tip" role="status"
          {...(hover.what.kind === 'eval' ? { 'data-step': hover.what.step, 'data-tokens': hover.what.tokens, 'data-accuracy': hover.what.accuracy } : {})}
          style={hover.x > hover.width / 2 ? { right: hover.width - hover.x + 12, top: hover.y + 12 } : { left: hover.x + 12, top: hover.y + 12 }}>
          <Tip h={hover.what} />
        </div>
      )}
    </ChartFrame>
  );
});
