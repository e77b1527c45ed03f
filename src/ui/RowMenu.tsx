// A row's actions as one menu button (the ARIA menu button pattern): Enter,
// Space or ArrowDown open it on the first item, ArrowUp on the last; arrows,
// Home and End move; Escape or Tab close it, focus back on the button. The
// list opens in the flow of the page (not floating), so a scrolling table
// never clips it. Items are rendered while closed, hidden, so the page's
// markup names every action.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';

export interface MenuItem {
  label: string;
  /** The accessible name (e.g. "Export JSON of run 3"); the visible label when absent. */
  name?: string;
  title?: string;
  disabled?: boolean;
  onSelect: () => void;
}

/** Which item gets focus after `key` from item `at` (-1: none yet) among `n`, skipping disabled ones; null: the key does not move. */
export function menuFocusAfter(key: string, at: number, enabled: readonly boolean[]): number | null {
  const n = enabled.length, live = enabled.map((e, i) => (e ? i : -1)).filter((i) => i >= 0);
  if (!live.length) return null;
  if (key === 'Home') return live[0];
  if (key === 'End') return live[live.length - 1];
  if (key !== 'ArrowDown' && key !== 'ArrowUp') return null;
  const d = key === 'ArrowDown' ? 1 : -1;
  for (let k = 1; k <= n; k++) {
    const i = (((at + d * k) % n) + n) % n;
    if (enabled[i]) return i;
  }
  return null;
}

export function RowMenu({ label, items }: { label: string; items: MenuItem[] }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const box = useRef<HTMLDivElement>(null);
  const enabled = items.map((it) => !it.disabled);
  const focusItem = (i: number | null) => { if (i !== null) refs.current[i]?.focus(); };
  const openAt = (key: 'Home' | 'End') => { setOpen(true); requestAnimationFrame(() => focusItem(menuFocusAfter(key, -1, enabled))); };
  const close = (refocus: boolean) => { setOpen(false); if (refocus) button.current?.focus(); };

  // a click elsewhere closes it
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => { if (!box.current?.contains(e.target as Node)) setOpen(false); };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  const onButtonKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') { e.preventDefault(); openAt(e.key === 'ArrowDown' ? 'Home' : 'End'); }
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const at = refs.current.findIndex((r) => r === document.activeElement);
    if (e.key === 'Escape') { e.preventDefault(); close(true); return; }
    if (e.key === 'Tab') { setOpen(false); return; }
    const next = menuFocusAfter(e.key, at, enabled);
    if (next !== null) { e.preventDefault(); focusItem(next); }
  };
  return (
    <div className="row-menu" ref={box}>
      <button ref={button} type="button" id={`${id}-b`} aria-haspopup="menu" aria-expanded={open} aria-controls={`${id}-m`} aria-label={label}
        onClick={() => (open ? close(false) : openAt('Home'))} onKeyDown={onButtonKey}>
        Actions <span aria-hidden="true">▾</span>
      </button>
      <ul role="menu" id={`${id}-m`} aria-labelledby={`${id}-b`} hidden={!open} onKeyDown={onMenuKey}>
        {items.map((it, i) => (
          <li role="none" key={it.label}>
            <button ref={(el) => { refs.current[i] = el; }} type="button" role="menuitem" tabIndex={-1} aria-label={it.name} title={it.title} disabled={it.disabled}
              onClick={() => { close(true); it.onSelect(); }}>
              {it.label}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
