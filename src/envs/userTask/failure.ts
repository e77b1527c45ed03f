// A failed task call as the one line a person reads: the task function, the limit or the error, the
// line in task.js; capped in length and with control characters escaped (a task's text can hold
// terminal escapes and newlines, which would clear a screen or forge a `gspo:` line).
import { escapeControls, InputError } from '../../contract/errors';

export { escapeControls };
import type { Failure } from './engine.mjs';

/** The longest message a task's failure gives (characters). */
export const MESSAGE_MAX = 300;

/** Where a failed call was: the task function and the item of the batch (-1: none). */
export interface Where { fn: string; item: number }

/** What stopped a task function: its own error, or a limit (time, memory, stack depth, a value's size). */
export type FailureKind = Failure['cause'];

/** A task function's failure: the message names the function; `where` says which item of the batch. */
export class TaskError extends InputError {
  override name = 'TaskError';
  constructor(message: string, readonly where: Where, readonly kind: FailureKind = 'threw') { super(oneLine(message)); }
}

/** A message as one bounded line: controls escaped, under `max` characters (the cut says how long it was). */
export function oneLine(s: string, max = MESSAGE_MAX): string {
  const e = escapeControls(s);
  if (e.length < max) return e;
  const tail = `... (${s.length} characters)`;
  return `${e.slice(0, max - 1 - tail.length)}${tail}`;
}

/** A line number from a QuickJS stack ("at f (task.js:12:5)"), or null. */
function lineOf(stack: string | undefined, file: string): number | null {
  const m = stack ? new RegExp(`${file.replace('.', '\\.')}:(\\d+)`).exec(stack) : null;
  return m ? Number(m[1]) : null;
}

/**
 * The TaskError of a failed call to `call` (the function the host called). The engine names the function it was
 * in; where it could not (the task broke what reads its position), the failure is the call's own.
 */
export function taskError(f: Failure, limits: { callMs: number; memoryBytes: number; file: string }, call: string): TaskError {
  const fn = f.fn === 'unknown' || !f.fn ? call : f.fn;
  const who = fn === 'module' ? 'the module' : fn;
  const line = lineOf(f.stack, limits.file);
  const at = line !== null ? ` (${limits.file} line ${line})` : '';
  const mb = Math.round(limits.memoryBytes / 2 ** 20);
  const text = ((): string => {
    switch (f.cause) {
      case 'time': return `${who} did not return within ${limits.callMs} ms: stopped (an endless loop?)`;
      case 'memory': return `${who} ran out of memory: stopped at the task's limit of ${mb} MB`;
      case 'stack': return `${who} exceeded the stack depth: stopped (unbounded recursion, or a value nested too deep)${at}`;
      case 'size': return `${who}: ${f.message}`;
      case 'syntax': return `${fn === 'module' ? 'the task' : fn} has a syntax error${at}: ${f.message}`;
      case 'await': return 'the module awaits at its top level (await or import()): a task module runs synchronously, and import is not available in a task';
      case 'no-default': return 'the module has no `export default { ... }`: a task is one module whose default export declares it (docs/your-task.md)';
      case 'task': return `${f.message}${at}${f.rejected ? ` (${f.rejected})` : ''}`;
      case 'internal': return `${who} stopped the sandbox (${f.message}): the engine was made anew`;
      default: return `${who} threw ${f.name}: ${f.message}${at}${f.rejected ? ` (${f.rejected})` : ''}`;
    }
  })();
  return new TaskError(text, { fn, item: f.item }, f.cause);
}
