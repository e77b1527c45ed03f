// Worker-thread entry: registers tsx in this thread, then loads the TypeScript module
// named by workerData.entry (relative to this folder). On Node 20 a worker's .ts entry
// is not loadable through the parent's --import.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(new URL(workerData.entry, import.meta.url).href);
