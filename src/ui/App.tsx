// The playground page. At 1200 px and up: the controls (preset, Start,
// lambda_tok first) on the left, beside them the middle column with the
// accuracy-vs-tokens chart on top and the time series below (a Runs tab
// beside Charts), and the inspector (transcripts, anatomy) on the right.
// Narrower, the inspector goes below; at phone width everything stacks.
// Banners (first-run guide, resume, no/software GPU...) sit above.
import { Banners } from './Banners';
import { ChartsPanel } from './ChartsPanel';
import { ConfirmDialog } from './ConfirmDialog';
import { Controls } from './Controls';
import { DeviceInfo } from './DeviceInfo';
import { Inspector } from './Inspector';
import { RunsTable } from './RunsTable';
import { useApp } from './storeContext';
import { Tabs } from './Tabs';

function Middle() {
  const tab = useApp((s) => s.middleTab);
  const setTab = useApp((s) => s.setMiddleTab);
  const n = useApp((s) => s.runs.length);
  return (
    <main className="middle" aria-label="Charts and runs">
      <Tabs label="Charts and runs" selected={tab} onSelect={setTab} tabs={[{ key: 'charts', label: 'Charts' }, { key: 'runs', label: `Runs (${n})` }]}>
        {tab === 'charts' ? <ChartsPanel /> : <RunsTable />}
      </Tabs>
    </main>
  );
}

export function App() {
  return (
    <div className="app">
      <header className="top">
        <h1>GSPO Playground</h1>
        <p className="tagline">Train small multi-agent language policies with GSPO and GRPO, and watch the token penalty trade accuracy for tokens.</p>
        <DeviceInfo />
      </header>
      <Banners />
      <Controls />
      <Middle />
      <Inspector />
      <ConfirmDialog />
    </div>
  );
}
