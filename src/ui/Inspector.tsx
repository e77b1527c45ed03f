// The right column: the task in brief (beside the chart, on the first screen),
// then transcripts and the anatomy of a step, as tabs (ARIA tab pattern).
import { useState } from 'react';
import { StepAnatomy } from './StepAnatomy';
import { TaskCard } from './TaskCard';
import { Tabs } from './Tabs';
import { Transcripts } from './Transcripts';

export function Inspector() {
  const [tab, setTab] = useState<'transcripts' | 'anatomy'>('transcripts');
  return (
    // the anatomy's table needs more width than the transcripts: the layout widens the column while it is open
    <aside className={`inspector${tab === 'anatomy' ? ' anatomy-open' : ''}`} aria-label="Inspector">
      <TaskCard />
      <Tabs label="Inspector" selected={tab} onSelect={setTab} tabs={[{ key: 'transcripts', label: 'Transcripts' }, { key: 'anatomy', label: 'Anatomy of a step' }]}>
        {tab === 'transcripts' ? <Transcripts /> : <StepAnatomy />}
      </Tabs>
    </aside>
  );
}
