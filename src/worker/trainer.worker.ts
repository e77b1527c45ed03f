// The trainer in a Web Worker, behind comlink: one run at a time (TrainerApi), on the backend
// browserHost.ts chooses, with warm starts from this origin (pretrained here when there is none), and
// tasks of your own behind the watchdog where the page is cross-origin isolated.
import * as Comlink from 'comlink';
import { probeWebGpu } from '../gpu/probe';
import { backendNote, loadWarmStart, makeBackend } from './browserHost';
import { TrainerApi } from './trainerApi';
import { canWatchHere, useWebSpawner } from '../envs/userTask/webSpawner';

// a task of your own runs behind the watchdog here too where the page is cross-origin isolated: each call has a
// hard wall-clock limit in a nested worker that no task code extends (docs/your-task.md "The page")
if (canWatchHere()) useWebSpawner(() => new Worker(new URL('../envs/userTask/sandboxWorker.mjs', import.meta.url), { type: 'module' }));

Comlink.expose(new TrainerApi(makeBackend, loadWarmStart, () => probeWebGpu(self.navigator.gpu), backendNote));
