// The confirm dialog for changes that end the current run: a modal <dialog>
// (focus moves into it, Escape cancels), named by its title.
import { useEffect, useId, useRef } from 'react';
import { useApp } from './storeContext';

export function ConfirmDialog() {
  const confirm = useApp((s) => s.confirm);
  const answer = useApp((s) => s.answerConfirm);
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (confirm && !d.open) d.showModal?.();
    if (!confirm && d.open) d.close();
  }, [confirm]);
  return (
    <dialog ref={ref} aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`} className="confirm"
      onCancel={(e) => { e.preventDefault(); void answer(false); }}>
      {confirm && (
        <form method="dialog" onSubmit={(e) => e.preventDefault()}>
          <h2 id={`${id}-title`}>{confirm.title}</h2>
          <p id={`${id}-body`}>{confirm.body}</p>
          {confirm.code !== undefined && <pre className="confirm-code" data-testid="confirm-code" tabIndex={0} aria-label="The task's code">{confirm.code}</pre>}
          <div className="buttons">
            <button type="button" autoFocus onClick={() => void answer(false)}>Cancel</button>
            <button type="button" className="primary" onClick={() => void answer(true)}>{confirm.confirmLabel}</button>
          </div>
        </form>
      )}
    </dialog>
  );
}
