// One config field: its label (the control's accessible name), the field's
// one-line help, an optional explanation, and its error (linked to the
// control by aria-describedby). Numbers are committed on Enter or when the
// field loses focus; choices at once.
import { useEffect, useId, useState, type KeyboardEvent, type ReactNode } from 'react';
import { FIELDS, LIVE_FIELDS, type RunConfig } from '../config';
import { labelOf, optionLabel } from './labels';
import { useApp } from './storeContext';

/**
 * Whether leaving a number field sends its text: when it differs from the value in force, and also
 * when the field shows an error (a valid value equal to the one in force must clear it).
 */
export function shouldCommit(draft: string, applied: string, hasError: boolean): boolean {
  return draft !== applied || hasError;
}

export function ConfigField({ name, disabled = false, explain }: { name: keyof RunConfig; disabled?: boolean; explain?: ReactNode }) {
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
  const commit = () => { if (shouldCommit(draft, String(value), Boolean(error))) void setField(name, draft); };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault(); // no keypress: a dialog this opens must not take the same Enter as its answer
      commit();
    }
    if (e.key === 'Escape') setDraft(String(value));
  };
  const help = `${f.help}${f.kind === 'enum' ? '' : ` (${f.min} to ${f.max})`}${live ? '' : '; changing it starts a new run'}`;
  const described = [`${id}-help`, explain ? `${id}-explain` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{labelOf(name)}</label>
      {f.kind === 'enum' ? (
        <select id={id} value={String(value)} disabled={disabled} aria-describedby={described} aria-invalid={error ? true : undefined} onChange={(e) => void setField(name, e.target.value)}>
          {f.values.map((v) => <option key={v} value={v}>{optionLabel(name, v)}</option>)}
        </select>
      ) : (
        <input id={id} type="number" inputMode="decimal" min={f.min} max={f.max} step={f.kind === 'int' ? 1 : 'any'} value={draft} disabled={disabled}
          aria-describedby={described} aria-invalid={error ? true : undefined}
          onChange={(e) => setDraft(e.target.value)} onBlur={commit} onKeyDown={onKey} />
      )}
      <small id={`${id}-help`} className="help">{help}</small>
      {explain && <p id={`${id}-explain`} className="explain field-explain">{explain}</p>}
      {error && <small id={`${id}-error`} role="alert" className="error">{error}</small>}
    </div>
  );
}
