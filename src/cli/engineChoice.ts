// The engine a command runs on when no --backend is given and there is a hardware
// WebGPU adapter: WebGPU is not always the faster (the default model's step is bound
// by its dispatches; an integrated or busy GPU can lose to the CPU engine on every
// core), so each candidate takes a short warm step at the run's own shapes and the
// faster trains. The figures are cached per adapter, engine threads and shapes, so
// a second command pays nothing; the choice is said in one line with both figures.
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../backend';
import { writeAtomic } from './io';

import { pickFaster, type EngineChoice, type EngineTiming } from '../rl/engineTiming';
export { pickFaster, type EngineChoice, type EngineTiming };

/** Where the measured figures are kept between commands (GSPO_ENGINE_CACHE, else the system's temp folder). */
export const cachePath = (env: Record<string, string | undefined> = process.env): string => env.GSPO_ENGINE_CACHE ?? join(tmpdir(), 'gspo-engine-choice.json');

function readCache(path: string): Record<string, EngineTiming[]> {
  try {
    if (!existsSync(path)) return {};
    const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, EngineTiming[]>) : {};
  } catch { return {}; } // a broken cache is measured again, not an error
}

/**
 * Times each candidate (its `timeStep`: one warm step at the run's shapes, in ms) unless `key` has figures in the
 * cache, picks the faster and keeps the others' resources freed. Returns the chosen backend and how it was chosen.
 */
export async function chooseByTiming(candidates: readonly Backend[], key: string, timeStep: (b: Backend) => Promise<number>, path = cachePath()): Promise<{ backend: Backend; choice: EngineChoice }> {
  const cache = readCache(path);
  let timings = cache[key];
  const cached = Array.isArray(timings) && candidates.every((c) => timings!.some((t) => t.engine === c.name));
  if (!cached) {
    timings = [];
    for (const c of candidates) {
      let ms = Number.NaN;
      try { ms = await timeStep(c); } catch { /* it cannot train this run: not chosen */ }
      timings.push({ engine: c.name, msPerStep: ms });
    }
    try { writeAtomic(path, JSON.stringify({ ...cache, [key]: timings }, null, 1)); } catch { /* no cache: measured again next time */ }
  }
  const pick = pickFaster(timings!);
  const backend = candidates.find((c) => c.name === pick.chosen)!;
  for (const c of candidates) if (c !== backend) c.destroy();
  return { backend, choice: { chosen: pick.chosen, timings: timings!, cached, line: `${pick.line}${cached ? ' (measured before, cached)' : ''}` } };
}
