// `logprobs --checkpoint F --tokens 1,5,7`: entry t-1 is log p(token_t | tokens_<t).
import { GPT } from '../../model/gpt';
import { engineName, type FlagSpec, parseFlags, parseTokens, requireFlag } from '../args';
import { chooseBackend, loadCheckpoint, BACKEND_HELP } from '../io';
import { InputError } from '../../contract/errors';
import { parseField } from '../../config';

export const logprobsFlags: FlagSpec = {
  checkpoint: { kind: 'string', help: 'a .safetensors checkpoint (nanoGPT names)' },
  tokens: { kind: 'string', help: 'comma-separated token ids' },
  temperature: { kind: 'number', help: 'softmax temperature (default 1)' },
  backend: { kind: 'string', help: BACKEND_HELP },
};

export async function logprobs(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, logprobsFlags, 'logprobs');
  const ck = loadCheckpoint(requireFlag(flags, 'checkpoint', 'logprobs'));
  const tokens = parseTokens(requireFlag(flags, 'tokens', 'logprobs'), ck.config.vocabSize, ck.config.blockSize);
  // the config's range: far below it logits / T overflow float32 and the log-probs are not finite
  const temperature = (flags.temperature as number | undefined) ?? 1;
  try { parseField('temperature', temperature); } catch (e) { throw new InputError(`--${(e as Error).message}`); }
  const backend = await chooseBackend(flags.backend);
  try {
    const model = new GPT(backend, ck.config, ck.weights);
    const T = tokens.length;
    const logits = model.forward(tokens, 1, T, undefined, undefined, false);
    const targets = backend.alloc(T, 'i32'), logp = backend.alloc(T), entropy = backend.alloc(T);
    backend.write(targets, [...tokens.slice(1), -1]);
    backend.logprobForward(logp, entropy, logits, targets, T, ck.config.vocabSize, temperature);
    const out = Array.from((await backend.read(logp)).subarray(0, T - 1));
    // never print nulls (JSON's NaN) with exit 0: finite weights can still overflow float32
    const bad = out.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new InputError(`checkpoint "${flags.checkpoint}": log-prob ${bad} is ${out[bad]} at temperature ${temperature} (its weights overflow float32)`);
    return { backend: engineName(backend.name), logprobs: out };
  } finally {
    backend.destroy();
  }
}
