// The right column: transcripts and the anatomy of a step, as tabs (ARIA tab pattern).
import { useState } from 'react';
import { StepAnatomy } from './StepAnatomy';
import { Tabs } from './Tabs';
import { Transcripts } from './Transcripts';

export function Inspector() {
  const [tab, setTab] = useState<'transcripts' | 'anatomy'>('transcripts');
  return (
    <aside className="inspector" aria-label="Inspector">
      <Tabs label="Inspector" selected={tab} onSelect={setTab} tabs={[{ key: 'transcripts', label: 'Transcripts' }, { key: 'anatomy', label: 'Anatomy of a step' }]}>
        {tab === 'transcripts' ? <Transcripts /> : <StepAnatomy />}
      </Tabs>
    </aside>
  );
}
