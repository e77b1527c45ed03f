// While a sweep trains as a population: each member's step, live, and a live change
// for one member or for all of them (recorded in each run's changes, marked on
// its trail like any live change).
import { useId, useState } from 'react';
import { FIELDS, LIVE_FIELDS, type RunConfig } from '../config';
import type { SweepRecord } from '../store/sweepSlice';
import { useApp, useHub, useHubFrame } from './storeContext';

export function SweepMembers({ sweep }: { sweep: SweepRecord }) {
  const id = useId();
  useHubFrame();
  const hub = useHub();
  const setMemberField = useApp((s) => s.setMemberField);
  const [target, setTarget] = useState<string>('all');
  const [field, setField] = useState<keyof RunConfig>('lambdaTok');
  const [value, setValue] = useState('');
  const runs = useApp((s) => s.runs); // with the recipe each member has its own length (src/rl/recipe.ts memberRecipe)
  const running = sweep.runs.filter((r) => r.status === 'running' && r.runId !== null);
  if (running.length === 0) return null;
  const stepOf = (runId: string) => { const s = hub.get(runId); return s && s.rows > 0 ? s.last('step') + 1 : 0; };
  const stepsOf = (runId: string) => runs.find((m) => m.id === runId)?.config.steps ?? sweep.steps;
  const fields = LIVE_FIELDS.filter((k) => !(k === 'lambdaTok' && sweep.axis === 'lambdaTok' && target === 'all'));
  return (
    <div className="sweep-members" data-testid="sweep-members" data-running={running.length}>
      <p className="help">
        {running.length} member{running.length === 1 ? '' : 's'} training side by side:{' '}
        {running.map((r) => `${r.label} at step ${stepOf(r.runId!)}${sweep.untilPaused ? '' : ` of ${stepsOf(r.runId!)}`}`).join(' · ')}{sweep.untilPaused ? ', until paused' : ''}.
      </p>
      <form className="inline" onSubmit={(e) => { e.preventDefault(); void setMemberField(target === 'all' ? null : target, field, value); }}>
        <label htmlFor={`${id}-t`}>Live change for</label>
        <select id={`${id}-t`} value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="all">every member</option>
          {running.map((r) => <option key={r.runId} value={r.runId!}>{r.label}</option>)}
        </select>
        <label htmlFor={`${id}-f`} className="sr-only">field</label>
        <select id={`${id}-f`} value={field} onChange={(e) => setField(e.target.value as keyof RunConfig)}>
          {fields.map((k) => <option key={k} value={k} title={FIELDS[k].help}>{k}</option>)}
        </select>
        <label htmlFor={`${id}-v`} className="sr-only">value</label>
        <input id={`${id}-v`} type="text" inputMode="decimal" size={6} value={value} placeholder="value" onChange={(e) => setValue(e.target.value)} />
        <button type="submit" className="small" disabled={value.trim() === ''}>Apply</button>
      </form>
    </div>
  );
}
