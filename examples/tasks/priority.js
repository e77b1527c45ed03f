// Priority digits: a frontier by construction. The messenger sees a 3-digit code; the solver must
// write all three, and the digits are not worth the same: the first is worth 0.6 of the score, the
// second 0.3, the third 0.1 (a digit the solver does not get it guesses, right one time in ten).
// Each digit sent costs lambda_tok, so it pays only while its worth beats the penalty: the third
// above lambda_tok ~0.09, the second ~0.27, the first ~0.54 (0.9 x its weight).
// What to watch: sweep lambda_tok (sweep --task ... --lambdas 0,0.05,0.15,0.4,0.8): the messages
// drop the last digit, then the second, then fall silent, and the runs trace an accuracy-vs-tokens
// frontier, the shape relay's noisy channel gives (diminishing returns per token).
const W = [0.6, 0.3, 0.1];
const D = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
export default {
  name: 'priority digits',
  about: 'A messenger, a solver and three digits of unequal worth: each lambda_tok has its own best message length.',
  vocab: D,
  maxMessage: 3,
  maxAnswer: 3,
  sample: (rand) => [rand.int(10), rand.int(10), rand.int(10)],
  messenger: (code) => code.map(String),
  solver: () => [],
  score(code, answer) {
    const a = answer.split(' ');
    const score = W.reduce((s, w, i) => s + (a[i] === String(code[i]) ? w : 0), 0);
    return { score: Math.round(score * 1000) / 1000, extras: { firstRight: a[0] === String(code[0]) ? 1 : 0 } };
  },
  demo(code, rand) {
    // a prefix of 3, 2, 1 or 0 digits, each as often: the token penalty can only compare lengths the
    // warm start samples (with the whole code 70% of the time, RL kept all three at every lambda_tok);
    // the solver copies what it got and guesses the rest
    const n = rand.int(4);
    const message = code.slice(0, n).map(String);
    const answer = code.map((d, i) => (i < n ? String(d) : String(rand.int(10))));
    return { message, answer };
  },
  settings: { steps: 60, lambdaTok: 0.15, evalEpisodes: 256 },
  pretrain: { steps: 800 },
};
