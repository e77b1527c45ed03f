// Persistence of runs while they train: metrics rows are queued and written
// as one chunk per run about once a second; a changed run record is written
// at the same pace (a reload loses at most the last interval). Rare, precious
// things (a checkpoint, a rename) are written at once by their callers.
import { METRIC_INDEX, METRIC_NAMES } from '../worker/protocol';
import type { RunStorage } from './runsDb';
import type { RunMeta } from './runTypes';

const C = METRIC_NAMES.length;

export class Recorder {
  private readonly rows = new Map<string, { parts: Float64Array[]; count: number }>();
  private readonly dirty = new Map<string, RunMeta>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly storage: RunStorage, private readonly intervalMs: number, private readonly onError: (e: unknown) => void) {}

  /** Rows of a run to append at the next flush. */
  queueMetrics(id: string, data: Float64Array, rows: number): void {
    const q = this.rows.get(id) ?? { parts: [], count: 0 };
    q.parts.push(data.slice());
    q.count += rows;
    this.rows.set(id, q);
    this.arm();
  }

  /** The run record to write at the next flush (the latest version wins). */
  queueRun(meta: RunMeta): void {
    this.dirty.set(meta.id, meta);
    this.arm();
  }

  /** Drops what is queued for a run (it was deleted). */
  forget(id: string): void {
    this.rows.delete(id);
    this.dirty.delete(id);
  }

  /** Writes everything queued now; resolves when it is stored. */
  flush(): Promise<void> {
    const rows = [...this.rows.entries()], runs = [...this.dirty.values()];
    this.rows.clear();
    this.dirty.clear();
    const write = async () => {
      for (const meta of runs) await this.storage.putRun(meta);
      for (const [id, q] of rows) {
        const data = new Float64Array(q.count * C);
        let at = 0;
        for (const p of q.parts) { data.set(p, at); at += p.length; }
        await this.storage.appendMetrics(id, data, q.count);
      }
    };
    this.writing = this.writing.then(write).catch(this.onError);
    return this.writing;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.rows.size === 0 && this.dirty.size === 0) { this.stop(); return; }
      void this.flush();
    }, this.intervalMs);
  }
}

/** The step after the last row of a batch (steps taken so far). */
export function stepsAfter(data: Float64Array, rows: number): number {
  return rows > 0 ? data[(rows - 1) * C + METRIC_INDEX.step] + 1 : 0;
}
