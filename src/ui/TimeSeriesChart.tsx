// One small time-series chart: lines with their own (decimated) data, on a
// step axis, optional second axis, reference lines (budget, baselines) and
// vertical markers (curriculum stages, skipped updates). No animation.
import { memo, useRef, type ReactElement } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { XY } from '../store/decimate';
import { ChartFrame } from './ChartFrame';
import { fmt } from './labels';
import { useInView } from './useInView';

export interface ChartLine { key: string; label: string; color: string; dash?: string; data: XY[]; axis?: 'left' | 'right'; dots?: boolean }
export interface HRef { y: number; label: string; color: string; axis?: 'left' | 'right' }
export interface VMark { x: number; label: string; color: string }

export const TimeSeriesChart = memo(function TimeSeriesChart({ title, lines, hrefs = [], marks = [], yDomain, rightLabel }: {
  title: string; lines: ChartLine[]; hrefs?: HRef[]; marks?: VMark[]; yDomain?: [number | 'auto', number | 'auto']; rightLabel?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = useRef<ReactElement | null>(null);
  const inView = useInView(box);
  if (!inView && drawn.current) return drawn.current; // off screen: the last drawing stands (the same element: React skips it)
  const right = lines.some((l) => l.axis === 'right') || hrefs.some((h) => h.axis === 'right');
  const empty = lines.every((l) => l.data.length === 0);
  drawn.current = (
    <div ref={box} className="series-box">
    <ChartFrame title={title} className="series" caption={empty ? <p className="muted">No data yet.</p> : (
      <ul className="legend">{lines.map((l) => <li key={l.key}><span className="key" style={{ borderTop: `2px ${l.dash ? 'dashed' : 'solid'} ${l.color}` }} />{l.label}</li>)}</ul>
    )}>
      <ResponsiveContainer width="100%" height={150}>
        <LineChart margin={{ top: 4, right: right ? 4 : 12, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" dataKey="x" domain={['dataMin', 'dataMax']} allowDecimals={false} tickCount={6} fontSize={11} />
          <YAxis yAxisId="left" type="number" domain={yDomain ?? ['auto', 'auto']} tickFormatter={(v: number) => fmt(v, 2)} width={44} fontSize={11} />
          {right && <YAxis yAxisId="right" orientation="right" type="number" tickFormatter={(v: number) => fmt(v, 2)} width={36} fontSize={11}
            label={rightLabel ? { value: rightLabel, angle: 90, position: 'insideRight', fontSize: 10 } : undefined} />}
          <Tooltip isAnimationActive={false} labelFormatter={(v) => `step ${v}`} formatter={(v) => fmt(Number(v), 4)} />
          {lines.map((l) => (
            <Line key={l.key} yAxisId={l.axis ?? 'left'} data={l.data} dataKey="y" name={l.label} stroke={l.color} strokeDasharray={l.dash}
              dot={l.dots ? { r: 2 } : false} isAnimationActive={false} connectNulls />
          ))}
          {hrefs.map((h) => <ReferenceLine key={`h-${h.label}`} yAxisId={h.axis ?? 'left'} y={h.y} stroke={h.color} strokeDasharray="4 2" label={{ value: h.label, fontSize: 10, position: 'insideTopLeft' }} />)}
          {marks.map((m, i) => <ReferenceLine key={`v-${i}`} yAxisId="left" x={m.x} stroke={m.color} strokeDasharray="2 2" label={{ value: m.label, fontSize: 10, position: 'insideTopRight' }} />)}
        </LineChart>
      </ResponsiveContainer>
    </ChartFrame>
    </div>
  );
  return drawn.current;
});
