// Batched multi-agent rollouts: turns run in lockstep across the batch; each
// turn is generated on the device (forward + sample, token after token) and
// read back once, all sequences together (docs/rl.md section 1).
import type { Backend, Tensor } from '../backend';
import type { GPT } from '../model/gpt';
import type { Environment, Score, Turn } from '../envs/types';

/**
 * How many generated tokens the per-op path records before it submits (the reads at the turn's end submit the rest):
 * each submission lets the GPU start while the host records the next token, and costs the host a submit.
 * A setting for measurement (scripts/gpuProfile.ts --submit-every).
 */
export const ROLLOUT_SUBMIT = { perOpTokens: 1 };

/** One generated turn of one episode: what the policy saw and what it sampled. */
export interface Sequence {
  episode: number;
  turn: number;
  role: string;
  slot: string; // the policy slot that generated it
  agent: number;
  context: number[];
  generated: number[]; // EOS included when it was generated
  logp: number[]; // log-prob of each generated token at sampling time (pi_old)
  /** The temperature `logp` (and `earlier`'s) were taken at: the sampler's, 1 when greedy. Absent: unknown (the loss recomputes pi_old). */
  logpTemperature?: number;
  message: boolean;
  messageFrom: number; // generated tokens before this index are an action, not message
  countsAsTurn: boolean;
  maxNew: number; // the turn's limit, EOS included: a message holds at most maxNew - 1 tokens
  /** This agent's earlier generated tokens inside `context` (a continued sequence), with their sampling log-probs. */
  earlier: { at: number; logp: number }[];
  /** A later turn of the same agent continues this one; that row carries these tokens into the loss. */
  superseded: boolean;
}

export interface Rollout<State = unknown> {
  states: State[];
  scores: Score[];
  sequences: Sequence[];
}

/**
 * A population's rollout (a GPT of K members): episode e belongs to member floor(e / episodesPerMember), and
 * each member samples with its own seed, its sequences numbered as in its lone run, so it draws what it would alone.
 */
export interface GeneratorPopulation { episodesPerMember: number; seeds: readonly number[] }

/** Each row's sampling stream (seed, index) and, in a population, its member. */
interface RowRng { rng: Int32Array; member: Int32Array }

/** A lone batch's rows as the sampler numbers them without a row table: (seed, row). */
function loneRows(seed: number, B: number): RowRng {
  const rng = new Int32Array(2 * B);
  for (let i = 0; i < B; i++) { rng[2 * i] = seed; rng[2 * i + 1] = i; }
  return { rng, member: new Int32Array(B) };
}

/** Whether two contexts hold the same tokens (the same array or equal by content). */
function same(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return false;
  return true;
}

/**
 * The rows' group size where contexts come in runs of equal ones (a group's G episodes of one prompt, in a row): the
 * first run's length G when B is a multiple of it and every row holds its run's first context; else 1.
 */
export function groupRun(contexts: readonly (readonly number[])[]): number {
  const B = contexts.length;
  let G = 1;
  while (G < B && same(contexts[G], contexts[0])) G++;
  if (G === 1 || B % G !== 0) return 1;
  for (let i = 0; i < B; i++) if (i % G !== 0 && !same(contexts[i], contexts[i - (i % G)])) return 1;
  return G;
}

/**
 * How many sequences of its turn and policy slot hold each sequence's context (what one prefill per distinct context
 * serves). Contexts are bucketed by a hash of (slot, turn, tokens) and compared token by token within a bucket: no
 * string is built per sequence (this runs every step over every sequence of every member).
 */
export function prefillShares(seqs: readonly { turn: number; slot: string; context: readonly number[] }[]): number[] {
  const slots = new Map<string, number>(), buckets = new Map<number, number[]>(), count = new Int32Array(seqs.length), first = new Int32Array(seqs.length);
  for (let i = 0; i < seqs.length; i++) {
    const q = seqs[i], c = q.context;
    let slot = slots.get(q.slot);
    if (slot === undefined) slots.set(q.slot, slot = slots.size);
    let h = Math.imul(0x811c9dc5 ^ slot, 0x01000193) ^ q.turn; // FNV-1a over the slot, the turn and the tokens
    for (let j = 0; j < c.length; j++) h = Math.imul(h ^ c[j], 0x01000193);
    const bucket = buckets.get(h);
    let f = -1;
    if (bucket) for (const k of bucket) if (seqs[k].turn === q.turn && seqs[k].slot === q.slot && same(seqs[k].context, c)) { f = k; break; }
    if (f < 0) { f = i; if (bucket) bucket.push(i); else buckets.set(h, [i]); }
    first[i] = f;
    count[f]++;
  }
  const out = new Array<number>(seqs.length);
  for (let i = 0; i < seqs.length; i++) out[i] = count[first[i]];
  return out;
}

