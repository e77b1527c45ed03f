// Warm starts for a population whose members need several: one thread per distinct warm
// start (members that differ only in what RL does share one), all at once.
import { inLanes } from '../rl/population';
import { warmKey, type WarmStarts } from '../rl/warmStart';

export { warmKey };
import { inThread } from './memberPool';
import { setup } from './commands/runSetup';

export interface WarmJob { preset: string; overrides: Record<string, unknown>; engine?: 'cpu' | 'wasm' }
export type WarmOutcome = { ok: true; warm: WarmStarts } | { ok: false; message: string };


const runThread = (job: WarmJob) => inThread<WarmOutcome>('./warmThread.ts', job, (e) => ({ ok: false, message: e.message }));

/** Each job's warm start (jobs with one warmKey share one thread), `atOnce` threads at a time. */
export async function warmStartsFor(jobs: WarmJob[], atOnce: number): Promise<WarmOutcome[]> {
  const keys = jobs.map((j) => warmKey(setup(j.preset, j.overrides).config));
  const distinct = [...new Set(keys)];
  const made = new Map<string, WarmOutcome>();
  await inLanes(distinct.length, atOnce, async (i) => {
    made.set(distinct[i], await runThread(jobs[keys.indexOf(distinct[i])]));
  });
  return keys.map((k) => made.get(k)!);
}
