// The task format's declarations, read once from the module and checked (docs/your-task.md):
// the vocabulary, the roles, the lengths, the run settings and the warm start. Also the token
// layout every task shares and the two ways text becomes tokens (characters or words).
import { clip, hasKey, InputError, quote } from '../../contract/errors';
import { validateConfig, type RunConfig } from '../../config';
import { escapeControls } from './failure';

/** Tokens every task has before its own vocabulary, in this order (ids 0..). MESSENGER only with two roles. */
export const RESERVED = ['PAD', 'BOS', 'EOS', 'SEP', 'ANS', 'SOLVER', 'MESSENGER'] as const;
export const TOK = { PAD: 0, BOS: 1, EOS: 2, SEP: 3, ANS: 4, SOLVER: 5, MESSENGER: 6 } as const;

/** Limits on what a task declares (a small model's sequence; a vocabulary the page can show). */
export const LIMITS = { vocab: 512, maxAnswer: 32, maxMessage: 32, maxPrompt: 96, tokenChars: 24 } as const;

/** Fields a task module's default export may have; any other is reported (a typo would silently do nothing). */
export const TASK_FIELDS: Record<string, 'function' | 'value'> = {
  name: 'value', about: 'value', vocab: 'value', maxAnswer: 'value', maxMessage: 'value', maxPrompt: 'value', settings: 'value',
  pretrain: 'value', sample: 'function', heldOut: 'function', solver: 'function', messenger: 'function', score: 'function', demo: 'function',
};

/** The warm start a task asks for: pretraining steps on its demonstrations, and the held-out accuracy to stop at. */
export interface TaskPretrain { steps: number; target?: number }

/** A task's declarations, checked. */
export interface TaskSpec {
  name: string;
  about: string;
  /** The task's own tokens (after RESERVED). */
  words: string[];
  /** true: every character of a text is a token; false: words separated by spaces. */
  chars: boolean;
  /** ['solver'] or ['messenger', 'solver']. */
  roles: string[];
  maxAnswer: number;
  maxMessage: number;
  /** Declared longest view in tokens (absent: measured on sampled tasks at load). */
  maxPrompt: number | null;
  /** Run settings the task suggests (config fields), checked. */
  settings: Partial<RunConfig>;
  pretrain: TaskPretrain;
  hasDemo: boolean;
  hasHeldOut: boolean;
}

/** What `describe` reports from inside the sandbox. */
export interface Described {
  missing?: boolean; type?: string;
  fields: Record<string, string>;
  name?: unknown; about?: unknown; vocab?: unknown; maxAnswer?: unknown; maxMessage?: unknown; maxPrompt?: unknown; settings?: unknown; pretrain?: unknown;
}

export const DEFAULT_PRETRAIN: TaskPretrain = { steps: 600 };

const intIn = (field: string, v: unknown, lo: number, hi: number): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new InputError(`${field} must be an integer in ${lo}..${hi}; got ${typeof v === 'string' ? 'the string ' : ''}${quote(v)}`);
  return v;
};

/** Numbers JSON cannot hold, as the prelude marks them ({ $number: 'NaN' }), back to numbers (so a field's check names them). */
function unmark(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object' || depth > 8) return v;
  if (!Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $number?: unknown }).$number === 'string') return Number((v as { $number: string }).$number);
  if (Array.isArray(v)) return v.map((x) => unmark(x, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unmark(x, depth + 1)]));
}

