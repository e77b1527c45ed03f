// Reverse: one policy reads a short word and writes it backwards. Ten lines of task.
// What to watch: a short warm start (200 steps on demo's answers) gets the short words right and
// many long ones wrong; RL on the exact-match score lifts held-out accuracy, the longest words last.
export default {
  name: 'reverse',
  vocab: 'abcdef',
  maxAnswer: 6,
  sample: (rand) => Array.from({ length: 3 + rand.int(4) }, () => rand.pick(['a', 'b', 'c', 'd', 'e', 'f'])).join(''),
  solver: (word) => word,
  score: (word, answer) => (answer === [...word].reverse().join('') ? 1 : 0),
  demo: (word) => [...word].reverse().join(''),
  pretrain: { steps: 200 },
  settings: { steps: 120 },
};
