// Telemetry batching where it is produced: metrics rows collect in a buffer and
// go out as one message (the Float64Array transferred) at most every
// `intervalMs`; rare events (eval, status, flag) flush pending rows first so
// the page sees everything in order.
import type { StepMetrics } from '../rl/runRecord';
import { METRIC_NAMES, metricsRow, type EvalEvent, type FlagEvent, type StatusEvent, type TelemetryEvent } from './protocol';

/** The part of a MessagePort (DOM or node:worker_threads) telemetry needs. */
export interface TelemetryPortLike {
  postMessage(message: unknown, transfer: Transferable[]): void;
  close?(): void;
}

export const FLUSH_INTERVAL_MS = 66; // ~15 Hz

export class TelemetryBatcher {
  private port: TelemetryPortLike | null = null;
  private rows: Float64Array = new Float64Array(METRIC_NAMES.length * 16);
  private count = 0;
  private runId = '';
  private lastFlush = -Infinity;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(readonly intervalMs = FLUSH_INTERVAL_MS, private readonly now: () => number = () => performance.now()) {}

  attach(port: TelemetryPortLike | null): void {
    this.flush();
    if (this.port && this.port !== port) this.port.close?.();
    this.port = port;
  }

  get attached(): boolean { return this.port !== null; }

  /** Queues one step's metrics; sends within `intervalMs`. */
  metrics(runId: string, m: StepMetrics): void {
    if (!this.port) return;
    if (this.count > 0 && runId !== this.runId) this.flush();
    this.runId = runId;
    const C = METRIC_NAMES.length;
    if ((this.count + 1) * C > this.rows.length) {
      const grown = new Float64Array(this.rows.length * 2);
      grown.set(this.rows.subarray(0, this.count * C));
      this.rows = grown;
    }
    metricsRow(m, this.rows, this.count * C);
    this.count++;
    this.schedule();
  }

  status(e: Omit<StatusEvent, 'kind'>): void { this.send({ kind: 'status', ...e }); }
  eval(e: Omit<EvalEvent, 'kind'>): void { this.send({ kind: 'eval', ...e }); }
  flag(e: Omit<FlagEvent, 'kind'>): void { this.send({ kind: 'flag', ...e }); }

  /** Sends the pending metrics rows now (one message), if any. */
  flush(): void {
    if (this.timer !== null) { clearTimeout(this.timer); this.timer = null; }
    if (!this.port || this.count === 0) return;
    const C = METRIC_NAMES.length;
    const data = this.rows.slice(0, this.count * C); // its own buffer, transferred
    const e: TelemetryEvent = { kind: 'metrics', runId: this.runId, columns: C, rows: this.count, data };
    this.count = 0;
    this.lastFlush = this.now();
    this.port.postMessage(e, [data.buffer]);
  }

  dispose(): void {
    this.flush();
    this.port?.close?.();
    this.port = null;
  }

  private send(e: TelemetryEvent): void {
    if (!this.port) return;
    this.flush();
    this.port.postMessage(e, []);
  }

  private schedule(): void {
    if (this.timer !== null) return;
    // at least half an interval of collecting, and never two flushes closer than one interval
    const wait = Math.max(this.intervalMs / 2, this.lastFlush + this.intervalMs - this.now());
    this.timer = setTimeout(() => { this.timer = null; this.flush(); }, wait);
  }
}
