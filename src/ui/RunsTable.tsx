// The runs table: each run's setup in brief, best and final eval, status;
// show it on the charts (pinned: kept when a new run starts), and in one
// actions menu: rename, duplicate (then change what you like), twin (the
// same seed and settings with another loss variant, trained beside it),
// export (JSON, CSV, checkpoints), load its weights, delete; import a run.
import { useId, useState } from 'react';
import { LOSS_IDS, LOSSES } from '../contract/losses';
import type { RunMeta } from '../store/runTypes';
import { changeStep } from './changeMarks';
import { fmt, pct } from './labels';
import { RowMenu } from './RowMenu';
import { colorsOf } from './shownRuns';
import { useApp, useAppStore } from './storeContext';

/** A pushpin drawn inline (an emoji needs a colour-emoji font the page cannot count on). */
const PinIcon = () => (
  <svg className="pin-icon" width="12" height="14" viewBox="0 0 12 14" aria-hidden="true">
    <path d="M3 1h6v1.2L8 3v3.2l2.2 2V9.5H6.6V13L6 14l-.6-1V9.5H1.8V8.2L4 6.2V3L3 2.2z" fill="currentColor" />
  </svg>
);

function summary(m: RunMeta): string {
  const c = m.config;
  const lam = c.lambdaMode === 'budget' ? `budget B=${c.budget} (eta ${c.dualEta})` : `lambda_tok ${c.lambdaTok}`;
  return `${c.algorithm.toUpperCase()} G=${c.groupSize} P=${c.promptsPerStep} lr ${c.lr} · ${lam} · ${c.nLayer}x${c.nEmbd}`;
}

const evalText = (e: RunMeta['bestEval'] | undefined) => (e ? `${pct(e.accuracy)}, ${fmt(e.tokens)} tok (step ${e.step})` : '–');