/** Per-shape generation buffers, kept across steps. */
export class Generator {
  private buffers = new Map<string, Record<string, Tensor>>();
  /** Set by a population's trainer before each rollout (train and eval hold different episode counts). */
  population: GeneratorPopulation | null = null;

  /** kvCache false re-runs the whole prefix for every token (the path before the cache; kept for tests and comparisons). */
  constructor(private readonly backend: Backend, private readonly model: GPT, readonly kvCache = true) {}

  /** Whether a group's shared context is prefilled once (groupRun); false prefills every row (tests compare the two). */
  sharedPrefill = true;

  private get(B: number, T: number): Record<string, Tensor> {
    const key = `${B}x${T}`;
    let t = this.buffers.get(key);
    if (!t) {
      // tokens and pos share one buffer (views), so a turn reads back two buffers, not three
      const b = this.backend, at = Math.ceil((B * T) / b.viewAlign) * b.viewAlign, tokPos = b.alloc(at + B, 'i32');
      t = { tokPos, tokens: b.view(tokPos, 0, B * T), pos: b.view(tokPos, at, B), logp: b.alloc(B * T), done: b.alloc(B, 'i32'), limit: b.alloc(B, 'i32'),
        rowRng: b.alloc(2 * B, 'i32') };
      this.buffers.set(key, t);
    }
    return t;
  }

  /**
   * Rows generated at once (the memory budget's chunk, src/rl/memoryBudget.ts): a larger batch is generated in
   * chunks of this many rows, each row sampling with the (seed, row) it has in the whole batch, so the tokens are
   * those of one call over every row.
   */
  maxRows = Infinity;

  /**
   * Continues every context by at most maxNew[b] tokens (stopping at EOS). temperature 0 is greedy.
   * The first token comes from a prefill (a forward over the contexts' rows, which fills the KV cache), each later
   * one from a decode step over one row per sequence. One submission per generated token position, one readback at the end
   * (per chunk of maxRows rows); where the model's step is one fused op (GPT.fusedDecode, asked for the prefill and
   * for the decode steps apart: both on a CPU adapter, neither on a GPU today), one submission per 16 of those tokens.
   * `episodes`: each context's episode (a population's rows are found by it; see GeneratorPopulation).
   */
  async generate(contexts: number[][], maxNew: number[], temperature: number, eos: number, seed: number, counter: number,
    episodes?: readonly number[]): Promise<{ tokens: number[][]; logp: number[][] }> {
    const B = contexts.length;
    // each row's (seed, index): a population's by member; a chunked lone batch's by its row in the whole batch
    const rows = this.population ? this.memberRows(episodes, B) : B > this.maxRows ? loneRows(seed, B) : undefined;
    if (B <= this.maxRows) return this.generateRows(contexts, maxNew, temperature, eos, seed, counter, rows);
    const out: { tokens: number[][]; logp: number[][] } = { tokens: [], logp: [] };
    for (let lo = 0; lo < B; lo += this.maxRows) {
      const hi = Math.min(B, lo + this.maxRows);
      const part = { rng: rows!.rng.subarray(2 * lo, 2 * hi), member: rows!.member.subarray(lo, hi) };
      const got = await this.generateRows(contexts.slice(lo, hi), maxNew.slice(lo, hi), temperature, eos, seed, counter, part);
      out.tokens.push(...got.tokens);
      out.logp.push(...got.logp);
    }
    return out;
  }

