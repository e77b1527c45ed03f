// The right column: transcripts and the anatomy of a step, as tabs.
import { useId, useState } from 'react';
import { StepAnatomy } from './StepAnatomy';
import { Transcripts } from './Transcripts';

export function Inspector() {
  const id = useId();
  const [tab, setTab] = useState<'transcripts' | 'anatomy'>('transcripts');
  const tabs = [['transcripts', 'Transcripts'], ['anatomy', 'Anatomy of a step']] as const;
  return (
    <aside className="inspector" aria-label="Inspector">
      <div role="tablist" aria-label="Inspector">
        {tabs.map(([k, label]) => (
          <button key={k} type="button" role="tab" id={`${id}-${k}`} aria-selected={tab === k} aria-controls={`${id}-${k}-panel`} onClick={() => setTab(k)}>{label}</button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-${tab}-panel`} aria-labelledby={`${id}-${tab}`}>
        {tab === 'transcripts' ? <Transcripts /> : <StepAnatomy />}
      </div>
    </aside>
  );
}