/** The declarations, checked; each problem names its field. */
export function readSpec(described: Described): TaskSpec {
  const d = unmark(described) as Described;
  if (d.missing) throw new InputError(`the module's default export is ${d.type}: it must be an object declaring the task (docs/your-task.md)`);
  const f = d.fields;
  for (const [k, t] of Object.entries(f)) {
    if (!hasKey(TASK_FIELDS, k)) throw new InputError(`unknown field ${quote(k)} in the task (known: ${Object.keys(TASK_FIELDS).join(', ')})`);
    if (TASK_FIELDS[k] === 'function' && t !== 'function') throw new InputError(`${k} must be a function; it is ${t}`);
  }
  for (const k of ['sample', 'solver', 'score']) if (f[k] !== 'function') throw new InputError(`the task has no ${k}(...) function: every task needs sample, solver and score`);
  const v = d.vocab;
  let words: string[], chars: boolean;
  if (typeof v === 'string') {
    words = [...v]; chars = true;
    if (words.length === 0) throw new InputError('vocab is an empty string: it needs at least one character');
  } else if (Array.isArray(v)) {
    words = v as string[]; chars = false;
    v.forEach((w, i) => {
      if (typeof w !== 'string' || w.length === 0 || w.length > LIMITS.tokenChars || /\s/.test(w)) throw new InputError(`vocab[${i}] must be a word of 1..${LIMITS.tokenChars} characters without spaces; got ${quote(w)}`);
      if ((RESERVED as readonly string[]).includes(w)) throw new InputError(`vocab[${i}] is ${quote(w)}, a name the format reserves (${RESERVED.join(', ')})`);
    });
    if (words.length === 0) throw new InputError('vocab is an empty array: it needs at least one word');
  } else throw new InputError(`vocab must be a string (one token per character) or an array of words; got ${quote(v)}`);
  // eslint-disable-next-line no-control-regex
  const control = words.find((w) => /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(w));
  if (control !== undefined) throw new InputError(`vocab has the control character ${escapeControls(control)}: tokens are printable (they are shown in transcripts)`);
  const dup = words.find((w, i) => words.indexOf(w) !== i);
  if (dup !== undefined) throw new InputError(`vocab has ${quote(dup)} twice`);
  if (words.length > LIMITS.vocab) throw new InputError(`vocab has ${words.length} tokens; at most ${LIMITS.vocab}`);
  const twoRoles = f.messenger === 'function';
  const maxAnswer = intIn('maxAnswer', d.maxAnswer ?? 1, 1, LIMITS.maxAnswer);
  const maxMessage = twoRoles ? intIn('maxMessage', d.maxMessage, 1, LIMITS.maxMessage) : 0;
  if (!twoRoles && d.maxMessage !== undefined) throw new InputError('maxMessage is set but the task has no messenger(task) function: one role answers alone');
  const maxPrompt = d.maxPrompt === undefined ? null : intIn('maxPrompt', d.maxPrompt, 1, LIMITS.maxPrompt);
  let settings: Partial<RunConfig> = {};
  if (d.settings !== undefined) {
    if (typeof d.settings !== 'object' || d.settings === null || Array.isArray(d.settings)) throw new InputError(`settings must be an object of run settings (config fields); got ${quote(d.settings)}`);
    const s = d.settings as Record<string, unknown>;
    for (const k of ['env', 'taskCode']) if (hasKey(s, k)) throw new InputError(`settings may not set ${k}: the task is the environment`);
    try { validateConfig(s); } catch (e) { throw new InputError(`settings: ${(e as Error).message}`); }
    settings = s as Partial<RunConfig>;
  }
  let pretrain = DEFAULT_PRETRAIN;
  if (d.pretrain !== undefined) {
    const p = d.pretrain as Record<string, unknown>;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new InputError(`pretrain must be { steps, target }; got ${quote(d.pretrain)}`);
    for (const k of Object.keys(p)) if (k !== 'steps' && k !== 'target') throw new InputError(`pretrain: unknown field ${quote(k)} (known: steps, target)`);
    pretrain = { steps: intIn('pretrain.steps', p.steps ?? DEFAULT_PRETRAIN.steps, 1, 20000) };
    if (p.target !== undefined) {
      if (typeof p.target !== 'number' || !(p.target >= 0 && p.target <= 1)) throw new InputError(`pretrain.target must be an accuracy in [0, 1]; got ${quote(p.target)}`);
      pretrain.target = p.target;
    }
  }
  const text = (field: string, x: unknown, fallback: string, max = 2000) => {
    if (x === undefined) return fallback;
    if (typeof x !== 'string') throw new InputError(`${field} must be a string; got ${quote(x)}`);
    return escapeControls(clip(x, max)); // shown in terminals and on the page: no escapes, no forged lines
  };
  return {
    name: text('name', d.name, 'your task', 80), about: text('about', d.about, ''), words, chars,
    roles: twoRoles ? ['messenger', 'solver'] : ['solver'], maxAnswer, maxMessage, maxPrompt, settings, pretrain,
    hasDemo: f.demo === 'function', hasHeldOut: f.heldOut === 'function',
  };
}

/** The env's vocabulary: the reserved tokens the roles use, then the task's. */
export function vocabOf(spec: TaskSpec): string[] {
  const reserved = spec.roles.length === 2 ? [...RESERVED] : RESERVED.filter((r) => r !== 'MESSENGER');
  return [...reserved, ...spec.words];
}

/** Text to token ids and back, for one task's vocabulary. */
export class Tokens {
  readonly offset: number;
  private readonly ids = new Map<string, number>();

  constructor(readonly spec: TaskSpec) {
    this.offset = spec.roles.length === 2 ? RESERVED.length : RESERVED.length - 1;
    spec.words.forEach((w, i) => this.ids.set(w, this.offset + i));
  }

  /**
   * A view, message or answer as token ids: a string (characters, or words split at spaces) or an array
   * of tokens. Throws a plain Error naming the token that is not in the vocabulary (the caller adds who).
   */
  encode(x: unknown): number[] {
    let parts: unknown[];
    if (typeof x === 'string') parts = this.spec.chars ? [...x] : x.split(/\s+/).filter((w) => w.length > 0);
    else if (Array.isArray(x)) parts = x;
    else if (typeof x === 'number') parts = this.spec.chars ? [...String(x)] : [String(x)];
    else throw new Error(`it is ${quote(x)}, not a string or an array of tokens`);
    return parts.map((p, i) => {
      const id = typeof p === 'string' ? this.ids.get(p) : undefined;
      if (id === undefined) throw new Error(`${quote(typeof x === 'string' ? clip(x) : p)}: ${quote(p)} (token ${i}) is not in the vocabulary`);
      return id;
    });
  }

  /** Generated ids as the text a task function receives: reserved tokens appear as <NAME>. */
  decode(ids: readonly number[]): string {
    const parts = ids.map((t) => (t >= this.offset ? this.spec.words[t - this.offset] ?? `<${t}>` : `<${RESERVED[t] ?? t}>`));
    return parts.join(this.spec.chars ? '' : ' ');
  }
}
