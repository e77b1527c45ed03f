// Worker-thread entry for the tests: registers tsx in this thread, then loads the
// TypeScript worker. (On Node 20, `execArgv: ['--import', 'tsx']` does not make a
// worker's .ts entry loadable: "Unknown file extension .ts".)
import { register } from 'tsx/esm/api';

register();
await import('./nodeWorker.ts');
