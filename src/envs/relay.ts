// relay: communication efficiency and strategic silence (docs/envs.md section 1).
//
// Two roles share one episode: the Scout sees a k-digit secret, a query
// position j and whether the Solver already knows the secret; it writes a
// message of at most M tokens ending in EOS (EOS first = silence). The Solver
// sees the query, the secret or k MASKs, and the message; it answers one digit
// and EOS. r_task = 1 when the answer is s_j.
//
// Layouts (ids in RELAY_VOCAB):
//   scout context   BOS SCOUT s_1..s_k Q j (KNOWN|UNKNOWN) SEP          k+6 tokens, then <= M+1 generated
//   solver context  BOS SOLVER Q j (s_1..s_k | MASK x k) SEP <msg> ANS  k+6+|msg| tokens, then 2 generated
// so the longest sequence is k+M+8 tokens; blockSize rounds it up to 8. With
// N Scouts the Solver reads SEP m_1 SEP m_2 ... SEP m_N: k+N(M+1)+7 tokens.
//
// Train / eval split: a task's (secret, j) is hashed and about 20% of pairs
// are eval-only; each stream samples by rejection. For k = 1 there are only 10
// pairs, and holding two of them out would hold out whole digits (the model
// would never see them in training), so for k = 1 the flag joins the key: the
// eval-only (secret, known) pairs are digits {2, 7} when UNKNOWN and {4, 9}
// when KNOWN. Every digit then appears in training with one of the flags.
//
// Noisy channel (channelNoise = eps): each message token is erased with
// probability eps before the Solver reads it (it reads MASK, shown as '?');
// erased tokens still count as sent. Erasures hash (task.noiseKey, replica,
// scout, position), so they are reproducible, independent across the G
// episodes of a group, and the eval set's stream is fixed.
//
// Scouts (scouts = N, 1..k): Scout i holds a contiguous part of the secret
// (it sees MASK elsewhere) and all N write at once; the Solver reads their
// messages in order, separated by SEP. Only the holder of s_j needs to speak.
// N = 1 is exactly the two-role relay above.
//
// Demonstrations follow docs/envs.md section 1: mostly the verbose protocol
// (SECRET s_1..s_k REPEAT s_1..s_k, 2k+2 tokens, truncated to M; NOTE instead
// of SECRET when the Solver knows and flagAwareDemos), a minority of shorter
// formats, and a demoSilence fraction of silent messages drawn independently
// of the flag. With several Scouts every Scout draws the short formats at the
// same rate (the holder's about s_j, the others' about a digit of their own part):
// like silence, the demos do not say who should speak or how briefly.
//
// The noisy channel's demos (demoCopies > 0) send s_j in copies. With demoLengths
// 'verbose' most send demoCopies copies; with 'every', when the Solver does not know,
// every count 1..demoCopies is equally likely (the token penalty can only compare lengths that a
// group samples), and when it knows, the clean relay's verbose message and its short
// formats: a message with no copies to count, so what RL learns about the number of
// copies does not shorten it before silence is found (docs/recipe.md, "The length half").

import { mulberry32 } from '../model/random';
import { hashInts } from './hash';
import type { Demonstration, Environment, RepertoireRate, Score, TranscriptLine, Turn } from './types';
import { digitId, RELAY_DEFAULTS, RELAY_EOS, RELAY_ID, RELAY_VOCAB, type RelayParams, type RelayState, type RelayTask } from './relayVocab';
import {
  copyMessage, greedyVerboseMessage, holderOf, isEvalTask, messageOf, ownShortMessage, partMessage, reveals, scoutContext,
  shortMessage, SHORT_FORMATS, solverContext, throughChannel, tokenText, truncate, withTargets, type DemoMessage,
} from './relayMessages';

export * from './relayVocab';
export { erased, greedyVerboseMessage, holderOf, isEvalTask, scoutContext, solverContext, throughChannel, tokenText } from './relayMessages';

/** Share of verbose messages among non-silent Scout demonstrations; the rest are short formats. */
const DEMO_VERBOSE_SHARE = 0.8;

// ---------------------------------------------------------------- params

