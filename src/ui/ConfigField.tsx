// One config field: its label (the control's accessible name), the field's
// one-line help, and its error. Numbers are committed on Enter or when the
// field loses focus; choices at once.
import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { FIELDS, LIVE_FIELDS, type RunConfig } from '../config';
import { labelOf } from './labels';
import { useApp } from './storeContext';

export function ConfigField({ name, disabled = false }: { name: keyof RunConfig; disabled?: boolean }) {
  const id = useId();
  const value = useApp((s) => s.config[name]);
  const error = useApp((s) => s.fieldErrors[name]);
  const setField = useApp((s) => s.setField);
  const f = FIELDS[name];
  const live = LIVE_FIELDS.includes(name);
  const asking = useApp((s) => s.confirm !== null);
  const [draft, setDraft] = useState(String(value));
  // back to the value in force when it changes, and when a confirm dialog closes (Cancel keeps the old value)
  useEffect(() => { if (!asking) setDraft(String(value)); }, [value, asking]);
  const commit = () => { if (draft !== String(value)) void setField(name, draft); };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault(); // no keypress: a dialog this opens must not take the same Enter as its answer
      commit();
    }
    if (e.key === 'Escape') setDraft(String(value));
  };
  const help = `${f.help}${f.kind === 'enum' ? '' : ` (${f.min} to ${f.max})`}${live ? '' : '; changing it starts a new run'}`;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{labelOf(name)}</label>
      {f.kind === 'enum' ? (
        <select id={id} value={String(value)} disabled={disabled} aria-describedby={`${id}-help`} onChange={(e) => void setField(name, e.target.value)}>
          {f.values.map((v) => <option key={v} value={v}>{v}</option>)}
        </select>
      ) : (
        <input id={id} type="number" inputMode="decimal" min={f.min} max={f.max} step={f.kind === 'int' ? 1 : 'any'} value={draft} disabled={disabled}
          aria-describedby={`${id}-help`} aria-invalid={error ? true : undefined}
          onChange={(e) => setDraft(e.target.value)} onBlur={commit} onKeyDown={onKey} />
      )}
      <small id={`${id}-help`} className="help">{help}</small>
      {error && <small role="alert" className="error">{error}</small>}
    </div>
  );
}
