// Decimation for live charts: at most `max` points per series, keeping the
// first and last point and, per bucket of consecutive points, the lowest and
// the highest (so spikes and dips survive, which averaging would hide).

/** Indices of the points to draw, increasing; all of them when n <= max. Non-finite ys are skipped. */
export function decimateIndices(ys: ArrayLike<number>, max: number): number[] {
  const n = ys.length;
  if (!Number.isInteger(max) || max < 4) throw new Error(`decimate: max must be an integer >= 4; got ${max}`);
  const finite: number[] = [];
  for (let i = 0; i < n; i++) if (Number.isFinite(ys[i])) finite.push(i);
  if (finite.length <= max) return finite;
  const first = finite[0], last = finite[finite.length - 1];
  const inner = finite.slice(1, -1);
  const buckets = Math.floor((max - 2) / 2); // two points (min, max) per bucket
  const out: number[] = [first];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * inner.length) / buckets), to = Math.floor(((b + 1) * inner.length) / buckets);
    if (to <= from) continue;
    let lo = inner[from], hi = inner[from];
    for (let k = from + 1; k < to; k++) {
      const i = inner[k];
      if (ys[i] < ys[lo]) lo = i;
      if (ys[i] > ys[hi]) hi = i;
    }
    if (lo === hi) out.push(lo);
    else out.push(Math.min(lo, hi), Math.max(lo, hi));
  }
  out.push(last);
  return out;
}

export interface XY { x: number; y: number }

/** (x, y) points of one series, decimated to at most `max`. */
export function decimateXY(xs: ArrayLike<number>, ys: ArrayLike<number>, max = MAX_POINTS): XY[] {
  if (xs.length !== ys.length) throw new Error(`decimate: ${xs.length} xs but ${ys.length} ys`);
  return decimateIndices(ys, max).map((i) => ({ x: xs[i], y: ys[i] }));
}

/** The most points a chart draws per series. */
export const MAX_POINTS = 2000;
