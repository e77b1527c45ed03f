// `logprobs --checkpoint F --tokens 1,5,7`: entry t-1 is log p(token_t | tokens_<t).
import { GPT } from '../../model/gpt';
import { parseFlags, parseTokens, requireFlag, type FlagSpec } from '../args';
import { chooseBackend, loadCheckpoint } from '../io';
import { InputError } from '../../errors';

export const logprobsFlags: FlagSpec = {
  checkpoint: { kind: 'string', help: 'a .safetensors checkpoint (nanoGPT names)' },
  tokens: { kind: 'string', help: 'comma-separated token ids' },
  temperature: { kind: 'number', help: 'softmax temperature (default 1)' },
  backend: { kind: 'string', help: 'webgpu | cpu' },
};

export async function logprobs(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, logprobsFlags, 'logprobs');
  const ck = loadCheckpoint(requireFlag(flags, 'checkpoint', 'logprobs'));
  const tokens = parseTokens(requireFlag(flags, 'tokens', 'logprobs'), ck.config.vocabSize, ck.config.blockSize);
  const temperature = (flags.temperature as number | undefined) ?? 1;
  if (!(temperature > 0)) throw new InputError(`--temperature must be > 0, got ${temperature}`);
  const backend = await chooseBackend(flags.backend);
  try {
    const model = new GPT(backend, ck.config, ck.weights);
    const T = tokens.length;
    const logits = model.forward(tokens, 1, T);
    const targets = backend.alloc(T, 'i32'), logp = backend.alloc(T), entropy = backend.alloc(T);
    backend.write(targets, [...tokens.slice(1), -1]);
    backend.logprobForward(logp, entropy, logits, targets, T, ck.config.vocabSize, temperature);
    const out = await backend.read(logp);
    return { backend: backend.name, logprobs: Array.from(out.subarray(0, T - 1)) };
  } finally {
    backend.destroy();
  }
}
