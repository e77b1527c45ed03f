// The AgentPO comparison (src/rl/compare.ts): accuracy of each arm with its
// 95% interval as error bars, and the tokens it cost.
import { memo } from 'react';
import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Comparison } from '../rl/compare';
import { ChartFrame } from './ChartFrame';
import { fmt, pct } from './labels';
import { useApp, useAppStore } from './storeContext';

/** An arm's name on two lines ("untrained" over "collaborator"): three arms fit side by side at any width. */
function TwoLineTick(props: unknown) {
  const { x, y, payload } = props as { x?: number; y?: number; payload?: { value?: unknown } };
  const words = String(payload?.value ?? '').split(' ');
  const lines = words.length > 1 ? [words.slice(0, -1).join(' '), words[words.length - 1]] : words;
  return (
    <text x={x} y={(y ?? 0) + 10} textAnchor="middle" fontSize={10} fill="#555">
      {lines.map((l, i) => <tspan key={i} x={x} dy={i ? 11 : 0}>{l}</tspan>)}
    </text>
  );
}

export const ComparisonChart = memo(function ComparisonChart({ comparison }: { comparison: Comparison }) {
  const data = comparison.rows.map((r) => ({ name: r.name, accuracy: r.accuracy, err: [r.accuracy - r.lo, r.hi - r.accuracy], tokens: r.tokens, lo: r.lo, hi: r.hi, n: r.n }));
  return (
    <ChartFrame title="Comparison" className="comparison"
      caption={<p>At step {comparison.step}, on {comparison.rows[0]?.n ?? 0} held-out problems; bars are accuracy with its 95% interval. {comparison.rows.map((r) => `${r.name}: ${pct(r.accuracy)} [${pct(r.lo)}, ${pct(r.hi)}], ${fmt(r.tokens)} tokens`).join('; ')}.</p>}>
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={data} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="name" interval={0} height={30} tick={TwoLineTick} />
          <YAxis domain={[0, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)}%`} fontSize={11} width={40} />
          <Tooltip isAnimationActive={false} formatter={(v, _n, item) => [`${pct(Number(v))} (${fmt((item.payload as { tokens: number }).tokens)} tokens)`, 'accuracy']} />
          <Bar dataKey="accuracy" fill="#4c78a8" isAnimationActive={false}>
            <ErrorBar dataKey="err" width={6} stroke="#222" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});

/** AgentPO runs: compute the comparison (the worker runs the three arms on the held-out problems). */
export function CompareButton() {
  const store = useAppStore();
  const busy = useApp((s) => s.busy !== null || s.status === 'running');
  return (
    <p>
      <button type="button" disabled={busy} onClick={() => void store.getState().compare()}>Compare</button>{' '}
      <small className="muted">the Actor alone, with the untrained and with the trained Collaborator (best eval), with 95% intervals</small>
    </p>
  );
}
