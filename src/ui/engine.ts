// The page's handle on the engine worker (comlink). One worker per page.
import * as Comlink from 'comlink';
import type { EngineApi } from '../worker/engine.worker';

export const engine = Comlink.wrap<EngineApi>(new Worker(new URL('../worker/engine.worker.ts', import.meta.url), { type: 'module' }));
