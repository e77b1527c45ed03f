// Task code's own Web Worker on the page (docs/your-task.md "The page"): Check and the preset of a task run
// here, off the page's main thread. Where the page is cross-origin isolated, each task's engine runs in a
// nested worker behind the watchdog (a hard wall-clock limit per call that no task code extends); else
// in this worker's thread, under its engine's deadline. Either way a task that loops costs this worker,
// which the page ends when a Check overruns its own limit (src/store/taskWorker.ts).
import * as Comlink from 'comlink';
import { localTaskService } from '../envs/userTask/taskService';
import { canWatchHere, useWebSpawner } from '../envs/userTask/webSpawner';

if (canWatchHere()) useWebSpawner(() => new Worker(new URL('../envs/userTask/sandboxWorker.mjs', import.meta.url), { type: 'module' }));

Comlink.expose(localTaskService());
