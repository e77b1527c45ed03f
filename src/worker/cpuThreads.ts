// How many threads the page's CPU engine runs on. Threads share one WebAssembly.Memory, which a browser
// allows only in a cross-origin isolated page (the host sends COOP same-origin and COEP require-corp:
// docs/cpu-engine.md, "Threads in the page"); elsewhere the engine runs on one thread and says why.
// The cores are divided among the training workers that run at once (a population's lanes), so that
// lanes times threads does not oversubscribe the machine.

/** The most threads one engine takes in a page (beyond this, waking the workers costs more than the split saves at the page's sizes). */
export const PAGE_THREAD_CAP = 8;

export const NOT_ISOLATED_NOTE = 'one thread: this page is not cross-origin isolated (the host does not send the COOP and COEP headers'
  + ' that threads need); see docs/cpu-engine.md, "Threads in the page"';

export interface ThreadHost {
  /** globalThis.crossOriginIsolated === true. */
  isolated: boolean;
  /** SharedArrayBuffer exists here. */
  sharedMemory: boolean;
  /** navigator.hardwareConcurrency (0 or absent: unknown, taken as 1). */
  cores: number;
  /** Training workers that run at once on this page, this one included (a population's lanes; 1 for a single run). */
  lanes: number;
}

export interface ThreadChoice {
  threads: number;
  /** Why the engine runs on one thread where threads were possible in principle (null: nothing to say). */
  note: string | null;
}

/**
 * threads = max(1, floor(min(cores, cap) / lanes)) in a cross-origin isolated page with SharedArrayBuffer; else 1, with
 * the reason when it costs something (where the share is one thread anyway, one core or many lanes, nothing is said).
 */
export function pageThreads({ isolated, sharedMemory, cores, lanes }: ThreadHost, cap = PAGE_THREAD_CAP): ThreadChoice {
  const usable = Math.min(Number.isInteger(cores) && cores > 0 ? cores : 1, cap);
  const share = Number.isInteger(lanes) && lanes > 0 ? lanes : 1;
  const threads = Math.max(1, Math.floor(usable / share));
  if (!isolated || !sharedMemory) return { threads: 1, note: threads > 1 ? NOT_ISOLATED_NOTE : null };
  return { threads, note: null };
}

/** This worker's (or page's) host, for pageThreads. */
export function threadHost(lanes: number, g: typeof globalThis = globalThis): ThreadHost {
  return {
    isolated: (g as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
    sharedMemory: typeof (g as { SharedArrayBuffer?: unknown }).SharedArrayBuffer === 'function',
    cores: (g as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1,
    lanes,
  };
}
