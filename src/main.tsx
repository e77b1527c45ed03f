import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { probeWebGpu } from './gpu/probe';
import { createAppStore } from './store/appStore';
import { MetricsHub } from './store/metricsHub';
import { localPrefs } from './store/pagePrefs';
import { openRunStorage } from './store/runsDb';
import { connectTrainer } from './store/trainerClient';
import { connectTaskWorker } from './store/taskWorker';
import { App } from './ui/App';
import { downloadBlob } from './ui/download';
import { StoreProvider } from './ui/storeContext';
import { registerServiceWorker } from './ui/serviceWorker';
import './ui/styles.css';

// asked first, on this thread: the answer picks the engine, so it holds Start. The trainer worker could ask only once
// loaded, and there its answer waited behind the page's first paint in the GPU process (1.3 s on SwiftShader here,
// against 50 ms from here)
const gpuProbe = probeWebGpu(navigator.gpu);
const storage = await openRunStorage();
const store = createAppStore({
  client: connectTrainer(),
  probeGpu: () => gpuProbe,
  tasks: connectTaskWorker(), // Check and a task's preset: in a worker of its own, never on this thread
  storage,
  hub: new MetricsHub(),
  replaceUrl: (query) => history.replaceState(history.state, '', `${location.pathname}?${query}${location.hash}`),
  download: downloadBlob,
  publishDelayMs: 150, // evals, checkpoints saved, snapshots: one store update for what arrives together
  checkpointIntervalMs: 10_000, // checkpoints while training: at most every 10 s (and at once when the run stops)
  resumeIntervalMs: 8_000, // between evals too: a reload loses at most a few steps
  prefs: localPrefs(), // the backend chosen, the overlaid runs, the guide dismissed: kept across reloads
  spawnTrainer: connectTrainer, // a population's lanes: on WebGPU one worker holds every member that stacks; on the CPU one worker each
  population: {
    cores: navigator.hardwareConcurrency || 2,
    // navigator.deviceMemory (GiB, Chromium only, capped at 8): a quarter of it for the members
    memoryBytes: (((navigator as { deviceMemory?: number }).deviceMemory ?? 4) * 2 ** 30) / 4,
  },
  kv: {
    get: (k) => { try { return localStorage.getItem(k); } catch { return null; } },
    set: (k, v) => localStorage.setItem(k, v),
    remove: (k) => { try { localStorage.removeItem(k); } catch { /* nothing stored */ } },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreProvider store={store}>
      <App />
    </StoreProvider>
  </StrictMode>,
);

const booted = store.getState().boot(location.search);

// a built page: isolation headers and an offline copy from its service worker (not in the dev server, whose files
// change; `import.meta.hot` exists only there: a build's env flags follow NODE_ENV, which a test runner sets to "test").
// Registered once the first run is ready, so its precache never delays Start.
if (!import.meta.hot) {
  void booted.finally(() => registerServiceWorker(() => {
    const s = store.getState();
    return store.ctx.currentSteps() === 0 && s.sweep?.status !== 'running' && s.confirm === null; // a reload loses nothing yet
  }));
}

