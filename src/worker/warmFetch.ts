// A warm start's file over HTTP, bounded in time: the page waits on it while a run is born.

/** How long a warm start's file may take to arrive: it comes from this origin, so a fetch this slow is stuck. */
export const WARM_FETCH_MS = 60_000;

/** One warm-start file, bounded by `ms` (a fetch that never answers would hold init, and the page, forever). */
export async function fetchWarmStart(url: URL, fetchFn: typeof fetch = fetch, ms = WARM_FETCH_MS): Promise<Uint8Array | null> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    const res = await fetchFn(url, { credentials: 'same-origin', signal: abort.signal });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`GET ${url.pathname}: HTTP ${res.status}`);
    if ((res.headers.get('content-type') ?? '').includes('text/html')) return null;
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    if (abort.signal.aborted) throw new Error(`GET ${url.pathname}: no answer within ${ms / 1000} s`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
