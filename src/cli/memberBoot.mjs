// Worker-thread entry: registers tsx in this thread, then loads the TypeScript member.
// (On Node 20 a worker's .ts entry is not loadable through the parent's --import.)
import { register } from 'tsx/esm/api';

register();
await import('./memberThread.ts');
