// Batched multi-agent rollouts: turns run in lockstep across the batch; each
// turn is generated on the device (forward + sample, token after token) and
// read back once, all sequences together (rl.md section 1).
import type { Backend, Tensor } from '../backend';
import type { GPT } from '../model/gpt';
import type { Environment, Score, Turn } from '../envs/types';

/** One generated turn of one episode: what the policy saw and what it sampled. */
export interface Sequence {
  episode: number;
  turn: number;
  role: string;
  context: number[];
  generated: number[]; // EOS included when it was generated
  logp: number[]; // log-prob of each generated token at sampling time (pi_old)
  message: boolean;
  maxNew: number; // the turn's limit, EOS included: a message holds at most maxNew - 1 tokens
}

export interface Rollout<State = unknown> {
  states: State[];
  scores: Score[];
  sequences: Sequence[];
}

/** Per-shape generation buffers, kept across steps. */
export class Generator {
  private buffers = new Map<string, Record<string, Tensor>>();

  constructor(private readonly backend: Backend, private readonly model: GPT) {}

  private get(B: number, T: number): Record<string, Tensor> {
    const key = `${B}x${T}`;
    let t = this.buffers.get(key);
    if (!t) {
      const b = this.backend;
      t = { tokens: b.alloc(B * T, 'i32'), logp: b.alloc(B * T), pos: b.alloc(B, 'i32'), done: b.alloc(B, 'i32'), limit: b.alloc(B, 'i32') };
      this.buffers.set(key, t);
    }
    return t;
  }

  /**
   * Continues every context by at most maxNew[b] tokens (stopping at EOS). temperature 0 is greedy.
   * One submission per generated token position, one readback at the end.
   */
  async generate(contexts: number[][], maxNew: number[], temperature: number, eos: number, seed: number, counter: number): Promise<{ tokens: number[][]; logp: number[][] }> {
    const b = this.backend, B = contexts.length, cfg = this.model.config;
    const T = Math.min(cfg.blockSize, Math.max(...contexts.map((c, i) => c.length + maxNew[i])));
    const t = this.get(B, T);
    const tokens = new Int32Array(B * T), pos = new Int32Array(B), limit = new Int32Array(B);
    contexts.forEach((c, i) => {
      if (c.length < 1 || c.length >= T) throw new Error(`context of ${c.length} tokens does not fit block_size ${cfg.blockSize}`);
      tokens.set(c, i * T);
      pos[i] = c.length;
      limit[i] = Math.min(T, c.length + maxNew[i]);
    });
    b.write(t.tokens, tokens);
    b.write(t.pos, pos);
    b.write(t.limit, limit);
    b.zero(t.done);
    const steps = Math.max(...maxNew);
    for (let k = 0; k < steps; k++) {
      const logits = this.model.forward(t.tokens, B, T);
      b.sample(t.tokens, t.logp, t.pos, t.done, t.limit, logits, B, T, cfg.vocabSize, temperature, eos, seed, counter + k);
      b.submit();
    }
    const [outTok, outLogp, outPos] = await Promise.all([b.read(t.tokens), b.read(t.logp), b.read(t.pos)]);
    const gen: number[][] = [], lp: number[][] = [];
    for (let i = 0; i < B; i++) {
      const from = contexts[i].length, to = outPos[i];
      gen.push(Array.from(outTok.subarray(i * T + from, i * T + to)));
      lp.push(Array.from(outLogp.subarray(i * T + from, i * T + to)));
    }
    return { tokens: gen, logp: lp };
  }

  destroy(): void {
    for (const t of this.buffers.values()) for (const x of Object.values(t)) this.backend.free(x);
    this.buffers.clear();
  }
}

/**
 * Runs `tasks` (each repeated `repeats` times, consecutively: a group) to the end.
 * counterBase separates the RNG streams of different calls.
 */
export async function rollout<Task, State>(env: Environment<Task, State>, gen: Generator, tasks: Task[], repeats: number,
  temperature: number, seed: number, counterBase: number): Promise<Rollout<State>> {
  const states: State[] = [];
  for (const task of tasks) for (let g = 0; g < repeats; g++) states.push(env.start(task));
  const sequences: Sequence[] = [];
  for (let k = 0; ; k++) {
    const active: number[] = [], turns: Turn[] = [];
    for (let e = 0; e < states.length; e++) {
      const turn = env.turn(states[e], k);
      if (turn) { active.push(e); turns.push(turn); }
    }
    if (active.length === 0) break;
    const out = await gen.generate(turns.map((t) => t.context), turns.map((t) => t.maxNew), temperature, env.eos, seed, counterBase + k * 64);
    active.forEach((e, i) => {
      env.applyTurn(states[e], k, out.tokens[i]);
      sequences.push({ episode: e, turn: k, role: turns[i].role, context: turns[i].context, generated: out.tokens[i], logp: out.logp[i], message: turns[i].message, maxNew: turns[i].maxNew });
    });
  }
  return { states, scores: states.map((s) => env.score(s)), sequences };
}

/** The sequences of each episode, indexed by episode. */
export function sequencesByEpisode(ro: Rollout): Sequence[][] {
  const out: Sequence[][] = ro.states.map(() => []);
  for (const s of ro.sequences) out[s.episode].push(s);
  return out;
}
