// One small time-series chart: lines with their own (decimated) data, on a
// step axis (counting from 1), the unit on the y axis, optional second axis,
// reference lines (budget, baselines) and vertical markers (live changes,
// curriculum stages, skipped updates) that the tooltip names. No animation.
import { memo, useRef, type ReactElement } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { XY } from '../store/decimate';
import { ChartFrame, type LegendItem } from './ChartFrame';
import { fmt } from './labels';
import { useInView } from './useInView';

export interface ChartLine { key: string; label: string; color: string; dash?: string; /** with several runs: the run's name and the series' label, so the legend names each once */ run?: string; series?: string; data: XY[]; axis?: 'left' | 'right'; dots?: boolean; /** drawn over the others (its run is hovered) or faded: populations.ts emphasis */ opacity?: number; width?: number }
export interface HRef { y: number; label: string; color: string; axis?: 'left' | 'right' }
export interface VMark { x: number; label: string; color: string; /** the tooltip's words for it (else the label) */ note?: string }

/**
 * A time series' legend: only lines with data (a run with no step yet is not listed). Lines of several runs
 * (tagged with `run` and `series`): each run once in its colour, then each series once by its dash in grey,
 * instead of every run x series pair.
 */
export function seriesLegend(lines: readonly ChartLine[]): LegendItem[] {
  const withData = lines.filter((l) => l.data.length > 0);
  const tagged = withData.filter((l) => l.run !== undefined && l.series !== undefined);
  if (tagged.length < withData.length || tagged.length === 0) return withData.map((l) => ({ label: l.label, color: l.color, mark: l.dash ? 'dashed' as const : 'line' as const, ...(l.dash ? { dash: l.dash } : {}) }));
  const runs = new Map<string, string>(), series = new Map<string, string | undefined>();
  for (const l of tagged) {
    if (!runs.has(l.run!)) runs.set(l.run!, l.color);
    if (!series.has(l.series!)) series.set(l.series!, l.dash);
  }
  return [
    ...[...runs].map(([label, color]) => ({ label, color, mark: 'line' as const })),
    ...(series.size > 1 ? [...series].map(([label, dash]) => ({ label, color: '#666', mark: dash ? 'dashed' as const : 'line' as const, ...(dash ? { dash } : {}) })) : []),
  ];
}

/** The marks at a step, for the tooltip. */
export const marksAt = (marks: readonly VMark[], x: number): VMark[] => marks.filter((m) => m.x === x);

function makeTip(marks: readonly VMark[]) {
  return function Tip({ active, label, payload }: { active?: boolean; label?: unknown; payload?: ReadonlyArray<{ name?: unknown; value?: unknown; color?: string }> }) {
    if (!active || label === undefined) return null;
    const here = marksAt(marks, Number(label));
    return (
      <div className="tip">
        <strong>step {String(label)}</strong>
        {(payload ?? []).map((p, i) => <div key={i} style={{ color: p.color }}>{String(p.name)}: {fmt(Number(p.value), 4)}</div>)}
        {here.map((m, i) => <div key={`m${i}`} className="tip-mark" style={{ color: m.color }}>{m.note ?? m.label}</div>)}
      </div>
    );
  };
}

export const TimeSeriesChart = memo(function TimeSeriesChart({ title, unit, lines, hrefs = [], marks = [], yDomain, rightLabel }: {
  title: string; unit?: string; lines: ChartLine[]; hrefs?: HRef[]; marks?: VMark[]; yDomain?: [number | 'auto', number | 'auto']; rightLabel?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = useRef<ReactElement | null>(null);
  const inView = useInView(box);
  if (!inView && drawn.current) return drawn.current; // off screen: the last drawing stands (the same element: React skips it)
  const empty = lines.every((l) => l.data.length === 0);
  const legend = seriesLegend(lines);
  const caption = empty ? <p className="muted">No data yet.</p> : undefined;
  const framed = (plot: ReactElement) => (
    <div ref={box} className="series-box"><ChartFrame title={title} className="series" legend={legend} caption={caption}>{plot}</ChartFrame></div>
  );
  // never on screen yet: its frame and an empty plot of the same height (17 charts drawn at load held Start up to a second)
  if (!inView) return framed(<div className="series-undrawn" style={{ height: 150 }} />);
  const right = lines.some((l) => l.axis === 'right') || hrefs.some((h) => h.axis === 'right');
  drawn.current = framed(
      <ResponsiveContainer width="100%" height={150}>
        <LineChart margin={{ top: 6, right: right ? 4 : 12, bottom: 12, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" dataKey="x" domain={['dataMin', 'dataMax']} allowDecimals={false} tickCount={6} fontSize={11}
            label={{ value: 'step', position: 'insideBottomRight', offset: -6, fontSize: 10 }} />
          <YAxis yAxisId="left" type="number" domain={yDomain ?? ['auto', 'auto']} tickFormatter={(v: number) => fmt(v, 2)} width={50} fontSize={11}
            label={unit ? { value: unit, angle: -90, position: 'insideLeft', offset: 8, fontSize: 10, style: { textAnchor: 'middle' } } : undefined} />
          {right && <YAxis yAxisId="right" orientation="right" type="number" tickFormatter={(v: number) => fmt(v, 2)} width={36} fontSize={11}
            label={rightLabel ? { value: rightLabel, angle: 90, position: 'insideRight', fontSize: 10 } : undefined} />}
          <Tooltip isAnimationActive={false} content={makeTip(marks)} />
          {lines.map((l) => (
            <Line key={l.key} yAxisId={l.axis ?? 'left'} data={l.data} dataKey="y" name={l.label} stroke={l.color} strokeDasharray={l.dash} strokeOpacity={l.opacity ?? 1} strokeWidth={l.width ?? 1}
              dot={l.dots ? { r: 2 } : false} isAnimationActive={false} connectNulls />
          ))}
          {hrefs.map((h) => <ReferenceLine key={`h-${h.label}`} yAxisId={h.axis ?? 'left'} y={h.y} stroke={h.color} strokeDasharray="4 2" label={{ value: h.label, fontSize: 10, position: 'insideTopLeft' }} />)}
          {marks.map((m, i) => <ReferenceLine key={`v-${i}`} yAxisId="left" x={m.x} stroke={m.color} strokeDasharray="2 2" className="vmark"
            label={{ value: m.label, fontSize: 10, position: 'insideTopRight' }} />)}
        </LineChart>
      </ResponsiveContainer>,
  );
  return drawn.current;
});
