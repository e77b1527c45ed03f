// The last door before a command's result is printed: JSON has no NaN or Infinity, so a
// non-finite number would leave as `null` with exit 0, as if it were a result. Commands whose
// results mark a figure that does not exist with NaN on purpose are left out (bench, study and
// robustness print it as "-"; compare's interval of fewer than two seeds, sweep's settle figures
// of a run with no late points); every other result with a non-finite number is a fault naming
// where it is (train, eval, grad, logprobs, pretrain, export).
import { RunFault } from '../contract/errors';

/** Commands whose results may hold NaN for a figure that does not exist. */
export const MAY_HOLD_NAN: ReadonlySet<string> = new Set(['bench', 'study', 'robustness', 'compare', 'sweep']);

/** The path and value of the first number in `value` that is not finite (depth first), or null. */
export function firstNonFinite(value: unknown, path = 'result'): { path: string; value: number } | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : { path, value };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) { const hit = firstNonFinite(value[i], `${path}[${i}]`); if (hit) return hit; }
    return null;
  }
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const [k, v] of Object.entries(value)) { const hit = firstNonFinite(v, `${path}.${k}`); if (hit) return hit; }
  }
  return null;
}

/** Throws a RunFault (exit 1) naming the first non-finite number of `command`'s result. */
export function checkResult(command: string, result: unknown): void {
  if (MAY_HOLD_NAN.has(command)) return;
  const bad = firstNonFinite(result);
  if (bad) throw new RunFault(`${command}: ${bad.path} is ${bad.value}: the run produced a number that is not finite, so its result is refused rather than printed as null (lower lr, or check the inputs' magnitudes)`);
}
