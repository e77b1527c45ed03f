// The built page's service worker (public/sw.js): it adds the cross-origin isolation headers to what it serves
// and keeps an offline copy of the app (docs/page.md, "Hosting"). On a host that sends no headers the first visit
// is not isolated; once the worker controls the page one reload makes it so (threads for the CPU engine), done
// only while nothing has trained yet and at most once a session (a browser that still does not isolate is left
// as it is: the page works on one thread and says so).
const RELOADED = 'gspo.isolation-reload';

export function registerServiceWorker(canReload: () => boolean): void {
  if (!('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register('sw.js').then(() => {
      if (crossOriginIsolated) { try { sessionStorage.removeItem(RELOADED); } catch { /* no storage */ } return; }
      const reload = () => {
        try {
          if (sessionStorage.getItem(RELOADED) || !canReload()) return;
          sessionStorage.setItem(RELOADED, '1');
        } catch { return; } // no session storage: no guard against a loop, so no reload
        location.reload();
      };
      if (navigator.serviceWorker.controller) reload();
      else navigator.serviceWorker.addEventListener('controllerchange', reload, { once: true });
    }).catch((e: unknown) => console.warn(`the service worker was not registered (no offline copy; threads only where the host sends COOP/COEP): ${String(e)}`));
  };
  if (document.readyState === 'complete') register(); else window.addEventListener('load', register, { once: true });
}
