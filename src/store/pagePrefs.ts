// What the page remembers across reloads besides the runs themselves: the
// backend the person chose, the runs overlaid on the charts, the first-run
// guide's dismissal, the "best" rule and the accuracy axis zoom. One small
// JSON object in localStorage; anything unreadable falls back to defaults.
import type { BestRule } from './bestRule';

export interface PagePrefs {
  /** The backend the person chose (null: the page chooses). */
  backend: 'cpu' | 'webgpu' | null;
  overlay: string[];
  /** Overlaid runs that stay shown when a new run starts (the others are cleared then). */
  pinned: string[];
  guideDismissed: boolean;
  bestRule: BestRule;
  /** The token count the 'tokens' best rule aims at. */
  bestTarget: number;
  /** The accuracy axis of the Pareto chart: zoomed to the data, or the full 0-100%. */
  accuracyAxis: 'data' | 'full';
}

export interface PrefsStore {
  load(): unknown;
  save(p: PagePrefs): void;
}

export const DEFAULT_PREFS: PagePrefs = { backend: null, overlay: [], pinned: [], guideDismissed: false, bestRule: 'reward', bestTarget: 2, accuracyAxis: 'data' };

/** Tolerant reading: each field of the right type is kept, the rest is the default (never throws). */
export function parsePrefs(raw: unknown): PagePrefs {
  const p = { ...DEFAULT_PREFS, overlay: [] as string[], pinned: [] as string[] };
  if (typeof raw !== 'object' || raw === null) return p;
  const r = raw as Record<string, unknown>;
  // 'auto' (earlier pages wrote it whenever WebGPU answered, chosen or not) leaves the choice to the page
  if (r.backend === 'webgpu' || r.backend === 'cpu') p.backend = r.backend;
  if (Array.isArray(r.overlay)) p.overlay = r.overlay.filter((x): x is string => typeof x === 'string').slice(0, 50);
  if (Array.isArray(r.pinned)) p.pinned = r.pinned.filter((x): x is string => typeof x === 'string').slice(0, 50);
  if (typeof r.guideDismissed === 'boolean') p.guideDismissed = r.guideDismissed;
  if (r.bestRule === 'accuracy' || r.bestRule === 'reward' || r.bestRule === 'tokens') p.bestRule = r.bestRule;
  if (typeof r.bestTarget === 'number' && Number.isFinite(r.bestTarget) && r.bestTarget >= 0 && r.bestTarget <= 1000) p.bestTarget = r.bestTarget;
  if (r.accuracyAxis === 'data' || r.accuracyAxis === 'full') p.accuracyAxis = r.accuracyAxis;
  return p;
}

const KEY = 'gspo-playground.page.v1';

/** localStorage where the browser offers it (private modes may throw: then nothing is remembered). */
export function localPrefs(): PrefsStore {
  return {
    load() { try { const s = globalThis.localStorage?.getItem(KEY); return s ? JSON.parse(s) : null; } catch { return null; } },
    save(p) { try { globalThis.localStorage?.setItem(KEY, JSON.stringify(p)); } catch { /* nothing remembered */ } },
  };
}

export class MemoryPrefs implements PrefsStore {
  constructor(public value: unknown = null) {}
  load() { return this.value === null ? null : structuredClone(this.value); }
  save(p: PagePrefs) { this.value = structuredClone(p); }
}
