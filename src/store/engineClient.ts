// The engine self-check worker (one training step on this device against the
// CPU reference), made only when a person asks for the check.
import * as Comlink from 'comlink';
import type { EngineApi } from '../worker/engine.worker';

let engine: Comlink.Remote<EngineApi> | null = null;

export function engineClient(): Comlink.Remote<EngineApi> {
  engine ??= Comlink.wrap<EngineApi>(new Worker(new URL('../worker/engine.worker.ts', import.meta.url), { type: 'module' }));
  return engine;
}
