// The tiny GPT as a Hugging Face transformers model: GPT2LMHeadModel, exact.
//
// Why GPT-2 and not another class: every choice of the engine is one GPT-2 has, with no flag left over:
//   layer norm eps 1e-5 (src/reference/nn.ts LN_EPS)          -> layer_norm_epsilon 1e-5
//   GELU, tanh approximation (0.044715)                        -> activation_function "gelu_new"
//   attention logits / sqrt(head size), causal, no layer scale -> scale_attn_weights true, scale_attn_by_inverse_layer_idx false
//   learned positional embeddings wpe, block_size rows         -> n_positions = block_size
//   head tied to wte, no bias                                  -> tie_word_embeddings true (lm_head.weight not stored)
//   pre-norm blocks, biases everywhere, MLP width 4C           -> GPT-2's Block, n_inner null (4 n_embd)
//   no dropout                                                  -> resid/embd/attn pdrop 0
// The one difference is the weight layout: nanoGPT's nn.Linear stores [out, in], GPT-2's Conv1D stores
// [in, out], so c_attn, c_proj and c_fc are transposed on the way out.
import type { GPTConfig } from './params';
import { paramSpecs } from './params';

/** GPT-2 tensors (transformers' state-dict names) from the engine's flat weights, in the engine's order. */
export function gpt2Tensors(config: GPTConfig, flat: ArrayLike<number>): Array<[string, { shape: number[]; data: Float32Array }]> {
  const out: Array<[string, { shape: number[]; data: Float32Array }]> = [];
  for (const s of paramSpecs(config).specs) {
    const data = Float32Array.from({ length: s.size }, (_, i) => flat[s.offset + i]);
    const conv1d = /\.(c_attn|c_proj|c_fc)\.weight$/.test(s.name);
    if (!conv1d) { out.push([s.name, { shape: s.shape.slice(), data }]); continue; }
    const [rows, cols] = s.shape; // nn.Linear [out, in] -> Conv1D [in, out]
    const t = new Float32Array(s.size);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = data[r * cols + c];
    out.push([s.name, { shape: [cols, rows], data: t }]);
  }
  return out;
}

export interface SpecialTokens { bos: number; eos: number; pad: number }

/** config.json of the GPT2LMHeadModel (transformers' GPT2Config keys). */
export function gpt2Config(config: GPTConfig, special: SpecialTokens): Record<string, unknown> {
  return {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    vocab_size: config.vocabSize,
    n_positions: config.blockSize,
    n_embd: config.nEmbd,
    n_layer: config.nLayer,
    n_head: config.nHead,
    n_inner: null,
    activation_function: 'gelu_new',
    resid_pdrop: 0,
    embd_pdrop: 0,
    attn_pdrop: 0,
    layer_norm_epsilon: 1e-5,
    initializer_range: 0.02,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    tie_word_embeddings: true,
    bos_token_id: special.bos,
    eos_token_id: special.eos,
    pad_token_id: special.pad,
    use_cache: true,
    dtype: 'float32',
  };
}

/**
 * tokenizer.json (the `tokenizers` library's format): one word per token, split on whitespace, so the
 * token text of a sequence is its words joined by spaces and decoding joins them back the same way.
 * BOS, EOS and PAD are special (decode(skip_special_tokens=True) drops them). No unknown token: a word
 * outside the task's vocabulary is an error, never a silent substitute.
 */
export function wordLevelTokenizer(vocab: readonly string[], special: SpecialTokens): Record<string, unknown> {
  for (const w of vocab) if (w.length === 0 || /\s/.test(w)) throw new Error(`tokenizer: token ${JSON.stringify(w)} is empty or holds whitespace`);
  if (new Set(vocab).size !== vocab.length) throw new Error('tokenizer: the vocabulary names a token twice');
  const specials = [special.pad, special.bos, special.eos].filter((id, i, a) => a.indexOf(id) === i).sort((a, b) => a - b);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((id) => ({ id, content: vocab[id], single_word: true, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(vocab.map((w, i) => [w, i])), unk_token: '<unk>' },
  };
}

/** tokenizer_config.json: the fast tokenizer from tokenizer.json, with its special tokens named. */
export function tokenizerConfig(vocab: readonly string[], special: SpecialTokens, blockSize: number): Record<string, unknown> {
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: vocab[special.bos],
    eos_token: vocab[special.eos],
    pad_token: vocab[special.pad],
    model_max_length: blockSize,
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    add_eos_token: false,
  };
}
