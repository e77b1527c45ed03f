// The app store: one zustand store made of three slices (setup, session,
// runs). Built with zustand/vanilla so it runs in Node tests; React reads it
// through useApp (one value at a time).
import { createStore, type StoreApi } from 'zustand/vanilla';
import { StoreContext } from './context';
import { initialRuns, runsActions } from './runsSlice';
import { initialSession, sessionActions } from './sessionSlice';
import { initialSetup, setupActions } from './setupSlice';
import type { AppDeps, AppState } from './types';

export type AppStore = StoreApi<AppState> & { ctx: StoreContext };

/** `initial` overrides the starting state (tests render components in a given state). */
export function createAppStore(deps: AppDeps, initial: Partial<AppState> = {}): AppStore {
  let ctx!: StoreContext;
  const store = createStore<AppState>()((set, get) => {
    ctx = new StoreContext(deps, set, get);
    return {
      ...initialSetup(), ...initialSession(), ...initialRuns(),
      ...setupActions(ctx), ...sessionActions(ctx), ...runsActions(ctx),
      ...initial,
    };
  });
  return Object.assign(store, { ctx });
}
