// The charts: the accuracy-vs-tokens chart first and largest, the last eval's
// figures and the comparison (when there is one) beside it, then the time
// series of every shown run in a compact grid, grouped. Steps count from 1 (a
// metrics row of step index i is step i + 1; the eval at step k came after
// it). Redrawn from the MetricsHub once per frame at most (fast: once a second).
import { useCallback, useMemo, useRef } from 'react';
import type { EvalRecord } from '../rl/runRecord';
import { decimateXY, MAX_POINTS, type XY } from '../store/decimate';
import type { MetricsSeries } from '../store/metricsSeries';
import { CompareButton, ComparisonChart } from './ComparisonChart';
import { EvalTable } from './EvalTable';
import { DASHES, seriesColor } from './palette';
import { changeMarks } from './changeMarks';
import { ParetoChart } from './ParetoChart';
import { CHART_GROUPS, EVAL_CORE_KEYS, TIME_SERIES, type ChartDef, type SeriesDef } from './seriesDefs';
import { chartSignature, shownRuns, type ShownRun } from './shownRuns';
import { liveTrail, type TrailPoint } from './liveTrail';
import { emphasis, shownHovered } from './populations';
import { SweepPanel } from './SweepPanel';
import { ACCURACY } from './taskPicture';
import { populationRun, chosenMember } from '../store/currentRun';
import { useApp, useAppStore, useDrawTick, useHub } from './storeContext';
import { TimeSeriesChart, type ChartLine, type HRef, type VMark } from './TimeSeriesChart';

const MAX_MARKS = 40;
/** The one-column layout of styles.css, where the chart is below the controls. */

function seriesXY(s: MetricsSeries | undefined, def: SeriesDef): XY[] {
  if (!s || s.rows === 0) return [];
  const x = s.column('step').map((i) => i + 1); // the k-th step is step k
  const y = def.metric === 'steps_per_s' ? s.column('step_time_ms').map((ms) => (ms > 0 ? 1000 / ms : NaN)) : s.column(def.metric);
  return decimateXY(x, y, MAX_POINTS);
}

function evalXY(evals: EvalRecord[], key: string): XY[] {
  const pts = evals.filter((e) => Number.isFinite(e[key])).map((e) => ({ x: e.step, y: e[key] }));
  if (pts.length <= MAX_POINTS) return pts;
  return decimateXY(pts.map((p) => p.x), pts.map((p) => p.y), MAX_POINTS);
}

/**
 * A time series' lines of every shown run: its metrics, and its evals on the accuracy and tokens charts.
 * One run: a colour per series; several: the run's colour, dashes per series. The hovered run's lines
 * are drawn over the others' (populations.ts emphasis).
 */
export function runLines(def: ChartDef, shown: readonly ShownRun[], series: (id: string) => MetricsSeries | undefined, hovered: string | null): ChartLine[] {
  const single = shown.length === 1;
  const colorOf = (r: ShownRun, i: number) => (single ? seriesColor(i) : r.color);
  const dashOf = (i: number) => (single ? undefined : DASHES[i % DASHES.length]);
  const nameOf = (r: ShownRun, label: string) => (single ? label : `${r.name} · ${label}`);
  const tags = (r: ShownRun, label: string) => (single ? {} : { run: r.name, series: label });
  const lines: ChartLine[] = [];
  for (const r of shown) {
    const s = series(r.id);
    const e = emphasis(r.id, hovered);
    def.series.forEach((sd, i) => lines.push({ key: `${r.id}-${sd.metric}`, label: nameOf(r, sd.label), ...tags(r, sd.label), color: colorOf(r, i), dash: dashOf(i), data: seriesXY(s, sd), axis: sd.axis, ...e }));
    if (def.id === 'accuracy') lines.push({ key: `${r.id}-eval-acc`, label: nameOf(r, 'eval accuracy'), ...tags(r, 'eval accuracy'), color: single ? seriesColor(1) : r.color, dash: single ? undefined : '2 2', data: evalXY(r.evals, 'accuracy'), dots: true, ...e });
    if (def.id === 'tokens') lines.push({ key: `${r.id}-eval-tok`, label: nameOf(r, 'eval tokens'), ...tags(r, 'eval tokens'), color: single ? seriesColor(3) : r.color, dash: single ? undefined : '2 2', data: evalXY(r.evals, 'tokens'), dots: true, ...e });
  }
  return lines;
}

