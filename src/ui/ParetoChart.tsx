// Accuracy vs tokens: every eval point of the shown runs coloured by run, the
// current run's trail as a path, the frontier (src/rl/pareto.ts) as a step
// line, each run's warm-start point (its step-0 eval) as a star, scripted
// baselines as crosses, the budget B in budget mode; hover shows step and lambda_tok.
import { memo } from 'react';
import { CartesianGrid, ComposedChart, LabelList, Line, ReferenceLine, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import type { BaselineResult } from '../envs/types';
import { decimateIndices, MAX_POINTS } from '../store/decimate';
import { frontier } from '../store/modelInfo';
import { ChartFrame } from './ChartFrame';
import { fmt, pct } from './labels';
import type { ShownRun } from './shownRuns';

interface Point { tokens: number; accuracy: number; step: number; lambdaTok: number; run: string }

function pointsOf(r: ShownRun): Point[] {
  const all = r.evals.map((e) => ({ tokens: e.tokens, accuracy: e.accuracy, step: e.step, lambdaTok: e.lambdaTok, run: r.name }));
  if (all.length <= MAX_POINTS) return all;
  return decimateIndices(all.map((p) => p.accuracy), MAX_POINTS).map((i) => all[i]);
}

function Tip({ active, payload }: { active?: boolean; payload?: ReadonlyArray<{ payload?: unknown }> }) {
  const p = active ? (payload?.[0]?.payload as (Point & { name?: string }) | undefined) : undefined;
  if (!p) return null;
  if (p.name && p.step === undefined) return <div className="tip"><strong>{p.name}</strong> (scripted baseline)<br />accuracy {pct(p.accuracy)} · {fmt(p.tokens)} tokens</div>;
  return (
    <div className="tip">
      <strong>{p.run}</strong><br />
      step {p.step} · lambda_tok {fmt(p.lambdaTok, 4)}<br />
      accuracy {pct(p.accuracy)} · {fmt(p.tokens)} tokens
    </div>
  );
}

export const ParetoChart = memo(function ParetoChart({ runs, baselines, budget }: { runs: ShownRun[]; baselines: BaselineResult[]; budget: number | null }) {
  const perRun = runs.map((r) => ({ run: r, points: pointsOf(r) }));
  const all = perRun.flatMap((x) => x.points);
  const front = frontier(all);
  const warm = perRun.map((x) => ({ run: x.run, point: x.points.find((p) => p.step === 0) })).filter((x) => x.point);
  const current = runs.find((r) => r.current);
  const best = current?.meta?.bestEval;
  const caption = (<>
    <ul className="legend">
      {front.length > 0 && <li><span className="key" style={{ borderTop: '2px dashed #444' }} />Pareto frontier</li>}
      {runs.map((r) => <li key={r.id}><span className="key" style={{ borderTop: `${r.current ? 2 : 0}px solid ${r.color}`, background: r.current ? undefined : r.color, height: r.current ? undefined : '0.5rem', width: r.current ? undefined : '0.5rem', borderRadius: r.current ? undefined : '50%' }} />{r.name}{r.current ? ' (trail)' : ''}</li>)}
      {baselines.length > 0 && <li>✚ scripted baselines</li>}
    </ul>
    <p data-testid="pareto-caption" data-points={all.length} data-frontier={front.length}>
      {all.length} eval point{all.length === 1 ? '' : 's'} from {runs.filter((r) => r.evals.length).length} run{runs.length === 1 ? '' : 's'}; frontier: {front.length} point{front.length === 1 ? '' : 's'}
      {best ? `; best of this run: ${pct(best.accuracy)} at ${fmt(best.tokens)} tokens (step ${best.step})` : ''}
      {all.length === 0 ? '. Points appear at every evaluation (the first, step 0, is the warm start).' : '. ★ marks each run\'s warm start (its step-0 eval).'}
    </p>
  </>);
  return (
    <ChartFrame title="Accuracy vs tokens" caption={caption} className="pareto">
      <ResponsiveContainer width="100%" height={300}>
        <ComposedChart margin={{ top: 8, right: 24, bottom: 24, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" dataKey="tokens" name="tokens" domain={[0, 'auto']} allowDecimals
            label={{ value: 'message tokens per episode (eval)', position: 'insideBottom', offset: -12 }} />
          <YAxis type="number" dataKey="accuracy" name="accuracy" domain={[0, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)}%`} />
          <Tooltip content={Tip} isAnimationActive={false} />
          {front.length > 0 && (
            <Line data={front} dataKey="accuracy" type="stepAfter" stroke="#444" strokeDasharray="5 3" dot={false} activeDot={false}
              isAnimationActive={false} name="Pareto frontier" legendType="plainline" />
          )}
          {perRun.map(({ run, points }) => (
            <Scatter key={run.id} name={run.name} data={points} fill={run.color} isAnimationActive={false}
              line={run.current ? { stroke: run.color, strokeWidth: 1.5 } : false} lineJointType="linear" />
          ))}
          {warm.map(({ run, point }) => (
            <Scatter key={`warm-${run.id}`} name={`warm start (${run.name})`} data={[point!]} fill={run.color} shape="star" legendType="none" isAnimationActive={false} />
          ))}
          {baselines.length > 0 && (
            <Scatter name="baselines" data={baselines.map((b) => ({ tokens: b.tokens, accuracy: b.accuracy, name: b.name }))} fill="#555" shape="cross" legendType="cross" isAnimationActive={false}>
              <LabelList dataKey="name" position="right" fontSize={11} />
            </Scatter>
          )}
          {budget !== null && <ReferenceLine x={budget} stroke="#e67e22" strokeDasharray="4 2" label={{ value: `B = ${budget}`, position: 'top', fontSize: 11 }} />}
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
});
