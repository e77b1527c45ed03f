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
    return <EditorPlace testId="task-editor-failed" role="alert">The task editor could not be loaded ({this.state.error}). Reload the page to try again; your stored runs are kept.</EditorPlace>;
  }
}

/** The editor's place while its panel is not there: the panel's heading and one line. */
function EditorPlace({ testId, role, children }: { testId: string; role: 'alert' | 'status'; children: ReactNode }) {
  return (
    <section className="task-editor" aria-busy={role === 'status'} data-testid={testId}>
      <h2>Your task</h2>
      <p className={role === 'status' ? 'small muted' : undefined} role={role}>{children}</p>
    </section>
  );
}

export function TaskEditor() {
  const open = useApp((s) => s.taskDraft !== null);
  if (!open) return null;
  const loading = <EditorPlace testId="task-editor-loading" role="status">Loading the editor…</EditorPlace>;
  return <LoadFailed><Suspense fallback={loading}><TaskEditorPanel /></Suspense></LoadFailed>;
}
