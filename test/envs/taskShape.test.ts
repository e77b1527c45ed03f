// A thread that runs no task code (the page's main thread) plans with a task's shape from its worker: the
// vocabulary, EOS and block size, and nothing of the task runs there (its methods refuse, naming why).
// This file never loads the sandbox (prepareUserTasks), as the page never does.
import { describe, expect, it } from 'vitest';
import { createEnv } from '../../src/envs/registry';
import { registerTaskShape } from '../../src/envs/userTask/shape';
import { presetConfig, findPreset } from '../../src/envs/presets';
import { parameterCount } from '../../src/store/modelInfo';

const CODE = 'export default { name: "shape", vocab: "ab", sample: () => "a", solver: (t) => t, score: () => 1 };';

describe('a task\'s shape on a thread without the sandbox', () => {
  it('createEnv gives the registered shape; its task methods refuse; an unknown task is refused by the sandbox', () => {
    const config = { ...presetConfig(findPreset('relay-silence')), env: 'custom' as const, taskCode: CODE };
    expect(() => createEnv(config)).toThrow(/the task sandbox is not loaded yet/);
    registerTaskShape(CODE, { vocab: ['<PAD>', '<BOS>', '<EOS>', 'a', 'b'], eos: 2, blockSize: 9 });
    const env = createEnv(config);
    expect([env.id, env.vocab.length, env.eos, env.blockSize]).toEqual(['custom', 5, 2, 9]);
    expect(() => env.sampleTasks('train', 1, 0, 0)).toThrow(/runs in a worker, not on the page/);
    expect(parameterCount(config)).toBeGreaterThan(0); // the controls' model size, from the shape
  });
});