  private async generateRows(contexts: number[][], maxNew: number[], temperature: number, eos: number, seed: number, counter: number,
    rows?: RowRng): Promise<{ tokens: number[][]; logp: number[][] }> {
    const b = this.backend, B = contexts.length, cfg = this.model.config;
    let longest = -Infinity, steps = -Infinity; // loops, not Math.max(...): B is every episode's rows
    for (let i = 0; i < B; i++) { longest = Math.max(longest, contexts[i].length + maxNew[i]); steps = Math.max(steps, maxNew[i]); }
    const T = Math.min(cfg.blockSize, longest);
    const t = this.get(B, T);
    if (rows) b.write(t.rowRng, rows.rng);
    // a population's model takes each member's row count (member-major rows; a chunk may hold none of some)
    let seqs: number[] | undefined;
    if (this.population) {
      seqs = new Array<number>(this.population.seeds.length).fill(0);
      for (const m of rows!.member) seqs[m]++; // one pass, not one per member
    }
    const tokens = new Int32Array(B * T), pos = new Int32Array(B), limit = new Int32Array(B);
    contexts.forEach((c, i) => {
      if (c.length < 1 || c.length >= T) throw new Error(`context of ${c.length} tokens does not fit block_size ${cfg.blockSize}`);
      for (let j = 0; j < c.length; j++) tokens[i * T + j] = c[j]; // a loop: set() from a JS array is slower for a few tokens
      pos[i] = c.length;
      limit[i] = Math.min(T, c.length + maxNew[i]);
    });
    b.write(t.tokens, tokens);
    b.write(t.pos, pos);
    b.write(t.limit, limit);
    b.zero(t.done);
    // small models on a CPU adapter: a GPT.decodeSample call is the model and the draw in one dispatch. The prefill
    // and the decode steps are asked apart (one cache serves both paths, so fused steps may follow a per-op prefill:
    // measured slower on a GPU, docs/speed.md); fused tokens are submitted every 16 (and by the reads at the end),
    // per-op ones every ROLLOUT_SUBMIT.perOpTokens
    const fusedAt = this.kvCache ? [this.model.fusedDecode(B, T, true), this.model.fusedDecode(B, T, false)] : [false, false];
    // the prefill covers the contexts' rows only: [B, Tp], Tp the longest context; a group's episodes share their
    // context, so the per-op prefill runs each group's once (GPT.prefill's repeat)
    const Tp = contexts.reduce((m, c) => Math.max(m, c.length), 0);
    const repeat = this.kvCache && !fusedAt[0] && !seqs && this.sharedPrefill ? groupRun(contexts) : 1;
    const prefix = new Int32Array((B / repeat) * Tp);
    for (let u = 0; u < B / repeat; u++) { const c = contexts[u * repeat]; for (let j = 0; j < c.length; j++) prefix[u * Tp + j] = c[j]; }
    for (let k = 0; k < steps; k++) {
      if (fusedAt[k === 0 ? 0 : 1]) {
        this.model.decodeSample({ tokens: t.tokens, logp: t.logp, pos: t.pos, done: t.done, limit: t.limit, rowRng: rows ? t.rowRng : undefined }, B, T, k === 0, temperature, eos, seed, counter + k, seqs);
        if ((k + 1) % 16 === 0) b.submit();
        continue;
      }
      let logits: Tensor, logitsT: number;
      if (!this.kvCache) [logits, logitsT] = [this.model.forward(t.tokens, B, T, undefined, seqs, false), T];
      else if (k === 0) [logits, logitsT] = [this.model.prefill(prefix, B, Tp, T, t.pos, seqs, repeat), 1];
      else [logits, logitsT] = [this.model.decode(t.tokens, t.pos, B, T, seqs), 1];
      b.sample(t.tokens, t.logp, t.pos, t.done, t.limit, logits, B, T, cfg.vocabSize, temperature, eos, seed, counter + k, logitsT,
        rows ? t.rowRng : undefined);
      if ((k + 1) % ROLLOUT_SUBMIT.perOpTokens === 0) b.submit();
    }
    const [outTokPos, outLogp] = await Promise.all([b.read(t.tokPos), b.read(t.logp)]);
    const outTok = outTokPos.subarray(0, B * T), outPos = outTokPos.subarray(outTokPos.length - B);
    const gen: number[][] = [], lp: number[][] = [];
    for (let i = 0; i < B; i++) {
      // copied into arrays of their length, without subarray views: this runs for every row of every turn
      const from = i * T + contexts[i].length, n = Math.max(0, i * T + outPos[i] - from);
      const g = new Array<number>(n), l = new Array<number>(n);
      for (let j = 0; j < n; j++) { g[j] = outTok[from + j]; l[j] = outLogp[from + j]; }
      gen.push(g);
      lp.push(l);
    }
    return { tokens: gen, logp: lp };
  }

  /** A population's rows: each row's member and its (seed, index in its member). */
  private memberRows(episodes: readonly number[] | undefined, B: number): RowRng {
    const pop = this.population!, K = pop.seeds.length;
    if (!episodes || episodes.length !== B) throw new Error('a population\'s generate needs each context\'s episode');
    const seqs = new Array<number>(K).fill(0), rng = new Int32Array(2 * B), member = new Int32Array(B);
    let last = 0;
    episodes.forEach((e, i) => {
      const k = Math.floor(e / pop.episodesPerMember);
      if (k < last || k >= K) throw new Error(`a population's rows must be member-major: episode ${e} (member ${k}) after member ${last}`);
      last = k;
      member[i] = k;
      rng[2 * i] = pop.seeds[k];
      rng[2 * i + 1] = seqs[k]++;
    });
    return { rng, member };
  }

  destroy(): void {
    for (const t of this.buffers.values()) for (const x of Object.values(t)) this.backend.free(x); // views are not freed on their own
    this.buffers.clear();
  }
}

