// The right column: the task in brief (beside the chart, on the first screen),
// then transcripts and the anatomy of a step, as tabs (ARIA tab pattern).
import { useEffect, useState } from 'react';
import { useHiddenControls } from './LessonPanel';
import { useApp } from './storeContext';
import { StepAnatomy } from './StepAnatomy';
import { TaskCard } from './TaskCard';
import { Tabs } from './Tabs';
import { Transcripts } from './Transcripts';

export function Inspector() {
  const [tab, setTab] = useState<'transcripts' | 'anatomy'>('transcripts');
  // a lesson's step opens the tab it is about, and one it hides is not shown
  const hidden = useHiddenControls();
  const lessonOpens = useApp((s) => { const a = s.lesson?.lesson.steps[s.lesson.index].action.do; return a === 'openAnatomy' ? 'anatomy' : a === 'openTranscripts' ? 'transcripts' : null; });
  useEffect(() => { if (lessonOpens) setTab(lessonOpens); }, [lessonOpens]);
  const shown = tab === 'anatomy' && hidden.has('anatomy') && !hidden.has('transcripts') ? 'transcripts' : tab === 'transcripts' && hidden.has('transcripts') && !hidden.has('anatomy') ? 'anatomy' : tab;
  const both = hidden.has('anatomy') && hidden.has('transcripts');
  return (
    // the anatomy's table needs more width than the transcripts: the layout widens the column while it is open
    <aside className={`inspector${shown === 'anatomy' ? ' anatomy-open' : ''}`} aria-label="Inspector">
      <TaskCard />
      {!both && (
        <Tabs label="Inspector" selected={shown} onSelect={setTab} tabs={[{ key: 'transcripts', label: 'Transcripts', control: 'transcripts' }, { key: 'anatomy', label: 'Anatomy of a step', control: 'anatomy' }]}>
          {shown === 'transcripts' ? <Transcripts /> : <StepAnatomy />}
        </Tabs>
      )}
    </aside>
  );
}
