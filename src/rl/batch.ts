// The `grad` batch file (docs/cli.md) -> a PolicyBatch in prediction space, validated.
import type { AdvantageMode, Algorithm } from '../backend';
import { DEFAULTS, parseField } from '../config';
import { LOSS_IDS, LOSSES } from '../contract/losses';
import { InputError, quote } from '../contract/errors';
import { bounded, MAX_LOGPROB, MAX_REWARD } from '../model/magnitude';
import type { ObjectiveConfig, PolicyBatch } from './objective';

export interface SequenceIn {
  tokens: number[];
  mask: number[];
  oldLogprobs: number[];
  refLogprobs?: number[];
  episode: number;
  group: number;
  reward: number;
}

const fail = (msg: string): never => { throw new InputError(msg); };

function num(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${where} must be a finite number, got ${quote(v)}`);
  return v as number;
}
function numArray(v: unknown, where: string, len?: number): number[] {
  if (!Array.isArray(v)) fail(`${where} must be an array of numbers`);
  const a = v as unknown[];
  if (len !== undefined && a.length !== len) fail(`${where} has ${a.length} entries, expected ${len} (one per token)`);
  return a.map((x, i) => num(x, `${where}[${i}]`));
}

/** Log-probs within +-MAX_LOGPROB: exp(new - old) of a larger gap overflows float32 (src/model/magnitude.ts). */
function logprobs(v: unknown, where: string, len: number): number[] {
  return numArray(v, where, len).map((x, i) => bounded(x, MAX_LOGPROB, `${where}[${i}]`));
}

/** The per-position arrays of a PolicyBatch, rows of T positions. */
export type PredictionRows = Pick<PolicyBatch, 'T' | 'tokens' | 'targets' | 'mask' | 'oldLogp' | 'refLogp'>;

/**
 * The one shift into prediction space (objective.ts): row `row`, position t holds token t as
 * context and predicts token t+1, so the mask and log-probs of token t+1 go to position t.
 * `mask`, `logp` and `refLogp` are indexed like `seq` (entry 0, the first token, is never trained).
 */
export function shiftIntoRow(b: PredictionRows, row: number, seq: ArrayLike<number>, mask: ArrayLike<number>, logp: ArrayLike<number>, refLogp?: ArrayLike<number>): void {
  const n = seq.length, o = row * b.T;
  for (let t = 0; t < n - 1; t++) {
    b.tokens[o + t] = seq[t];
    b.targets[o + t] = seq[t + 1];
    b.mask[o + t] = mask[t + 1];
    b.oldLogp[o + t] = logp[t + 1];
    if (b.refLogp && refLogp) b.refLogp[o + t] = refLogp[t + 1];
  }
  if (n - 1 < b.T) b.tokens[o + n - 1] = seq[n - 1]; // the last token is context for nothing, kept for completeness
}

/**
 * Builds the batch of sequences. Episodes are grouped by `group`; group statistics are
 * over episodes (an episode counts once however many sequences it has).
 */
export function buildPolicyBatch(seqs: SequenceIn[], vocabSize: number, blockSize: number): PolicyBatch {
  if (seqs.length === 0) fail('the batch has no sequences');
  // every sequence, not only the longest: a shorter one would write into the previous row
  let longest = 0; // a loop, not Math.max(...): a spread over 100k+ sequences throws RangeError
  seqs.forEach((s, i) => {
    if (s.tokens.length < 2) fail(`sequences[${i}].tokens has ${s.tokens.length} tokens; every sequence needs at least 2 (a context token and a generated one)`);
    if (s.tokens.length > longest) longest = s.tokens.length;
  });
  const T = longest - 1; // predictions per row
  const episodes = new Map<number, { group: number; reward: number }>();
  seqs.forEach((s, i) => {
    const w = `sequences[${i}]`;
    if (s.tokens.length > blockSize) fail(`${w}.tokens has ${s.tokens.length} tokens, more than block_size ${blockSize}`);
    s.tokens.forEach((t, j) => { if (!Number.isInteger(t) || t < 0 || t >= vocabSize) fail(`${w}.tokens[${j}] = ${t} is not a token id in [0, ${vocabSize})`); });
    s.mask.forEach((m, j) => { if (m !== 0 && m !== 1) fail(`${w}.mask[${j}] must be 0 or 1, got ${m}`); });
    if (s.mask[0] === 1) fail(`${w}.mask[0] must be 0: the first token has no log-prob`);
    const e = episodes.get(s.episode);
    if (e && (e.group !== s.group || e.reward !== s.reward)) fail(`${w}: episode ${s.episode} appears with different group or reward`);
    episodes.set(s.episode, { group: s.group, reward: s.reward });
  });
  // episodes ordered by group -> CSR offsets
  const epIds = [...episodes.keys()].sort((a, b) => episodes.get(a)!.group - episodes.get(b)!.group || a - b);
  const epIndex = new Map(epIds.map((id, i) => [id, i]));
  const rewards = Float32Array.from(epIds.map((id) => episodes.get(id)!.reward));
  const groupStart: number[] = [];
  epIds.forEach((id, i) => { if (i === 0 || episodes.get(id)!.group !== episodes.get(epIds[i - 1])!.group) groupStart.push(i); });
  groupStart.push(epIds.length);

  const S = seqs.length, ST = S * T;
  const tokens = new Int32Array(ST), targets = new Int32Array(ST).fill(-1), mask = new Float32Array(ST), oldLogp = new Float32Array(ST);
  const hasRef = seqs.some((s) => s.refLogprobs);
  const refLogp = hasRef ? new Float32Array(ST) : null;
  const rows = { T, tokens, targets, mask, oldLogp, refLogp };
  seqs.forEach((s, i) => shiftIntoRow(rows, i, s.tokens, s.mask, s.oldLogprobs, s.refLogprobs));
  return { S, T, tokens, targets, mask, oldLogp, refLogp, seqEpisode: Int32Array.from(seqs.map((s) => epIndex.get(s.episode)!)), rewards, groupStart: Int32Array.from(groupStart) };
}

/** A number checked against the config field's range (src/config.ts), the message naming the batch file's key. */
function inRange(field: 'epsLow' | 'epsHigh' | 'beta', key: string, v: number): void {
  try { parseField(field, v); } catch (e) { fail(`${key}${(e as Error).message.slice(field.length)}`); }
}

const SEQUENCE_KEYS = new Set(['tokens', 'mask', 'old_logprobs', 'ref_logprobs', 'episode', 'group', 'reward']);

/** Parses the JSON of a batch file; every problem is an InputError naming the field. */
export function parseBatchFile(json: unknown, vocabSize: number, blockSize: number): { batch: PolicyBatch; cfg: ObjectiveConfig } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('the batch file must be a JSON object');
  const o = json as Record<string, unknown>;
  const known = new Set(['algorithm', 'eps_low', 'eps_high', 'beta', 'advantage', 'temperature', 'delta', 't_max', 'sequences']);
  for (const k of Object.keys(o)) if (!known.has(k)) fail(`unknown key ${quote(k)} in the batch file (known: ${[...known].join(', ')})`);
  const algorithm = (o.algorithm ?? 'gspo') as Algorithm;
  if (typeof algorithm !== 'string' || !(LOSS_IDS as string[]).includes(algorithm)) fail(`algorithm must be one of ${LOSS_IDS.join(', ')}; got ${quote(o.algorithm)}`);
  const delta = num(o.delta ?? DEFAULTS.delta, 'delta');
  parseField('delta', delta);
  const advantage = (o.advantage ?? 'group') as AdvantageMode;
  if (!['group', 'none', 'batch'].includes(advantage)) fail(`advantage must be "group", "none" or "batch", got ${quote(o.advantage)}`);
  const seqLevel = LOSSES[algorithm].level !== 'token';
  const epsLow = num(o.eps_low ?? (seqLevel ? 3e-4 : 0.2), 'eps_low');
  const epsHigh = num(o.eps_high ?? (seqLevel ? 4e-4 : 0.2), 'eps_high');
  // the ranges are the config table's (one place), named by the file's keys
  inRange('epsLow', 'eps_low', epsLow);
  inRange('epsHigh', 'eps_high', epsHigh);
  const beta = num(o.beta ?? 0, 'beta');
  inRange('beta', 'beta', beta);
  const temperature = num(o.temperature ?? 1, 'temperature');
  // the config's range: far below it logits / T overflow float32 and the log-probs are not finite
  parseField('temperature', temperature); // throws "temperature must be in [min, max]; got ..."

  if (!Array.isArray(o.sequences)) fail('sequences must be an array');
  const seqs = (o.sequences as unknown[]).map((raw, i): SequenceIn => {
    const w = `sequences[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(`${w} must be an object`);
    const s = raw as Record<string, unknown>;
    for (const k of Object.keys(s)) if (!SEQUENCE_KEYS.has(k)) fail(`${w}: unknown key ${quote(k)} (known: ${[...SEQUENCE_KEYS].join(', ')})`);
    const tokens = numArray(s.tokens, `${w}.tokens`);
    const n = tokens.length;
    const ref = s.ref_logprobs === undefined ? undefined : logprobs(s.ref_logprobs, `${w}.ref_logprobs`, n);
    if (beta > 0 && !ref) fail(`${w}.ref_logprobs is required when beta > 0`);
    const episode = num(s.episode, `${w}.episode`), group = num(s.group, `${w}.group`);
    if (!Number.isInteger(episode) || !Number.isInteger(group)) fail(`${w}: episode and group must be integers`);
    return { tokens, mask: numArray(s.mask, `${w}.mask`, n), oldLogprobs: logprobs(s.old_logprobs, `${w}.old_logprobs`, n), refLogprobs: ref, episode, group, reward: bounded(num(s.reward, `${w}.reward`), MAX_REWARD, `${w}.reward`) };
  });
  // Dr. GRPO's L_max: the turns' token limit when the file gives it, else the block size
  const tMax = o.t_max === undefined ? undefined : num(o.t_max, 't_max');
  if (tMax !== undefined && !(Number.isInteger(tMax) && tMax >= 1 && tMax <= blockSize)) fail(`t_max must be an integer in [1, ${blockSize}], got ${tMax}`);
  const batch = buildPolicyBatch(seqs, vocabSize, blockSize);
  if (tMax !== undefined) batch.tMax = tMax;
  return { batch, cfg: { algorithm, epsLow, epsHigh, beta, advantage, temperature, delta } };
}
