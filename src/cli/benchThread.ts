// A population member for `bench --compare`'s population case: a Trainer at the case's
// shape on the CPU backend in this thread; a warm-up step, then `reps` steps when told to go.
import { parentPort, workerData } from 'node:worker_threads';
import { CpuBackend } from '../reference/cpuBackend';
import { Trainer } from '../rl/trainer';
import { createEnv } from '../envs/registry';
import type { RunConfig } from '../config';

const { cfg, reps } = (workerData as { job: { cfg: RunConfig; reps: number } }).job;
const backend = new CpuBackend();
const trainer = new Trainer(backend, createEnv(cfg), cfg);
await trainer.step(); // warm-up
parentPort!.postMessage({ ready: true });
parentPort!.once('message', async () => {
  let flops = 0;
  for (let i = 0; i < reps; i++) flops += (await trainer.step()).step_flops;
  trainer.destroy();
  parentPort!.postMessage({ flops });
});