function resolveParams(params: Partial<RelayParams>): Required<RelayParams> {
  for (const key of Object.keys(params)) {
    if (!(key in RELAY_DEFAULTS)) throw new Error(`relay: unknown parameter '${key}'`);
  }
  const p: Required<RelayParams> = { ...RELAY_DEFAULTS };
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) (p as Record<string, unknown>)[key] = value;
  }
  const intIn = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new Error(`relay: ${name} must be an integer in ${lo}..${hi}, got ${v}`);
  };
  const rate = (name: string, v: number) => {
    if (!(v >= 0 && v <= 1)) throw new Error(`relay: ${name} must be in [0, 1], got ${v}`);
  };
  intIn('maxMessage', p.maxMessage, 1, 12);
  rate('pKnown', p.pKnown);
  rate('pKnownTrain', p.pKnownTrain);
  rate('demoSilence', p.demoSilence);
  intIn('digits', p.digits, 1, 6);
  intIn('scouts', p.scouts, 1, 6);
  if (p.scouts > p.digits) throw new Error(`relay: scouts (${p.scouts}) must be at most digits (${p.digits}): each Scout holds a part of the secret`);
  if (!(p.channelNoise >= 0 && p.channelNoise <= 0.9)) throw new Error(`relay: channelNoise must be in [0, 0.9], got ${p.channelNoise}`);
  intIn('demoCopies', p.demoCopies, 0, 12);
  if (p.demoLengths !== 'verbose' && p.demoLengths !== 'every') throw new Error(`relay: demoLengths must be 'verbose' or 'every', got ${JSON.stringify(p.demoLengths)}`);
  if (p.demoNoise !== null && !(Array.isArray(p.demoNoise) && p.demoNoise.length === 2 && p.demoNoise[0] >= 0 && p.demoNoise[0] <= p.demoNoise[1] && p.demoNoise[1] <= 0.9)) {
    throw new Error(`relay: demoNoise must be [lo, hi] with 0 <= lo <= hi <= 0.9, got ${JSON.stringify(p.demoNoise)}`);
  }
  return p;
}

/** Longest sequence any turn needs (the Solver's: k+N(M+1)+7), rounded up to a multiple of 8. */
export function relayBlockSize(digits: number, maxMessage: number, scouts = 1): number {
  const scout = digits + 6 + maxMessage + 1;
  const solver = digits + 6 + scouts * maxMessage + (scouts - 1) + 2;
  return Math.ceil(Math.max(scout, solver) / 8) * 8;
}

// ---------------------------------------------------------------- environment

