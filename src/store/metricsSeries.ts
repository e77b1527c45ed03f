// One run's per-step metrics, columnar (rows x METRIC_NAMES) in one growing
// Float64Array: appended from telemetry batches without per-step objects.
import { METRIC_INDEX, METRIC_NAMES, type MetricName } from '../worker/protocol';

const C = METRIC_NAMES.length;

export class MetricsSeries {
  private data = new Float64Array(C * 64);
  rows = 0;

  /**
   * Appends `rows` rows (row-major, METRIC_NAMES order). A batch that starts at or before the last
   * step already held (a run resumed from an earlier checkpoint) first drops the rows from that step on.
   */
  append(data: Float64Array, rows: number): void {
    if (data.length !== rows * C) throw new Error(`metrics: ${data.length} numbers for ${rows} rows of ${C}`);
    if (rows === 0) return;
    const firstStep = data[METRIC_INDEX.step];
    if (this.rows > 0 && firstStep <= this.value(this.rows - 1, 'step')) {
      let keep = this.rows;
      while (keep > 0 && this.value(keep - 1, 'step') >= firstStep) keep--;
      this.rows = keep;
    }
    const need = (this.rows + rows) * C;
    if (need > this.data.length) {
      const grown = new Float64Array(Math.max(need, this.data.length * 2));
      grown.set(this.data.subarray(0, this.rows * C));
      this.data = grown;
    }
    this.data.set(data, this.rows * C);
    this.rows += rows;
  }

  value(row: number, name: MetricName): number {
    return this.data[row * C + METRIC_INDEX[name]];
  }

  /** The last row's value (NaN when empty). */
  last(name: MetricName): number {
    return this.rows > 0 ? this.value(this.rows - 1, name) : NaN;
  }

  /** One column as its own array. */
  column(name: MetricName): Float64Array {
    const out = new Float64Array(this.rows), c = METRIC_INDEX[name];
    for (let r = 0; r < this.rows; r++) out[r] = this.data[r * C + c];
    return out;
  }

  /** Every row, row-major (a copy). */
  toArray(): Float64Array {
    return this.data.slice(0, this.rows * C);
  }

  static from(data: Float64Array): MetricsSeries {
    const s = new MetricsSeries();
    s.append(data, data.length / C);
    return s;
  }
}
