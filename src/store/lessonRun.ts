// The learner's run as a lesson's check reads it (src/lessons/runView.ts): the current run's members (a lone run
// is a population of one) with their evals, per-step metrics (from the MetricsHub), flags, best step and the
// AgentPO comparison, built from the store as the CLI builds it from a run's files, so both evaluate a check with
// the same code (src/lessons/checks.ts evaluateCheck).
import { comparisonOf, stepRowOf, type LessonMember, type LessonRunView } from '../lessons';
import { METRIC_NAMES } from '../worker/protocol';
import type { StoreContext } from './context';
import { chosenMember, populationRun, shortLabel } from './currentRun';

/** The hub's rows of a run as the view's step rows (step counted from 1). */
function stepRows(ctx: StoreContext, runId: string): LessonMember['metrics'] {
  const series = ctx.deps.hub.get(runId);
  if (!series || series.rows === 0) return [];
  const cols = METRIC_NAMES.map((n) => series.column(n));
  const out: LessonMember['metrics'] = [];
  for (let r = 0; r < series.rows; r++) out.push(stepRowOf(Object.fromEntries(METRIC_NAMES.map((n, c) => [n, cols[c][r]]))));
  return out;
}

export function lessonRunView(ctx: StoreContext): LessonRunView {
  const s = ctx.get();
  const pop = s.population ? populationRun(s) : null;
  const ids = pop
    ? pop.runs.filter((r) => r.runId !== null).map((r) => ({ id: r.runId!, label: shortLabel(r.label) }))
    : s.runId ? [{ id: s.runId, label: 'this run' }] : [];
  const members: LessonMember[] = ids.map(({ id, label }) => {
    const meta = ctx.meta(id), current = id === s.runId;
    const evals = meta?.evals ?? (current ? s.trainer?.evals ?? [] : []);
    const comparison = meta?.comparison ?? (current ? s.trainer?.comparison ?? null : null);
    return {
      label,
      evals: evals.map((e) => ({ ...e })),
      metrics: stepRows(ctx, id),
      flags: (meta?.flags ?? (current ? s.flags : [])).map((f) => ({ kind: f.kind, step: f.step, message: f.message })),
      bestStep: meta?.bestEval?.step ?? (current ? s.trainer?.bestEval?.step ?? null : null),
      comparison: comparisonOf(comparison?.rows),
    };
  });
  const chosenId = pop ? chosenMember(s)?.runId : undefined;
  const chosen = Math.max(0, ids.findIndex((x) => x.id === chosenId));
  return { members, chosen, groupsPerStep: s.config.promptsPerStep };
}