export function createRelay(params: Partial<RelayParams> = {}): Environment<RelayTask, RelayState> {
  const p = resolveParams(params);
  const k = p.digits;
  const M = p.maxMessage;
  const N = p.scouts;
  const eps = p.channelNoise;
  const holder = (task: RelayTask) => holderOf(task.j - 1, k, N);

  /** Task `index` of a stream: its own RNG, so a task depends only on (split, seed, index). */
  function sampleTask(split: 'train' | 'eval', seed: number, index: number): RelayTask {
    const rand = mulberry32(hashInts(seed, split === 'eval' ? 0xe7a1 : 0x7a1, index));
    const known = rand() < (split === 'eval' ? p.pKnown : p.pKnownTrain);
    for (let tries = 0; tries < 10_000; tries++) {
      const secret = Array.from({ length: k }, () => Math.floor(rand() * 10));
      const j = 1 + Math.floor(rand() * k);
      const task: RelayTask = { secret, j, known, noiseKey: hashInts(seed, split === 'eval' ? 0x0e5e : 0x05e, index) };
      if (isEvalTask(task) === (split === 'eval')) return task;
    }
    throw new Error(`relay: no ${split} task found by rejection (k=${k})`);
  }

  /** Scout `scout`'s verbose demo message: the copy protocol, the whole secret (N = 1) or its part. */
  function verboseMessage(task: RelayTask, scout: number): DemoMessage {
    // 'every': a known task's verbose message is the clean relay's (no copies to count)
    if (p.demoCopies > 0 && !(p.demoLengths === 'every' && task.known)) return copyMessage(task, p.demoCopies, p.flagAwareDemos);
    if (N === 1) return { tokens: greedyVerboseMessage(task, M, p.flagAwareDemos), answerAt: task.j };
    return partMessage(task, scout, N, p.flagAwareDemos);
  }

  /** One demo episode's Scout message for Scout `scout` (N = 1 and no copy protocol: exactly the original demo mix). */
  function demoMessage(task: RelayTask, scout: number, rand: () => number): DemoMessage {
    if (rand() < p.demoSilence) return { tokens: [], answerAt: -1 };
    // 'every', unknown task: every count 1..demoCopies equally often (known tasks take the mix below)
    if (p.demoCopies > 0 && p.demoLengths === 'every' && !task.known) return copyMessage(task, 1 + Math.floor(rand() * Math.min(p.demoCopies, M)), false);
    if (p.demoCopies > 0) {
      if (rand() < DEMO_VERBOSE_SHARE) return verboseMessage(task, scout);
      const which = Math.floor(rand() * 5); // 1-4 copies, or POS j DIGIT s_j
      return which < 4 ? copyMessage(task, which + 1, false) : shortMessage(task, 0);
    }
    if (N === 1) {
      if (rand() < DEMO_VERBOSE_SHARE) return verboseMessage(task, scout);
      return shortMessage(task, Math.floor(rand() * SHORT_FORMATS));
    }
    // Several Scouts: every Scout draws a short format at the same rate, whether or not it holds s_j
    // (as demoSilence ignores the flag): which Scout should speak, and how briefly, is RL's to find.
    // Short formats only for the holder put the choice behind a comparison of the Scout's part with
    // j, which a cross-entropy fit did not learn: its holder sampled short 0.04 where the demos held
    // 0.13-0.15 (about 0.15 / N: the formats' share over all Scouts), so RL could not find it.
    if (rand() < DEMO_VERBOSE_SHARE) return verboseMessage(task, scout);
    const which = Math.floor(rand() * 3);
    if (scout === holder(task)) return shortMessage(task, which); // the holder's short formats name only s_j
    return ownShortMessage(task, scout, N, which, rand); // the others': one digit of their own part
  }

  /**
   * The holder's silence on known tasks and its short messages (fewer tokens than its verbose
   * demo message for the task as sent, at most M) among those it sends: in `messages` (one per task, [] = silent),
   * and in demo messages drawn for the same tasks from their own stream.
   */
  function repertoireOf(tasks: RelayTask[], messages: number[][]): RepertoireRate[] {
    const rand = mulberry32(hashInts(0x4e9e, tasks.length));
    // as sent: at most M tokens (a part message longer than M, N < k, is cut like every message)
    const demos = tasks.map((t) => truncate(demoMessage(t, holder(t), rand).tokens, M));
    const verboseLength = (t: RelayTask) => truncate(verboseMessage(t, holder(t)).tokens, M).length;
    const rates = (msgs: number[][]) => {
      const known = tasks.map((_, i) => i).filter((i) => tasks[i].known);
      const spoke = msgs.map((_, i) => i).filter((i) => msgs[i].length > 0);
      const share = (idx: number[], hit: (i: number) => boolean) => (idx.length === 0 ? 0 : idx.filter(hit).length / idx.length);
      return {
        silenceKnown: share(known, (i) => msgs[i].length === 0),
        short: share(spoke, (i) => msgs[i].length < verboseLength(tasks[i])),
      };
    };
    const sampled = rates(messages), demo = rates(demos);
    return [
      { key: 'silenceKnown', label: 'silence on known tasks', sampled: sampled.silenceKnown, demos: demo.silenceKnown },
      { key: 'short', label: 'short formats among messages sent', sampled: sampled.short, demos: demo.short },
    ];
  }

  const env: Environment<RelayTask, RelayState> = {
    id: 'relay',
    vocab: RELAY_VOCAB,
    eos: RELAY_EOS,
    blockSize: relayBlockSize(k, M, N),

    sampleTasks(split, count, seed, index) {
      return Array.from({ length: count }, (_, i) => sampleTask(split, seed, index + i));
    },

    start(task, replica = 0) {
      return { task, replica, scoutGenerated: null, messages: null, received: null, answer: null };
    },

    turn(state, t): Turn[] {
      if (t === 0) {
        const turns: Turn[] = []; // a loop, not Array.from({ length }): every episode of every step asks
        for (let i = 0; i < N; i++) turns.push({ role: 'scout', agent: i, context: scoutContext(state.task, i, N), maxNew: M + 1, message: true });
        return turns;
      }
      if (t === 1) {
        if (state.received === null) throw new Error('relay: turn 1 before the Scout turn was applied');
        return [{ role: 'solver', agent: N, context: solverContext(state.task, state.received), maxNew: 2, message: false }];
      }
      return [];
    },

    applyTurn(state, t, generated) {
      if (t === 0) {
        if (generated.length !== N) throw new Error(`relay: turn 0 expects ${N} Scout messages, got ${generated.length}`);
        state.scoutGenerated = generated.map((g) => g.slice());
        state.messages = generated.map((g) => messageOf(g, M));
        state.received = state.messages.map((m, i) => throughChannel(m, state.task, state.replica, i, eps));
      } else if (t === 1) {
        state.answer = generated[0].slice();
      } else {
        throw new Error(`relay: no turn ${t}`);
      }
    },

    score(state): Score {
      const { task } = state;
      const right = state.answer !== null && state.answer[0] === digitId(task.secret[task.j - 1]);
      const silentOf = (i: number) => (state.scoutGenerated !== null && state.scoutGenerated[i][0] === RELAY_EOS ? 1 : 0);
      const extras: Record<string, number> = {
        known: task.known ? 1 : 0,
        silent: silentOf(holder(task)),
        messageTokens: state.messages?.reduce((a, m) => a + m.length, 0) ?? 0,
      };
      if (N > 1) {
        const others = Array.from({ length: N }, (_, i) => i).filter((i) => i !== holder(task));
        extras.othersSilent = others.reduce((a, i) => a + silentOf(i), 0) / others.length;
      }
      if (eps > 0) extras.erasedTokens = state.received?.reduce((a, m) => a + m.filter((x) => x === RELAY_ID.MASK).length, 0) ?? 0;
      return { rTask: right ? 1 : 0, extras };
    },

    evalExtras(scores) {
      const meanOf = (xs: Score[], key: string) => (xs.length === 0 ? 0 : xs.reduce((a, s) => a + (s.extras[key] ?? 0), 0) / xs.length);
      const out: Record<string, number> = {
        silenceKnown: meanOf(scores.filter((s) => s.extras.known === 1), 'silent'),
        silenceUnknown: meanOf(scores.filter((s) => s.extras.known === 0), 'silent'),
      };
      if (N > 1) out.silenceOthers = meanOf(scores, 'othersSilent');
      // on a noisy channel: the copies a Scout sends when the Solver does not know (the trade-off's unit)
      if (eps > 0) out.tokensUnknown = meanOf(scores.filter((s) => s.extras.known === 0), 'messageTokens');
      return out;
    },

    repertoire(states) {
      const done = states.filter((st) => st.messages !== null);
      return repertoireOf(done.map((st) => st.task), done.map((st) => st.messages![holder(st.task)]));
    },

    demonstrations(count, seed) {
      // Episodes on training tasks; each gives a demo per Scout and, when the Solver
      // can answer (what it receives still reveals s_j, or it knows), a Solver demo.
      const rand = mulberry32(hashInts(seed, 0xde70));
      const demos: Demonstration[] = [];
      for (let episode = 0; demos.length < count; episode++) {
        const task = sampleTask('train', seed, episode);
        const msgs = Array.from({ length: N }, (_, i) => demoMessage(task, i, rand));
        const tokens = msgs.map((m) => truncate(m.tokens, M));
        // a range of channels: this episode's eps (drawn only then, so fixed-eps demos stay as they were)
        const e = p.demoNoise ? p.demoNoise[0] + rand() * (p.demoNoise[1] - p.demoNoise[0]) : eps;
        // the channel in demos draws from the demo stream (only when noisy, so clean demos stay as they were)
        const received = tokens.map((m) => (e > 0 ? m.map((x) => (rand() < e ? RELAY_ID.MASK : x)) : m));
        const h = holder(task);
        for (let i = 0; i < N && demos.length < count; i++) demos.push(withTargets(scoutContext(task, i, N), [...tokens[i], RELAY_EOS]));
        if (demos.length < count && (reveals(msgs[h], tokens[h], received[h]) || task.known)) {
          demos.push(withTargets(solverContext(task, received), [digitId(task.secret[task.j - 1]), RELAY_EOS]));
        }
      }
      return demos;
    },

    render(state): TranscriptLine[] {
      const { task } = state;
      const lines: TranscriptLine[] = [];
      const sj = task.secret[task.j - 1];
      const says = (m: number[]) => (m.length === 0 ? '(silent)' : tokenText(m));
      for (let i = 0; i < N; i++) {
        const ctx = scoutContext(task, i, N);
        const seen = N === 1 ? task.secret.join(' ') : ctx.slice(2, 2 + k).map((x) => (x === RELAY_ID.MASK ? '·' : RELAY_VOCAB[x])).join(' ');
        lines.push({
          role: 'scout',
          text: `${N === 1 ? 'Scout' : `Scout ${i + 1}`} sees ${seen}, asked position ${task.j}, Solver knows: ${task.known ? 'yes' : 'no'}`,
          generated: false,
          tokens: ctx,
        });
        if (state.scoutGenerated === null || state.messages === null) continue;
        lines.push({ role: 'scout', text: says(state.messages[i]), generated: true, tokens: state.scoutGenerated[i].slice() });
      }
      if (state.received === null) return lines;
      const view = task.known ? task.secret.join(' ') : task.secret.map(() => '?').join(' ');
      const heard = state.received.map((m) => (m.length === 0 ? '(silent)' : m.map((x) => (x === RELAY_ID.MASK ? '?' : RELAY_VOCAB[x])).join(' '))).join(' | ');
      lines.push({
        role: 'solver',
        text: `Solver sees ${view}, asked position ${task.j}, ${eps > 0 ? 'receives (? = erased)' : 'message'}: ${heard}`,
        generated: false,
        tokens: solverContext(task, state.received),
      });
      if (state.answer === null) return lines;
      const right = state.answer[0] === digitId(sj);
      lines.push({
        role: 'solver',
        text: `answers ${tokenText(state.answer.slice(0, 1))} (${right ? 'correct' : `wrong, s_${task.j} = ${sj}`})`,
        generated: true,
        tokens: state.answer.slice(),
      });
      return lines;
    },
  };
  return env;
}
