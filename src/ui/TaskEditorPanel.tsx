// Your own task (docs/your-task.md): a CodeMirror editor over the task's module, the examples to
// start from, Check (the format's checks in the sandbox: each problem names its rule and function,
// a syntax error is marked at its line; sample episodes as Transcripts will show them), Use, and Copy
// link for the task in use. Check and Use run the task in its own worker (the page stays usable; a busy
// sign says so). The editor spans the middle and the inspector (styles.css), the code wide enough to read.
// Loaded when the editor first opens (TaskEditor.tsx): CodeMirror is a third of the page's script.
import { useEffect, useId, useRef, useState } from 'react';
import { basicSetup, EditorView } from 'codemirror';
import { javascript } from '@codemirror/lang-javascript';
import { setDiagnostics, type Diagnostic } from '@codemirror/lint';
import type { TaskCheck } from '../envs/userTask';
import { TASK_EXAMPLES } from '../store/taskSlice';
import { encodeSetup } from '../store/urlState';
import type { AppState } from '../store/types';
import { useApp } from './storeContext';

/** The problems that name a line of the module ("task.js line 3"), as editor marks. */
export function lineMarks(check: TaskCheck | null, doc: { lines: number; line(n: number): { from: number; to: number } }): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of check?.problems ?? []) {
    const m = /line (\d+)/.exec(p.message);
    if (!m) continue;
    const n = Math.min(Math.max(1, Number(m[1])), doc.lines), line = doc.line(n);
    out.push({ from: line.from, to: line.to, severity: 'error', message: `${p.fn}: ${p.message}` });
  }
  return out;
}

/** The page's link to the task in use (its code deflated in task=), or null when no task of your own is the current run. */
export function taskLinkOf(s: Pick<AppState, 'preset' | 'config' | 'population' | 'untilPaused' | 'recipeAtStart'>, where: { origin: string; pathname: string }): string | null {
  if (s.config.env !== 'custom') return null;
  try { return `${where.origin}${where.pathname}?${encodeSetup(s.preset, s.config, s.population, s.untilPaused, s.recipeAtStart)}`; } catch { return null; }
}

/** Copy link: the clipboard where the browser allows it; the link is also shown selected in a field, to copy by hand. */
function CopyLink() {
  const id = useId();
  const link = useApp((s) => taskLinkOf(s, location));
  const [shown, setShown] = useState<{ link: string; copied: boolean } | null>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => { if (shown) { field.current?.focus(); field.current?.select(); } }, [shown]);
  if (!link) return null;
  const copy = async () => {
    let copied = false;
    try { await navigator.clipboard.writeText(link); copied = true; } catch { /* no clipboard here: the field below is selected to copy by hand */ }
    setShown({ link, copied });
  };
  return (
    <>
      <button type="button" onClick={() => void copy()} title="A link to this page with the task in use (its code inside): whoever opens it reads the code and is asked before it runs">Copy link</button>
      {shown && (
        <p className="small" data-testid="task-link-copied">
          <label htmlFor={`${id}-link`}>{shown.copied ? 'Copied. The link:' : 'Copy this link (the clipboard is not available here):'}</label>
          <input ref={field} id={`${id}-link`} className="task-link" readOnly value={shown.link} onFocus={(e) => e.currentTarget.select()} data-testid="task-link" />
        </p>
      )}
    </>
  );
}

/** The busy sign while the task's worker checks or loads it. */
function TaskBusy() {
  const busy = useApp((s) => s.taskBusy);
  if (!busy) return null;
  return (
    <span className="task-busy small" role="status" data-testid="task-busy">
      <progress aria-label={busy === 'check' ? 'Checking the task' : 'Checking and loading the task'} />
      {busy === 'check' ? 'Checking' : 'Checking, then loading'} the task in its own worker (a function that loops is stopped after 2 s); the page stays usable.
    </span>
  );
}

