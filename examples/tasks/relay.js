// Relay, written as your own task: a messenger sees a 3-digit secret, which digit is asked and
// whether the solver already knows the secret; it sends at most 8 tokens (or nothing); the solver
// answers the asked digit. This is the shipped relay (src/envs/relay.ts) in the task format: the
// same views, split and demonstrations, with MESSENGER in place of SCOUT.
// What to watch: the message is the channel, and lambda_tok charges each token of it. The warm
// start sends the whole secret twice (8 tokens); under a token penalty RL learns that one digit is
// enough, and that silence pays when the solver already knows. Sweep lambda_tok to trace the
// accuracy-vs-tokens frontier: past some penalty even the needed digit is not worth its token.
const K = 3, M = 8;
const D = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
const verbose = (t) => [t.known ? 'NOTE' : 'SECRET', ...t.secret.map(String), 'REPEAT', ...t.secret.map(String)].slice(0, M);
const short = (t, which) => {
  const s = t.secret.map(String), sj = s[t.j - 1];
  return [['POS', String(t.j), 'DIGIT', sj], ['DIGIT', sj], [sj], ['IS', ...s.slice(0, t.j)], s][which];
};
export default {
  name: 'relay',
  about: 'The relay in the task format: a messenger, a solver, and a token penalty on the message.',
  vocab: [...D, 'Q', 'KNOWN', 'UNKNOWN', 'MASK', 'SECRET', 'IS', 'REPEAT', 'NOTE', 'POS', 'DIGIT'],
  maxMessage: M,
  maxAnswer: 1,
  sample(rand, split) {
    const known = rand() < (split === 'eval' ? 0.3 : 0.5);
    return { secret: Array.from({ length: K }, () => rand.int(10)), j: 1 + rand.int(K), known };
  },
  // one (secret, j) pair in five is held out, whatever the flag (as relay's isEvalTask)
  heldOut: (t) => ((t.secret.reduce((a, d) => a * 10 + d, 0) * 2654435761 + t.j * 40503) >>> 0) % 5 === 0,
  messenger: (t) => [...t.secret.map(String), 'Q', String(t.j), t.known ? 'KNOWN' : 'UNKNOWN'],
  solver: (t) => ['Q', String(t.j), ...(t.known ? t.secret.map(String) : t.secret.map(() => 'MASK'))],
  score(t, answer, message) {
    const silent = message === '' ? 1 : 0;
    return { score: answer === String(t.secret[t.j - 1]) ? 1 : 0, extras: t.known ? { silenceKnown: silent } : { silenceUnknown: silent } };
  },
  demo(t, rand) {
    // 10% silence, else 80% the verbose protocol and 20% a short format; the solver is shown the
    // answer when the message carries it or it already knows
    let msg = [];
    if (rand() >= 0.1) msg = rand() < 0.8 ? verbose(t) : short(t, rand.int(5));
    // (with 3 digits and 8 tokens every message that is sent carries s_j)
    return { message: msg, answer: msg.length > 0 || t.known ? String(t.secret[t.j - 1]) : null };
  },
  settings: { groupSize: 8, promptsPerStep: 32, minibatches: 4, lr: 3e-4, epsLow: 3e-4, epsHigh: 4e-4, lambdaTok: 0.1, steps: 100, evalEvery: 10, evalEpisodes: 256 },
  pretrain: { steps: 1500 }, // as the shipped warm start: long enough that it samples its 10% silent demos
};
