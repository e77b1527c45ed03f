// A warm start made in a thread of its own (node:worker_threads): the shipped one when it
// fits, else pretrained here. Populations whose members need different warm starts make
// them side by side, one thread each, before the members start.
import { parentPort, workerData } from 'node:worker_threads';
import { taskFromEnv } from './taskFile';
import { cpuEngine } from './io';
import { setup, startSlots } from './commands/runSetup';
import type { WarmJob, WarmOutcome } from './warmPool';

const job = (workerData as { job: WarmJob }).job;
const backend = cpuEngine(job.engine ?? 'cpu'); // the CPU engine the population trains on
await taskFromEnv(); // --task: the parent's task, registered in this thread too
let outcome: WarmOutcome;
try {
  outcome = { ok: true, warm: await startSlots(backend, setup(job.preset, job.overrides)) };
} catch (e) {
  outcome = { ok: false, message: e instanceof Error ? e.message : String(e) };
} finally {
  backend.destroy();
}
parentPort!.postMessage(outcome!);
