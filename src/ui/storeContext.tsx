// React's handle on the app store: one value at a time (useApp), and a frame
// counter for high-frequency data that advances at most once per animation
// frame (once a second in fast mode) however often telemetry arrives.
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppStore } from '../store/appStore';
import type { MetricsHub } from '../store/metricsHub';
import type { AppState } from '../store/types';

const StoreCtx = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreCtx.Provider value={store}>{children}</StoreCtx.Provider>;
}

export function useAppStore(): AppStore {
  const s = useContext(StoreCtx);
  if (!s) throw new Error('useAppStore outside StoreProvider');
  return s;
}

export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStore(), selector);
}

export function useHub(): MetricsHub {
  return useAppStore().ctx.deps.hub;
}

/** The hub's version as of the last drawn frame: re-renders at most once per frame (fast: once a second). */
export function useHubFrame(): number {
  const hub = useHub();
  const fast = useApp((s) => s.speed === 'fast');
  const [frame, setFrame] = useState(hub.version);
  useEffect(() => {
    let pending = false;
    let raf = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const draw = () => { pending = false; setFrame(hub.version); };
    const unsubscribe = hub.subscribe(() => {
      if (pending) return;
      pending = true;
      if (fast || typeof requestAnimationFrame === 'undefined') timer = setTimeout(draw, fast ? 1000 : 16);
      else raf = requestAnimationFrame(draw);
    });
    setFrame(hub.version);
    return () => {
      unsubscribe();
      if (raf) cancelAnimationFrame(raf);
      if (timer) clearTimeout(timer);
    };
  }, [hub, fast]);
  return frame;
}

/** Steps the current run has taken, live from telemetry (re-renders with the hub frame). */
export function useLiveSteps(): number {
  useHubFrame();
  const hub = useHub();
  const runId = useApp((s) => s.runId);
  const fromSnapshot = useApp((s) => s.trainer?.stepCount ?? 0);
  const series = runId ? hub.get(runId) : undefined;
  return Math.max(fromSnapshot, series && series.rows > 0 ? series.last('step') + 1 : 0);
}

/** Calls `fn` when `key` changes, at most once per `ms` (the last change always gets its call). */
export function useThrottledEffect(fn: () => void, key: unknown, ms: number, enabled = true): void {
  const last = useRef(0);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    if (!enabled) return;
    const wait = last.current + ms - Date.now();
    const run = () => { last.current = Date.now(); fnRef.current(); };
    if (wait <= 0) { run(); return; }
    const t = setTimeout(run, wait);
    return () => clearTimeout(t);
  }, [key, ms, enabled]);
}
