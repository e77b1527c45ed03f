// The import graph of src/ and shaders/: no circles, and every arrow points down the layers (docs/architecture.md
// "Layers"). Reads every .ts/.tsx/.mjs file's imports with TypeScript's own pre-processor: static `import` and
// `export ... from` (type-only ones too), `import x = require()`, and dynamic `import()` of a relative path.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The layers, top to bottom. A file may import its own folder and any layer below its own, never above, and never a
 * sibling folder of the same layer. Taken from what the code does (and docs/architecture.md): the page's entry file, the two front ends (page and CLI),
 * the store, the worker and the lessons (neither imports the other), the export (which reads rl's records and the
 * envs' Python), rl, then the envs and the CPU engine, then the backends and the model, then the contract (src/'s root files and src/contract/).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['main'],
  ['ui', 'cli'],
  ['store'],
  ['worker', 'lessons'],
  ['export'],
  ['rl'],
  ['envs', 'simd'],
  ['gpu', 'reference', 'model'],
  ['contract'],
];

/**
 * Files whose layer is not their folder's, each with its reason. Root files (backend.ts, config.ts) and src/contract/
 * are the contract layer unless named here.
 */
const FILE_LAYER: Record<string, { layer: string; why: string }> = {
  'src/main.tsx': { layer: 'main', why: 'the page entry point: it mounts the ui on the store' },
};

/**
 * Circles not fixed yet, each as its files (sorted) with the reason. The test fails on any other circle and on an
 * entry here that is no longer a circle (remove it then).
 */
const KNOWN_CYCLES: { files: string[]; why: string }[] = [];

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...walk(p));
    else if (/\.(ts|tsx|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

const FILES = [...walk('src'), ...walk('shaders')].sort();
const KNOWN_FILES = new Set(FILES);

/** The file a relative specifier names, or null for one that is not code (JSON, CSS, `?raw` text). */
function resolveSpec(from: string, spec: string): string | null {
  const base = relative(ROOT, normalize(join(ROOT, dirname(from), spec.split('?')[0]))).split('\\').join('/');
  const candidates = [base, base.replace(/\.m?js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}.tsx`, `${base}.mjs`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => KNOWN_FILES.has(c)) ?? null;
}

function importGraph(): { edges: Map<string, string[]>; unresolved: string[] } {
  const edges = new Map<string, string[]>(), unresolved: string[] = [];
  for (const f of FILES) {
    const info = ts.preProcessFile(readFileSync(join(ROOT, f), 'utf8'), true, true);
    const to = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const r = resolveSpec(f, fileName);
      if (r) to.add(r);
      else if (!/\.(json|css|js\?raw)$|\?raw$/.test(fileName)) unresolved.push(`${f} -> ${fileName}`);
    }
    edges.set(f, [...to].sort());
  }
  return { edges, unresolved };
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const f of edges.keys()) if (!index.has(f)) visit(f);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

function layerOf(file: string): string {
  if (FILE_LAYER[file]) return FILE_LAYER[file].layer;
  const m = /^(src|shaders)\/([^/]+)\//.exec(file);
  if (file.startsWith('shaders/')) return 'simd'; // shaders/simd: the CPU engine's kernels (AssemblyScript)
  return m ? m[2] : 'contract';
}

function rank(layer: string): number {
  const r = LAYERS.findIndex((l) => l.includes(layer));
  if (r < 0) throw new Error(`no layer for ${layer}: add it to LAYERS`);
  return r;
}

const { edges, unresolved } = importGraph();

describe('the import graph', () => {
  it('reads the imports of every file', () => {
    expect(FILES.length).toBeGreaterThan(200);
    expect(unresolved).toEqual([]);
    // the pre-processor sees type-only, re-exports and dynamic imports
    expect(edges.get('src/cli/trainResume.ts')).toContain('src/cli/trainResult.ts'); // import type
    expect(edges.get('src/envs/registry.ts')).toContain('src/envs/types.ts');
  });

  it('has no circles but the known ones', () => {
    const found = cycles(edges).map((c) => c.join(' '));
    const known = KNOWN_CYCLES.map((k) => [...k.files].sort().join(' '));
    expect(found.filter((c) => !known.includes(c)), 'new import circles').toEqual([]);
    expect(known.filter((k) => !found.includes(k)), 'known circles that are gone: remove them from KNOWN_CYCLES').toEqual([]);
  });

  it('the cycle finder finds a circle', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
  });

  it('points every import down the layers', () => {
    for (const f of FILES) rank(layerOf(f));
    const against: string[] = [];
    for (const [from, tos] of edges) {
      const a = layerOf(from);
      for (const to of tos) {
        const b = layerOf(to);
        if (a === b) continue;
        if (rank(b) <= rank(a)) against.push(`${from} (${a}) -> ${to} (${b})`);
      }
    }
    expect(against).toEqual([]);
  });
});
