// Your own task's editor, shown while a task's code is being written (the panel: TaskEditorPanel.tsx). The panel and
// CodeMirror load when it first opens: they were a third of the page's script, evaluated on every load before Start.
import { Component, lazy, Suspense, type ReactNode } from 'react';
import { useApp } from './storeContext';

const TaskEditorPanel = lazy(() => import('./TaskEditorPanel'));

/** A chunk that did not load (the host gone, a build replaced under an open page) is said here, not a blank page. */
class LoadFailed extends Component<{ children: ReactNode }, { error: string | null }> {
  override state = { error: null as string | null };
  static getDerivedStateFromError(e: unknown) { return { error: e instanceof Error ? e.message : String(e) }; }
  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <section className="task-editor" role="alert" data-testid="task-editor-failed">
        <h2>Your task</h2>
        <p>The task editor could not be loaded ({this.state.error}). Reload the page to try again; your stored runs are kept.</p>
      </section>
    );
  }
}

export function TaskEditor() {
  const open = useApp((s) => s.taskDraft !== null);
  if (!open) return null;
  const loading = (
    <section className="task-editor" aria-busy="true" data-testid="task-editor-loading">
      <h2>Your task</h2>
      <p className="small muted" role="status">Loading the editor…</p>
    </section>
  );
  return <LoadFailed><Suspense fallback={loading}><TaskEditorPanel /></Suspense></LoadFailed>;
}
