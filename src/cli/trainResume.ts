// `train --out DIR` resumes as a job of one run: jobResume.ts with the run's own folder as its only member ('.'),
// so a killed train continues from the state trainMembers saves (resumeState.ts), other settings are refused
// naming the fields, --fresh starts anew, and a finished train run again gives its summary. The settings are the
// run's whole config (recipe included), the engine and the live changes: all that decides its results.
import { log } from './io';
import { onInterrupt, openJob } from './jobResume';
import { finishedResult, RESULT_FILE } from './resumeState';
import type { Backend } from '../backend';
import type { RunSetup } from './commands/runSetup';
import type { TrainSummary } from './trainResult';
import { engineName } from './args';

/** The member list of a lone run's job: its own folder. */
export const LONE_RUN: readonly string[] = ['.'];

export interface OpenedTrain {
  /** The summary of this run when it finished already in `out` (nothing to train). */
  finished: TrainSummary | null;
  /** Marks the job finished (after the run's result.json is written). */
  done(): void;
  /** Installs the Ctrl-C line's handlers (call as stepping starts: until then a kill loses nothing, and the default handler ends at once). */
  watch(): void;
  /** Removes them (call when training ends). */
  stopWatch(): void;
}

/** The engine as a setting: an engine's results are its own (wasm is the CPU engine, cpu the reference). */

/** Opens `out` for this train (throws an InputError naming what differs when it holds a train of other settings). */
export function openTrain(out: string, s: RunSetup, at: readonly string[], backend: Backend, fresh: boolean): OpenedTrain {
  const settings: Record<string, unknown> = { preset: s.preset.name, backend: engineName(backend.name), '--at': [...at], ...s.config };
  const job = openJob(out, 'train', settings, LONE_RUN, [RESULT_FILE], fresh);
  const none = () => {};
  // read again as it was written (NaN kept: resumeState.ts exactJson); a train killed after its result.json and
  // before job.json said done is finished too
  const kept = finishedResult(out, s.preset.name, s.config);
  if (job.finished !== null || kept) {
    if (job.finished === null) {
      job.done();
      log(`train: ${out} holds this run, finished; its results are in ${out}/${RESULT_FILE} (--fresh trains it anew)`);
    }
    return { finished: kept?.summary ?? (job.finished as { result: { summary: TrainSummary } }).result.summary, done: none, watch: none, stopWatch: none };
  }
  // trainMembers saves no state for it (its result.json still says it finished)
  if (s.env.curriculum) log('train: this run has a curriculum, whose progress the saved state does not hold: it saves no state, and after a kill the same command starts it over');
  let stop = none;
  return { finished: null, done: () => job.done(), watch: () => { stop = onInterrupt('train', out, () => LONE_RUN); }, stopWatch: () => stop() };
}
