// The playground page. At 1200 px and up: the controls (preset, Start,
// lambda_tok first) on the left, beside them the middle column with the
// accuracy-vs-tokens chart on top and the time series below (a Runs tab
// beside Charts), and the inspector (transcripts, anatomy) on the right.
// Narrower, the inspector goes below; at phone width (<= 640 px) everything
// stacks, the inspector becomes a third tab of the middle column ("Inspect",
// beside Charts and Runs), the tab bar sticks to the top while the middle
// column is on screen, and the lambda_tok slider docks at the foot of the
// screen (styles.css), so the chart and the slider are seen together.
// Banners (first-run guide, resume, no/software GPU...) sit above; your task's editor, when open,
// spans the middle and the inspector below them (the code wide enough to read).
import { useEffect, useRef, useState } from 'react';
import { Banners } from './Banners';
import { ChartsPanel } from './ChartsPanel';
import { ConfirmDialog } from './ConfirmDialog';
import { Controls } from './Controls';
import { DeviceInfo } from './DeviceInfo';
import { Inspector } from './Inspector';
import { RunsTable } from './RunsTable';
import { useApp } from './storeContext';
import { Tabs } from './Tabs';
import { TaskEditor } from './TaskEditor';
import { usePhone } from './usePhone';
import { LessonControlsStyle } from './LessonPanel';

export { PHONE_QUERY, usePhone } from './usePhone';

function Middle({ phone }: { phone: boolean }) {
  const stored = useApp((s) => s.middleTab);
  const setTab = useApp((s) => s.setMiddleTab);
  const n = useApp((s) => s.runs.length);
  // the Inspect tab exists on a phone only (wider, the inspector has its own column): the page's own state, not the store's
  const [inspect, setInspect] = useState(false);
  const tab = phone && inspect ? 'inspect' : stored;
  const ref = useRef<HTMLElement>(null);
  // the tab bar sticks to the top on a phone: a new tab starts at its top, not wherever the last one was scrolled to
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    const el = ref.current;
    if (phone && el && el.getBoundingClientRect().top < 0) el.scrollIntoView({ block: 'start' });
  }, [tab, phone]);
  const onSelect = (k: 'charts' | 'runs' | 'inspect') => {
    setInspect(k === 'inspect');
    if (k !== 'inspect') setTab(k);
  };
  const tabs: { key: 'charts' | 'runs' | 'inspect'; label: string; control?: string }[] = [{ key: 'charts', label: 'Charts' }, { key: 'runs', label: `Runs (${n})`, control: 'runs' }];
  if (phone) tabs.push({ key: 'inspect', label: 'Inspect' });
  return (
    <main ref={ref} className="middle" aria-label={phone ? 'Charts, runs and inspector' : 'Charts and runs'}>
      <Tabs label={phone ? 'Charts, runs and inspector' : 'Charts and runs'} selected={tab} onSelect={onSelect} tabs={tabs}>
        {tab === 'charts' ? <ChartsPanel /> : tab === 'runs' ? <RunsTable /> : <Inspector />}
      </Tabs>
    </main>
  );
}

export function App() {
  const phone = usePhone();
  return (
    <div className="app">
      <header className="top">
        <h1>GSPO Playground</h1>
        <p className="tagline">Train small multi-agent language policies with GSPO and GRPO, and watch the token penalty trade accuracy for tokens.</p>
        <DeviceInfo />
      </header>
      <LessonControlsStyle />
      <Banners />
      <Controls />
      <TaskEditor />
      <Middle phone={phone} />
      {!phone && <Inspector />}
      <ConfirmDialog />
    </div>
  );
}
