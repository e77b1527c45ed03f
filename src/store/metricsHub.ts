// High-frequency data outside React state: every shown run's MetricsSeries,
// appended from telemetry batches. Charts subscribe transiently and redraw at
// their own pace (once per frame at most, or once a second in fast mode);
// nothing here calls a React setState.
import { MetricsSeries } from './metricsSeries';

export class MetricsHub {
  private readonly series = new Map<string, MetricsSeries>();
  private readonly listeners = new Set<() => void>();
  /** Bumped on every change; a subscriber compares it to what it drew. */
  version = 0;

  get(runId: string): MetricsSeries | undefined {
    return this.series.get(runId);
  }

  has(runId: string): boolean {
    return this.series.has(runId);
  }

  append(runId: string, data: Float64Array, rows: number): void {
    let s = this.series.get(runId);
    if (!s) { s = new MetricsSeries(); this.series.set(runId, s); }
    s.append(data, rows);
    this.changed();
  }

  /** A whole run's metrics (loaded from storage or an import). */
  set(runId: string, s: MetricsSeries): void {
    this.series.set(runId, s);
    this.changed();
  }

  delete(runId: string): void {
    if (this.series.delete(runId)) this.changed();
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  private changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }
}