export function ChartsPanel() {
  const hub = useHub();
  const store = useAppStore();
  // redrawn when telemetry arrives or what the charts show changes (the signature), at most every REDRAW_MS
  const frame = useDrawTick(chartSignature);
  const signature = useMemo(() => { void frame; return chartSignature(store.getState()); }, [frame, store]);
  const { shown, trainer, config, flags } = useMemo(() => {
    void signature;
    const s = store.getState();
    return { shown: shownRuns(s), trainer: s.trainer, config: s.config, flags: s.flags };
  }, [signature, store]);
  const current = shown.find((r) => r.current);
  const baselines = useMemo(() => current?.meta?.baselines ?? trainer?.baselines ?? [], [current, trainer]);
  const curriculum = useMemo(() => current?.meta?.curriculum ?? trainer?.curriculum ?? [], [current, trainer]);
  const comparison = current?.meta?.comparison ?? trainer?.comparison ?? null;
  const axis = useApp((s) => s.accuracyAxis);
  const setAxis = useApp((s) => s.setAccuracyAxis);
  // every shown run's live changes (an overlaid or imported run keeps its marks), named by run when it is not the current one
  const changes = useMemo(() => shown.flatMap((r) => changeMarks(r.meta?.changes).map((m) => ({ ...m, run: r.current || shown.length === 1 ? '' : `${r.name}: ` }))), [shown]);
  const hoveredRun = useApp((s) => s.hoveredRun);
  const setHoveredRun = useApp((s) => s.setHoveredRun);
  // a click on a member of the current population (its head, trail or legend entry) chooses it; other runs are not members
  const chosen = useApp((s) => (s.population ? chosenMember(s)?.runId ?? null : null));
  const memberIds = useApp((s) => (s.population ? (populationRun(s)?.runs ?? []).map((r) => r.runId).join(' ') : ''));
  const selectSweepRun = useApp((s) => s.selectSweepRun);
  const chooseMember = useCallback((id: string | null) => { if (id && memberIds.split(' ').includes(id)) void selectSweepRun(id); }, [memberIds, selectSweepRun]);
  const hovered = shownHovered(shown, hoveredRun);
  const budget = config.lambdaMode === 'budget' ? config.budget : null;

  const charts = useMemo(() => {
    void frame; // recomputed when telemetry has advanced
    const single = shown.length === 1;
    const nameOf = (r: ShownRun, label: string) => (single ? label : `${r.name} · ${label}`);
    const marks: VMark[] = [
      ...curriculum.map((c) => ({ x: c.step, label: c.label, color: '#8e44ad' })),
      ...[...new Set(flags.filter((f) => f.kind === 'nonfinite-update').map((f) => f.step + 1))].slice(-MAX_MARKS).map((s) => ({ x: s, label: 'skipped', color: '#c0392b' })),
      ...changes.map((m) => ({ x: m.step, label: m.label, color: '#8e44ad', note: `${m.run}changed live from step ${m.step}: ${m.label}` })),
    ];
    return TIME_SERIES.map((def) => {
      const lines: ChartLine[] = [];
      const hrefs: HRef[] = [];
      let rightLabel: string | undefined;
      lines.push(...runLines(def, shown, (id) => hub.get(id), hovered));
      if (def.id === 'accuracy') for (const b of baselines) hrefs.push({ y: b.accuracy, label: `${b.name} ${Math.round(b.accuracy * 100)}%`, color: '#555' });
      if (def.id === 'lambda' && budget !== null) {
        // the budget is in tokens: tokens on a second axis with B as its reference line
        shown.forEach((r) => lines.push({ key: `${r.id}-lam-tok`, label: nameOf(r, 'tokens'), ...(single ? {} : { run: r.name, series: 'tokens' }), color: single ? seriesColor(1) : r.color, dash: '2 2', data: seriesXY(hub.get(r.id), { metric: 'tokens', label: 'tokens' }), axis: 'right' }));
        hrefs.push({ y: budget, label: `budget B = ${budget}`, color: '#e67e22', axis: 'right' });
        rightLabel = 'tokens';
      }
      if (def.id === 'tokens' && budget !== null) hrefs.push({ y: budget, label: `B = ${budget}`, color: '#e67e22' });
      return { def, lines, hrefs, rightLabel, marks };
    });
  }, [frame, shown, hub, baselines, budget, curriculum, flags, changes, hovered]);

  // every shown run's sampled trail, recomputed as telemetry arrives: the chart moves every step
  // the same object until a shown run gets a new step: the chart redraws (and recharts rebuilds its points) only then
  const trailCache = useRef<{ key: string; value: Record<string, TrailPoint[]> }>({ key: '', value: {} });
  const trails = useMemo(() => {
    void frame;
    const key = shown.map((r) => `${r.id}:${hub.get(r.id)?.rows ?? 0}`).join('|');
    if (key !== trailCache.current.key) trailCache.current = { key, value: Object.fromEntries(shown.map((r) => [r.id, liveTrail(hub.get(r.id))])) };
    return trailCache.current.value;
  }, [frame, shown, hub]);

  const extrasKeys = useMemo(() => [...new Set((current?.evals ?? []).flatMap((e) => Object.keys(e)).filter((k) => !EVAL_CORE_KEYS.has(k)))], [current?.evals]);
  const curriculumMarks: VMark[] = useMemo(() => curriculum.map((c) => ({ x: c.step, label: c.label, color: '#8e44ad' })), [curriculum]);

  // on a phone the chart is below the controls: when training starts (Start, or a sweep), bring it into view
  const byId = new Map(charts.map((c) => [c.def.id, c]));
  const extras = extrasKeys.length > 0 && (
    <TimeSeriesChart title="Eval extras" unit="per eval" marks={curriculumMarks}
      lines={extrasKeys.map((k, i) => ({ key: k, label: k, color: seriesColor(i), data: evalXY(current?.evals ?? [], k), dots: true }))} />
  );
  return (
    <div className="charts">
      <div className="top-charts">
        <ParetoChart runs={shown} trails={trails} baselines={baselines} budget={budget} axis={axis} onAxis={setAxis} hovered={hovered} onHoverRun={setHoveredRun}
          chosen={chosen} onChooseRun={chooseMember} accuracy={ACCURACY[config.env]} />
        <div className="side">
          <SweepPanel />
          <EvalTable run={current} />
          {config.env === 'addition' && <CompareButton />}
          {comparison && comparison.rows.length > 0 && <ComparisonChart comparison={comparison} />}
        </div>
      </div>
      {CHART_GROUPS.map((g) => (
        <section key={g.id} className="series-group" aria-label={g.title} data-control="series">
          <h3 className="group-title">{g.title}</h3>
          <div className="series-grid">
            {g.charts.map((def) => {
              const c = byId.get(def.id)!;
              return <TimeSeriesChart key={def.id} title={def.title} unit={def.id === 'accuracy' ? ACCURACY[config.env].short : def.unit} lines={c.lines} hrefs={c.hrefs} yDomain={def.yDomain} rightLabel={c.rightLabel} marks={c.marks} />;
            })}
            {g.id === 'accuracy' && extras}
          </div>
        </section>
      ))}
      <p className="muted legend-note">Colours: one per run when several runs are shown (dashes tell the series apart). Overlay stored runs from the Runs tab. Purple lines mark live changes.</p>
    </div>
  );
}