/** The panel, mounted while the editor is open (the editor's view lives as long as the panel). */
export default function TaskEditorPanel() {
  const id = useId();
  const draft = useApp((s) => s.taskDraft);
  const check = useApp((s) => s.taskCheck);
  const busy = useApp((s) => s.taskBusy !== null || s.busy !== null);
  const { setTaskDraft, checkTask, useTask, openTaskEditor, closeTaskEditor } = useApp((s) => s);
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const setDraft = useRef(setTaskDraft);
  setDraft.current = setTaskDraft;

  useEffect(() => { // one editor while the panel is open; the store holds the text
    if (!host.current) return;
    const v = new EditorView({
      doc: draft ?? '', parent: host.current,
      extensions: [basicSetup, javascript(), EditorView.updateListener.of((u) => { if (u.docChanged) setDraft.current(u.state.doc.toString()); }),
        // a name for screen readers, and the scroller reachable from the keyboard (axe: scrollable-region-focusable)
        EditorView.contentAttributes.of({ 'aria-label': 'Task code (JavaScript)' })],
    });
    v.scrollDOM.tabIndex = 0; // reachable by Tab where the code is wider or longer than the editor
    v.scrollDOM.setAttribute('aria-label', 'Task code, scrollable');
    view.current = v;
    return () => { v.destroy(); view.current = null; };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => { // an example chosen (or a link's code): the editor takes it
    const v = view.current;
    if (v && draft !== null && v.state.doc.toString() !== draft) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: draft } });
  }, [draft]);
  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, lineMarks(check, v.state.doc)));
  }, [check]);

  if (draft === null) return null;
  return (
    <section className="task-editor" aria-labelledby={`${id}-h`} data-testid="task-editor">
      <div className="task-head">
        <h2 id={`${id}-h`}>Your task</h2>
        <div className="field wide">
          <label htmlFor={`${id}-ex`}>Start from</label>
          <select id={`${id}-ex`} disabled={busy} defaultValue="" onChange={(e) => { if (e.target.value) openTaskEditor(e.target.value); }}>
            <option value="" disabled>an example…</option>
            {TASK_EXAMPLES.map((x) => <option key={x.name} value={x.name}>{x.title}</option>)}
          </select>
        </div>
      </div>
      <p className="small muted">A JavaScript module: the vocabulary, who speaks, a task sampler, the score (docs/your-task.md). It runs in a sandbox in a worker of its own, without the network, the page or your stored runs.</p>
      <div ref={host} className="task-code" aria-label="Task code" data-testid="task-code" />
      <div className="buttons">
        <button type="button" disabled={busy} onClick={() => void checkTask()}>Check</button>
        <button type="button" className="primary" disabled={busy} onClick={() => void useTask()} title="Check the task, then make a run of it the current run (Warm start pretrains on its demonstrations; Start trains it)">Use this task</button>
        <CopyLink />
        <button type="button" disabled={busy} onClick={closeTaskEditor}>Close</button>
        <TaskBusy />
      </div>
      <TaskCheckReport check={check} />
    </section>
  );
}

function TaskCheckReport({ check }: { check: TaskCheck | null }) {
  if (!check) return null;
  return (
    <div className="task-check" data-testid="task-check" role="status">
      {check.ok
        ? <p className="ok">Checks passed{check.spec ? `: ${check.spec.name}` : ''}.</p>
        : <ul className="problems">{check.problems.map((p, i) => <li key={i}><b>{p.rule}</b> ({p.fn}): {p.message}</li>)}</ul>}
      {check.episodes.length > 0 && (
        <details open={check.ok}>
          <summary>Sample episodes, as Transcripts will show them</summary>
          {check.episodes.slice(0, 3).map((lines, i) => (
            <pre key={i} className="task-episode">{lines.map((l) => `${l.role}${l.generated ? ' >' : ':'} ${l.text}`).join('\n')}</pre>
          ))}
        </details>
      )}
      {check.demos.length > 0 && (
        <details>
          <summary>Demonstrations (the warm start pretrains on these)</summary>
          {check.demos.slice(0, 3).map((d, i) => <pre key={i} className="task-episode">{d}</pre>)}
        </details>
      )}
    </div>
  );
}
