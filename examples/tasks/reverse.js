// Reverse: one policy reads a short word and writes it backwards. Ten lines of task.
// What to watch: the warm start (pretrained on demo's answers) gets most words right; RL with
// the exact-match score closes the gap on the held-out words, and the longest words come last.
export default {
  name: 'reverse',
  vocab: 'abcdef',
  maxAnswer: 5,
  sample: (rand) => Array.from({ length: 2 + rand.int(4) }, () => rand.pick(['a', 'b', 'c', 'd', 'e', 'f'])).join(''),
  solver: (word) => word,
  score: (word, answer) => (answer === [...word].reverse().join('') ? 1 : 0),
  demo: (word) => [...word].reverse().join(''),
  pretrain: { steps: 400 },
};
