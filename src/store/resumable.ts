// What a reload offers to resume: the most recent interrupted work, a lone run or a population as one.
import type { RunMeta } from './runTypes';
import type { SweepRecord } from './sweepRecord';
import type { Resumable } from './types';

/**
 * The most recent work the page was doing when it closed: a lone run that was training or paused (with a last
 * checkpoint), or a population interrupted by the close (its members resume together through the sweep), whichever
 * was updated last. A population's members are never offered one by one.
 */
export function resumableOf(runs: readonly RunMeta[], sweep: SweepRecord | null = null): Resumable | null {
  const r = [...runs].sort((a, b) => b.updatedAt - a.updatedAt).find((m) => !m.member && (m.status === 'interrupted' || m.status === 'paused') && m.checkpoints.last !== undefined);
  const lone: Resumable | null = r ? { id: r.id, name: r.name, step: r.checkpoints.last!, status: r.status === 'paused' ? 'paused' : 'interrupted' } : null;
  if (sweep?.status !== 'interrupted') return lone;
  const left = sweep.runs.filter((x) => x.status === 'interrupted' || x.status === 'pending');
  if (left.length === 0) return lone;
  const metas = left.map((x) => runs.find((m) => m.id === x.runId));
  const updated = Math.max(sweep.createdAt, ...metas.map((m) => m?.updatedAt ?? 0));
  if (r && r.updatedAt > updated) return lone;
  return { id: sweep.id, name: `${sweep.preset} population`, step: Math.min(...metas.map((m) => m?.checkpoints.last ?? 0)), status: 'interrupted', members: left.length };
}
