// A run folder's evals.jsonl read back (robustness --judge, compare): through the one reader
// (src/cli/inputFile.ts), each line against the run file's eval schema (src/store/runSchema.ts):
// step a whole number, accuracy in [0, 1], tokens and turns >= 0, lambdaTok in its range.
import type { EvalRecord } from '../rl/runRecord';
import { evalRecord, isObject } from '../store/runSchema';
import { readJsonLines } from './inputFile';

/** A run's evals file is a line per eval: 100,000 evals of about 1 KB at most. */
export const MAX_EVALS_BYTES = 100 << 20;

const CORE = new Set(['step', 'accuracy', 'tokens', 'turns', 'lambdaTok']);

/** One line: train writes an extra that is NaN (no known task in the draw, say) as null; the core fields must be numbers. */
export function evalLine(v: unknown, where: string): EvalRecord {
  const e = isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x === null && !CORE.has(k) ? 'NaN' : x])) : v;
  return evalRecord(e, where);
}

export function readEvalsFile(path: string): EvalRecord[] {
  return readJsonLines(path, 'evals file', MAX_EVALS_BYTES, (v) => evalLine(v, 'eval'));
}
