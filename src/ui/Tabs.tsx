// Tabs by the ARIA tab pattern: a tablist of buttons, the selected one in the
// tab order (the others at tabindex -1), Left/Right (wrapping), Home and End
// move and select; each tab controls its panel, each panel is labelled by its tab.
import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface TabDef<K extends string> { key: K; label: ReactNode; /** the lesson control it belongs to (LessonPanel.tsx) */ control?: string }

/** The tab a key moves to from `index` of `count` (null: the key is not a tab key). */
export function tabAfterKey(key: string, index: number, count: number): number | null {
  switch (key) {
    case 'ArrowRight': return (index + 1) % count;
    case 'ArrowLeft': return (index - 1 + count) % count;
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}

export function Tabs<K extends string>({ label, tabs, selected, onSelect, children, className = '' }: {
  label: string; tabs: TabDef<K>[]; selected: K; onSelect: (k: K) => void; children: ReactNode; className?: string;
}) {
  const id = useId();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const to = tabAfterKey(e.key, i, tabs.length);
    if (to === null) return;
    e.preventDefault();
    onSelect(tabs[to].key);
    refs.current[to]?.focus();
  };
  return (
    <div className={`tabs ${className}`}>
      <div role="tablist" aria-label={label}>
        {tabs.map((t, i) => (
          <button key={t.key} ref={(el) => { refs.current[i] = el; }} type="button" role="tab" data-control={t.control} id={`${id}-${t.key}`} aria-selected={t.key === selected}
            aria-controls={`${id}-${t.key}-panel`} tabIndex={t.key === selected ? 0 : -1} onClick={() => onSelect(t.key)} onKeyDown={(e) => onKey(e, i)}>
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-${selected}-panel`} aria-labelledby={`${id}-${selected}`} tabIndex={0}>
        {children}
      </div>
    </div>
  );
}
