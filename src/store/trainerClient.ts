// The page's connection to the workers: comlink for control, a dedicated
// MessagePort for telemetry (checked before it is believed). A trainer worker
// holds one run of K >= 1 members (a population's lane).
import * as Comlink from 'comlink';
import { isTelemetryEvent, type TelemetryEvent, type TrainerWorkerApi } from '../worker/protocol';
import type { TrainerClient } from './types';

export function connectTrainer(): TrainerClient {
  return wire<TrainerWorkerApi>(new Worker(new URL('../worker/trainer.worker.ts', import.meta.url), { type: 'module' }));
}

function wire<Api extends { telemetryPort(port: MessagePort): Promise<void> }>(worker: Worker): { api: Api; onTelemetry(fn: (e: TelemetryEvent) => void): () => void; dispose(): void } {
  const api = Comlink.wrap<Api>(worker) as unknown as Api;
  const listeners = new Set<(e: TelemetryEvent) => void>();
  const ch = new MessageChannel();
  ch.port1.onmessage = (m: MessageEvent<unknown>) => {
    if (!isTelemetryEvent(m.data)) { console.warn('ignored a malformed telemetry message'); return; }
    for (const fn of listeners) fn(m.data);
  };
  void api.telemetryPort(Comlink.transfer(ch.port2, [ch.port2]));
  return {
    api,
    onTelemetry(fn) {
      listeners.add(fn);
      return () => { listeners.delete(fn); };
    },
    dispose() {
      listeners.clear();
      ch.port1.close();
      worker.terminate();
    },
  };
}