function RunRow({ m, current, color }: { m: RunMeta; current: boolean; color: string }) {
  const id = useId();
  const overlay = useApp((s) => s.overlay.includes(m.id));
  const pinned = useApp((s) => s.pinned.includes(m.id));
  const a = useAppStore().getState();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(m.name);
  const [twinning, setTwinning] = useState(false);
  const others = LOSS_IDS.filter((v) => v !== m.config.algorithm);
  const [twin, setTwin] = useState<string>(others[0]);
  const last = m.evals[m.evals.length - 1];
  const changes = m.changes?.length ? ` · changed live: ${m.changes.slice(-3).map((c) => `${c.field} ${c.value} from step ${changeStep(c)}`).join(', ')}` : '';
  return (
    <tr className={current ? 'current' : ''}>
      <td>
        {current ? <span className="swatch" style={{ background: color }} title="the run in the trainer (always shown)" /> : (
          <input type="checkbox" id={`${id}-show`} checked={overlay} onChange={() => void a.toggleOverlay(m.id)} aria-label={`Show ${m.name}`} />
        )}
        {/* overlays are cleared when a new run starts; a pinned run stays */}
        <button type="button" className={`pin${pinned ? ' on' : ''}`} aria-pressed={pinned} aria-label={`Pin ${m.name}`}
          title={pinned ? 'pinned: stays on the charts when a new run starts' : 'pin: keep it on the charts when a new run starts'} onClick={() => void a.togglePin(m.id)}>
          <PinIcon />
        </button>
      </td>
      <th scope="row">
        {editing ? (
          <form onSubmit={(e) => { e.preventDefault(); setEditing(false); void a.renameRun(m.id, name); }}>
            <label htmlFor={`${id}-name`} className="sr-only">New name of {m.name}</label>
            <input id={`${id}-name`} value={name} maxLength={200} autoFocus onChange={(e) => setName(e.target.value)} />
            <button type="submit" aria-label={`Save the new name of ${m.name}`}>Save name</button>
          </form>
        ) : (
          <>
            <span className="swatch" style={{ background: color }} /> {m.name}{current ? ' (this run)' : ''}
          </>
        )}
      </th>
      <td className="config">{m.preset}: {summary(m)}{changes}</td>
      <td>{m.steps}</td>
      <td>{evalText(m.bestEval)}</td>
      <td>{evalText(last)}</td>
      <td>{m.status}{m.flags.some((f) => f.kind === 'diverged') ? ' (diverged)' : ''}</td>
      <td className="actions">
        <RowMenu label={`Actions for ${m.name}`} items={[
          ...(!editing ? [{ label: 'Rename', name: `Rename ${m.name}`, onSelect: () => { setName(m.name); setEditing(true); } }] : []),
          { label: 'Duplicate', name: `Duplicate ${m.name}`, onSelect: () => void a.duplicateRun(m.id) },
          { label: 'Twin with another loss', name: `Twin of ${m.name} with another loss`, title: 'train its settings and seed with another loss variant, the two side by side on the charts', onSelect: () => setTwinning(true) },
          { label: 'Export JSON', name: `Export JSON of ${m.name}`, onSelect: () => void a.exportRun(m.id, 'json') },
          { label: 'Export CSV', name: `Export CSV of ${m.name}`, onSelect: () => void a.exportRun(m.id, 'csv') },
          { label: 'Export TRL', name: `Export TRL of ${m.name}`, title: 'the setup as a TRL GRPOTrainer script (one .py: run it to unpack)', onSelect: () => void a.exportRun(m.id, 'trl') },
          { label: 'Export verl', name: `Export verl of ${m.name}`, title: 'the setup as a verl main_ppo recipe (one .py: run it to unpack)', onSelect: () => void a.exportRun(m.id, 'verl') },
          { label: 'Export checkpoint', name: `Export checkpoint of ${m.name}`, disabled: !current && m.checkpoints.last === undefined, onSelect: () => void a.exportRun(m.id, 'last') },
          ...(m.checkpoints.best !== undefined ? [{ label: 'Export best', name: `Export best checkpoint of ${m.name}`, onSelect: () => void a.exportRun(m.id, 'best') }] : []),
          ...(!current && m.checkpoints.last !== undefined ? [{ label: 'Load weights', name: `Load weights of ${m.name}`, onSelect: () => void a.loadRunCheckpoint(m.id, 'last') }] : []),
          { label: 'Delete', name: `Delete ${m.name}`, disabled: current, onSelect: () => void a.deleteRun(m.id) },
        ]} />
        {twinning && (
          <form className="twin" onSubmit={(e) => { e.preventDefault(); setTwinning(false); void a.twinRun(m.id, twin); }}>
            <label htmlFor={`${id}-twin`}>Loss of the twin of {m.name}</label>
            <select id={`${id}-twin`} value={twin} onChange={(e) => setTwin(e.target.value)}>
              {others.map((v) => <option key={v} value={v}>{LOSSES[v].label}</option>)}
            </select>
            <button type="submit" aria-label={`Train the twin of ${m.name}`}>Train twin (seed {m.config.seed})</button>
            <button type="button" onClick={() => setTwinning(false)}>Cancel</button>
          </form>
        )}
      </td>
    </tr>
  );
}

export function RunsTable() {
  const id = useId();
  const runs = useApp((s) => s.runs);
  const runId = useApp((s) => s.runId);
  const sweep = useApp((s) => s.sweep);
  // the colours the charts use (one function for both)
  const colors = colorsOf({ runs, runId, sweep });
  const a = useAppStore().getState();
  return (
    <section aria-labelledby={`${id}-h`} className="runs">
      <header>
        <h2 id={`${id}-h`}>Runs</h2>
        <label className="import">
          Import a run
          <input type="file" multiple accept=".json,.safetensors,application/json" onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = '';
            if (files.length) void a.importFiles(files);
          }} />
        </label>
      </header>
      {runs.length === 0 ? <p className="muted">No runs yet. A run is recorded here from its first step, and kept in this browser.</p> : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr><th scope="col">shown</th><th scope="col">name</th><th scope="col">setup</th><th scope="col">steps</th><th scope="col">best eval</th><th scope="col">final eval</th><th scope="col">status</th><th scope="col">actions</th></tr>
            </thead>
            <tbody>{runs.map((m) => <RunRow key={m.id} m={m} current={m.id === runId} color={colors.get(m.id)!} />)}</tbody>
          </table>
        </div>
      )}
      <p className="muted">Export JSON holds the setup, every step's metrics and every eval; import it (with its .safetensors checkpoints, if you like) in any browser to see the same charts.</p>
    </section>
  );
}
