// What the store's context holds of a population's workers (types only): a member as the page reaches it, and the
// lanes kept while the population is the current run. Apart from context.ts and sweepPopulation.ts, which both use
// them, so neither imports the other for its types.
import type { RunConfig } from '../config';
import type { ResumeExport, StepAnatomy, TrainerState, Transcripts } from '../worker/protocol';
import type { TrainerClient } from './types';

/** A running population member as the page reaches it: through its lane's worker, addressed by its run id. */
export interface MemberPort {
  /** The worker it trains in (members of one stacked lane share it: a change for all of them goes once). */
  readonly lane: object;
  /** `all`: the change goes to every member of the population (a shared field only applies so). */
  setHyperparams(partial: Partial<RunConfig>, all: boolean): Promise<TrainerState>;
  lastTranscripts(count: number): Promise<Transcripts>;
  /** The anatomy of one group of its last step (a member alone in its lane; a stacked lane refuses, saying why). */
  stepAnatomy(group: number): Promise<StepAnatomy>;
  /** Its last checkpoint and resume state, and its best checkpoint. */
  exportResume(): Promise<ResumeExport>;
  exportBest(): Promise<Uint8Array>;
  /** Its weights back to an eval's: its best (no step), or the eval at `step`. */
  restore(step?: number): Promise<TrainerState>;
  /** Its state now. */
  state(): Promise<TrainerState>;
}

/** The running members, by run id. */
export type Members = Map<string, MemberPort>;

/** One worker of a population and the members it trains. */
export interface Lane { client: TrainerClient; idx: number[]; states: TrainerState[]; ports: MemberPort[]; label: string; off: () => void }

/** The lanes of the current population (kept after it pauses or finishes), or null. */
export interface KeptLanes { sweepId: string; lanes: Lane[] }