/** Role -> slot of an environment ('policy' for every role when it declares none). */
export function slotOf(env: Environment<any, any>, role: string): string {
  return env.roleSlot?.[role] ?? 'policy';
}

/** Whether xs starts with a then b (a + b, not built). */
function startsWith(xs: number[], a: number[], b: number[]): boolean {
  if (a.length + b.length > xs.length) return false;
  for (let i = 0; i < a.length; i++) if (xs[i] !== a[i]) return false;
  for (let i = 0; i < b.length; i++) if (xs[a.length + i] !== b[i]) return false;
  return true;
}

/**
 * Runs `tasks` (each repeated `repeats` times, consecutively: a group) to the end.
 * Each step k, the turns of every active episode are generated in one batched call per slot.
 * counterBase separates the RNG streams of different calls.
 */
export async function rollout<Task, State>(env: Environment<Task, State>, gens: (slot: string) => Generator, tasks: Task[], repeats: number,
  temperature: number | ((slot: string) => number), seed: number, counterBase: number): Promise<Rollout<State>> {
  const tempOf = typeof temperature === 'number' ? () => temperature : temperature;
  const states: State[] = [];
  for (const task of tasks) for (let g = 0; g < repeats; g++) states.push(env.start(task, g));
  const sequences: Sequence[] = [];
  // (episode, agent) -> its latest sequence; a number key (no string built for every turn of every episode) for the
  // agent indices envs use, a string for anything else (numbers and strings never collide)
  const lastOf = new Map<number | string, Sequence>();
  const keyOf = (e: number, agent: number) => (Number.isInteger(agent) && agent >= 0 ? agent * states.length + e : `${e}:${agent}`);
  const slotIndex = new Map<string, number>();
  for (let k = 0; ; k++) {
    const pending: { e: number; i: number; turn: Turn; slot: string }[] = [];
    const perEpisode: number[][][] = []; // [episode] -> its turns' generated tokens (absent: no turn this step)
    for (let e = 0; e < states.length; e++) {
      const turns = env.turn(states[e], k);
      if (turns.length === 0) continue;
      perEpisode[e] = turns.map(() => []);
      turns.forEach((turn, i) => pending.push({ e, i, turn, slot: slotOf(env, turn.role) }));
    }
    if (pending.length === 0) break;
    const slots = [...new Set(pending.map((p) => p.slot))];
    for (const slot of slots) {
      if (!slotIndex.has(slot)) slotIndex.set(slot, slotIndex.size);
      const mine = slots.length === 1 ? pending : pending.filter((p) => p.slot === slot);
      const temp = tempOf(slot), logpTemperature = temp === 0 ? 1 : temp; // the sampler's log-probs are at 1 when greedy (backend.ts, sample)
      const out = await gens(slot).generate(mine.map((p) => p.turn.context), mine.map((p) => p.turn.maxNew), temp, env.eos, seed,
        counterBase + k * 64 + slotIndex.get(slot)! * 16, mine.map((p) => p.e));
      mine.forEach((p, j) => {
        perEpisode[p.e][p.i] = out.tokens[j];
        const agent = p.turn.agent ?? 0;
        const seq: Sequence = {
          episode: p.e, turn: k, role: p.turn.role, slot, agent, context: p.turn.context, generated: out.tokens[j], logp: out.logp[j],
          logpTemperature, message: p.turn.message, messageFrom: p.turn.messageFrom ?? 0, countsAsTurn: p.turn.countsAsTurn ?? false, maxNew: p.turn.maxNew,
          earlier: [], superseded: false,
        };
        if (p.turn.continues) {
          const prev = lastOf.get(keyOf(p.e, agent));
          if (!prev || !startsWith(seq.context, prev.context, prev.generated)) {
            throw new Error(`${env.id}: turn ${k} of agent ${agent} is marked continues but does not extend its previous turn`);
          }
          seq.earlier = [...prev.earlier, ...prev.generated.map((_, g) => ({ at: prev.context.length + g, logp: prev.logp[g] }))];
          prev.superseded = true;
        }
        lastOf.set(keyOf(p.e, agent), seq);
        sequences.push(seq);
      });
    }
    perEpisode.forEach((generated, e) => env.applyTurn(states[e], k, generated)); // ascending episodes, holes skipped
  }
  return { states, scores: states.map((s) => env.score(s)), sequences };
}

/** The sequences of each episode, indexed by episode. */
export function sequencesByEpisode(ro: Rollout): Sequence[][] {
  const out: Sequence[][] = ro.states.map(() => []);
  for (const s of ro.sequences) out[s.episode].push(s);
  return out;
}
