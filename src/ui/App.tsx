// The playground page: controls on the left, charts in the middle, the
// transcript / step inspector on the right (below on narrow screens), the
// runs table under the charts; banners for every state a person must know.
import { Banners } from './Banners';
import { ChartsPanel } from './ChartsPanel';
import { ConfirmDialog } from './ConfirmDialog';
import { Controls } from './Controls';
import { DeviceInfo } from './DeviceInfo';
import { Inspector } from './Inspector';
import { RunsTable } from './RunsTable';
import { SweepPanel } from './SweepPanel';

export function App() {
  return (
    <div className="app">
      <header className="top">
        <h1>GSPO Playground</h1>
        <p className="tagline">Train small multi-agent language policies with GSPO and GRPO on your own GPU, and watch the token penalty trade accuracy for tokens.</p>
        <DeviceInfo />
      </header>
      <Banners />
      <Controls />
      <div className="middle">
        <ChartsPanel />
        <SweepPanel />
        <RunsTable />
      </div>
      <Inspector />
      <ConfirmDialog />
    </div>
  );
}
