// The page's service worker (registered by src/ui/serviceWorker.ts in a built page). Two jobs:
// - cross-origin isolation on any static host: every same-origin response it serves carries COOP and COEP, which
//   the CPU engine's threads need (SharedArrayBuffer), so a host that cannot send headers still gets threads;
// - offline after one visit: the app, its workers and wasm and the shipped warm starts, listed by the build in
//   precache.json, are cached at install; the built files under assets/ (their names carry their content hash)
//   come from the cache first, everything else (the page, the warm starts, whose names stay when their bytes
//   change) from the network first, so a new build is seen whole when online and the cached build whole when not.
//   The build stamps its version at the end of this file, so a new build installs a new worker and a new cache.
const META = 'gspo-meta';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const res = await fetch('precache.json', { cache: 'no-store' });
    if (!res.ok) throw new Error(`precache.json: HTTP ${res.status}`);
    const { version, files } = await res.json();
    const cache = await caches.open(`gspo-${version}`);
    await cache.addAll(['./', ...files]);
    await (await caches.open(META)).put('version', new Response(version));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const current = await (await (await caches.open(META)).match('version'))?.text();
    for (const key of await caches.keys()) if (key !== META && key !== `gspo-${current}`) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    // ignoreVary: hosts send `Vary: Origin` (Vite's preview does), and the cached copies were fetched without an
    // Origin header while the page's module scripts and workers are requested with one, so a match that honoured
    // Vary found nothing and, offline, the page stopped at its first script.
    const match = { ignoreVary: true };
    let res;
    if (req.url.startsWith(new URL('assets/', self.registration.scope).href)) {
      res = (await caches.match(req, match)) ?? (await fetch(req));
    } else {
      try { res = await fetch(req); } catch (e) {
        res = (await caches.match(req, { ...match, ignoreSearch: req.mode === 'navigate' }))
          ?? (req.mode === 'navigate' ? await caches.match('./', match) : undefined);
        if (!res) throw e;
      }
    }
    return isolated(res);
  })());
});

/** The response with the isolation headers (an opaque or failed one as it is). */
function isolated(res) {
  if (!res || res.type === 'opaque' || res.status === 0) return res;
  const headers = new Headers(res.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
