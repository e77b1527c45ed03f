// The app store: one zustand store made of three slices (setup, session,
// runs). Built with zustand/vanilla so it runs in Node tests; React reads it
// through useApp (one value at a time).
import { createStore, type StoreApi } from 'zustand/vanilla';
import { StoreContext } from './context';
import { initialRuns, runsActions } from './runsSlice';
import { initialSession, sessionActions } from './sessionSlice';
import { initialSetup, setupActions } from './setupSlice';
import { initialSweep, sweepActions, type KeyValueStore } from './sweepSlice';
import type { AppDeps, AppState } from './types';

export type AppStore = StoreApi<AppState> & { ctx: StoreContext };

/** `initial` overrides the starting state (tests render components in a given state). */
export function createAppStore(deps: AppDeps, initial: Partial<AppState> = {}): AppStore {
  let ctx!: StoreContext;
  const kv = deps.kv ?? memoryKv();
  const store = createStore<AppState>()((set, get) => {
    ctx = new StoreContext(deps, set, get);
    return {
      ...initialSetup(), ...initialSession(), ...initialRuns(), ...initialSweep(kv),
      ...setupActions(ctx), ...sessionActions(ctx), ...runsActions(ctx), ...sweepActions(ctx, kv),
      ...initial,
    };
  });
  return Object.assign(store, { ctx });
}

/** A key-value store that forgets on reload (where the page has no localStorage). */
export function memoryKv(): KeyValueStore {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k) ?? null, set: (k, v) => { m.set(k, v); }, remove: (k) => { m.delete(k); } };
}
