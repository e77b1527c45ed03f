import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precacheManifest } from './scripts/precacheManifest';

// Cross-origin isolation: with these two headers the page (and its workers) may share memory
// (SharedArrayBuffer, a shared WebAssembly.Memory), which the CPU engine's threads need
// (docs/cpu-engine.md, "Threads in the page"). require-corp blocks cross-origin subresources
// that do not opt in; the page has none: everything is served from this origin.
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

// Everything is served from this origin; nothing is fetched from elsewhere at run time. A host that cannot send
// the headers gets them from the page's service worker (public/sw.js), which also keeps the offline copy listed in
// precache.json (scripts/precacheManifest.ts).
export default defineConfig({
  plugins: [react(), precacheManifest('public')],
  server: { host: '127.0.0.1', port: 5173, headers: ISOLATION_HEADERS },
  preview: { host: '127.0.0.1', port: 4173, headers: ISOLATION_HEADERS },
  build: { target: 'es2022', sourcemap: true },
  worker: { format: 'es' },
});
