// Your own task's editor, shown while a task's code is being written (the panel: TaskEditorPanel.tsx). The panel and
// CodeMirror load when it first opens: they were a third of the page's script, evaluated on every load before Start.
import { lazy, Suspense } from 'react';
import { useApp } from './storeContext';

const TaskEditorPanel = lazy(() => import('./TaskEditorPanel'));

export function TaskEditor() {
  const open = useApp((s) => s.taskDraft !== null);
  if (!open) return null;
  const loading = (
    <section className="task-editor" aria-busy="true" data-testid="task-editor-loading">
      <h2>Your task</h2>
      <p className="small muted" role="status">Loading the editor…</p>
    </section>
  );
  return <Suspense fallback={loading}><TaskEditorPanel /></Suspense>;
}
