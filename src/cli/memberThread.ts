// A population member's thread (node:worker_threads): one run of a sweep, today's
// Trainer on a CPU engine (the reference, or wasm when the job says), writing its own folder. The result (or why it stopped)
// goes back to the pool; a member that stops never stops the others.
import { parentPort, workerData } from 'node:worker_threads';
import { taskFromEnv } from './taskFile';
import { failure } from './jobRuns';
import { setup } from './commands/runSetup';
import { trainRun } from './commands/train';
import { cpuEngine } from './io';
import type { MemberJob, MemberOutcome } from './memberPool';

const job = (workerData as { job: MemberJob }).job;
const backend = cpuEngine(job.engine);
await taskFromEnv(); // --task: the parent's task, registered in this thread too
let outcome: MemberOutcome;
try {
  const result = await trainRun(backend, setup(job.preset, job.overrides), job.out, { quiet: true, warm: job.warm, changes: job.changes, label: job.label, resume: job.resume });
  outcome = { ok: true, result };
} catch (e) {
  outcome = failure(e);
} finally {
  backend.destroy();
}
parentPort!.postMessage(outcome!);
