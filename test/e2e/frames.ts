// Frame times in the page: requestAnimationFrame deltas and long tasks
// (PerformanceObserver 'longtask', > 50 ms on the main thread), collected in
// the page while it trains, summarized here. A measurement to report, not a
// timed assertion.
import type { Page } from 'playwright-core';

interface Probe { deltas: number[]; slow: [number, number][]; longTasks: number[]; stop: boolean; t0: number; t1: number }

export async function startFrameProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __frameProbe: Probe };
    const probe: Probe = { deltas: [], slow: [], longTasks: [], stop: false, t0: performance.now(), t1: 0 };
    w.__frameProbe = probe;
    let last = performance.now();
    const tick = (t: number) => {
      probe.deltas.push(t - last);
      if (t - last > 100) probe.slow.push([Math.round(last - probe.t0), Math.round(t - last)]); // [start ms after the probe began, length]
      last = t;
      if (!probe.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
    try {
      new PerformanceObserver((list) => { for (const e of list.getEntries()) probe.longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: false });
    } catch { /* no long-task timing in this browser */ }
  });
}

export async function stopFrameProbe(page: Page): Promise<Probe> {
  return page.evaluate(() => {
    const w = window as unknown as { __frameProbe: Probe };
    w.__frameProbe.stop = true;
    w.__frameProbe.t1 = performance.now();
    return { ...w.__frameProbe };
  });
}

export function frameStats(p: Probe) {
  const d = [...p.deltas].sort((a, b) => a - b);
  const q = (f: number) => (d.length ? d[Math.min(d.length - 1, Math.floor(f * d.length))] : NaN);
  return {
    count: d.length, spanMs: p.t1 - p.t0, mean: d.reduce((a, b) => a + b, 0) / Math.max(1, d.length),
    p50: q(0.5), p95: q(0.95), p99: q(0.99), max: d[d.length - 1] ?? NaN, over50: d.filter((x) => x > 50).length,
    longTasks: p.longTasks.length, longTaskMs: p.longTasks.reduce((a, b) => a + b, 0), slow: p.slow,
  };
}
