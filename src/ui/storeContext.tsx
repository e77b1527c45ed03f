// React's handle on the app store: one value at a time (useApp), and a frame
// counter for high-frequency data that advances at most once per animation
// frame (once a second in fast mode) however often telemetry arrives.
import { chosenMember } from '../store/currentRun';
import { createContext, startTransition, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
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

/** Redraws of live data: at most this often (ms), normal and fast. */
export const REDRAW_MS = { normal: 250, fast: 1000 } as const;

/**
 * A counter that advances when telemetry arrives (the hub) or when `select(state)` changes, at most
 * every REDRAW_MS (normal 250 ms, fast 1 s) and on an animation frame: what live views redraw on.
 */
export function useDrawTick(select?: (s: AppState) => unknown): number {
  const store = useAppStore();
  const hub = store.ctx.deps.hub;
  const fast = useApp((s) => s.speed === 'fast');
  const [tick, setTick] = useState(0);
  const selectRef = useRef(select);
  selectRef.current = select;
  useEffect(() => {
    let pending = false;
    let raf = 0;
    let last = -Infinity;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gap = fast ? REDRAW_MS.fast : REDRAW_MS.normal;
    // a transition: React renders the redraw in slices and lets frames (and clicks) through meanwhile
    const draw = () => { pending = false; last = performance.now(); startTransition(() => setTick((t) => t + 1)); };
    const onFrame = () => (typeof requestAnimationFrame === 'undefined' ? draw() : (raf = requestAnimationFrame(draw)));
    const changed = () => {
      if (pending) return;
      pending = true;
      timer = setTimeout(onFrame, Math.max(0, last + gap - performance.now()));
    };
    const offHub = hub.subscribe(changed);
    let seen = selectRef.current?.(store.getState());
    const offStore = store.subscribe((s) => {
      const now = selectRef.current?.(s);
      if (now !== seen) { seen = now; changed(); }
    });
    setTick((t) => t + 1);
    return () => {
      offHub();
      offStore();
      if (raf) cancelAnimationFrame(raf);
      if (timer) clearTimeout(timer);
    };
  }, [hub, store, fast]);
  return tick;
}

/** Re-renders with telemetry (the hub), at most every REDRAW_MS. */
export function useHubFrame(): number {
  return useDrawTick();
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

/**
 * The run the Transcripts and Anatomy panels follow: while a population trains, its shown member (the hovered
 * trail, else the one picked, else the first) with its sweep label and step; else the lone run (label null).
 */
export function usePanelRun(): { runId: string | null; label: string | null; steps: number } {
  const lone = useLiveSteps();
  const hub = useHub();
  // primitives only: a selector returning a fresh object would re-render forever
  const runId = useApp((s) => chosenMember(s)?.runId ?? s.runId);
  const label = useApp((s) => chosenMember(s)?.label ?? null);
  if (label === null || runId === null) return { runId, label: null, steps: lone };
  const series = hub.get(runId);
  return { runId, label, steps: series && series.rows > 0 ? series.last('step') + 1 : 0 };
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
