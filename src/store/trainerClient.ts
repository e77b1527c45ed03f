// The page's connection to the trainer worker: comlink for control, a
// dedicated MessagePort for telemetry (checked before it is believed).
import * as Comlink from 'comlink';
import { isTelemetryEvent, type TelemetryEvent, type TrainerWorkerApi } from '../worker/protocol';
import type { TrainerClient } from './types';

export function connectTrainer(): TrainerClient {
  const worker = new Worker(new URL('../worker/trainer.worker.ts', import.meta.url), { type: 'module' });
  const api = Comlink.wrap<TrainerWorkerApi>(worker) as unknown as TrainerWorkerApi;
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
