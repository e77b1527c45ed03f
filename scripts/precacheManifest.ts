// A build step: precache.json, the list of files the service worker (public/sw.js) caches at install so that the
// page loads and trains offline after one visit: every file of the build (its workers and wasm included) and every
// file of public/ (the shipped warm starts), less source maps and the worker itself. `version` changes whenever a
// file does (the built names carry their content hash; public files are hashed here), so a new build replaces the
// old cache instead of mixing with it. The built sw.js carries the version too: a browser installs a new worker (and
// so caches a new build) only when the bytes of sw.js change.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Plugin } from 'vite';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p)); else out.push(p);
  }
  return out;
}

export function precacheManifest(publicDir: string): Plugin {
  return {
    name: 'gspo-precache-manifest',
    apply: 'build',
    generateBundle(_options, bundle) {
      const built = Object.keys(bundle).filter((f) => !f.endsWith('.map')).sort();
      const hash = createHash('sha256').update(built.join('\n'));
      const shipped: string[] = [];
      for (const p of filesUnder(publicDir).sort()) {
        const rel = relative(publicDir, p).split(sep).join('/');
        if (rel === 'sw.js') continue;
        shipped.push(rel);
        hash.update(rel).update(readFileSync(p));
      }
      const files = [...built, ...shipped].filter((f) => f !== 'precache.json');
      const version = hash.digest('hex').slice(0, 16);
      this.emitFile({ type: 'asset', fileName: 'precache.json', source: JSON.stringify({ version, files }) });
      // written over the copy of public/sw.js
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: `${readFileSync(join(publicDir, 'sw.js'), 'utf8')}// build ${version}\n` });
    },
  };
}
