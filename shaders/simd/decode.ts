// One decode step of the GPT (src/model/gpt.ts decode, src/reference/decodeSample.ts's decode step) for a run of
// sequences, every layer and the head in one call: the rollout's per-token step as one op, so a thread takes its
// rows through the whole model without a hand-off per layer op (a dozen an op before, each a wake and a wait).
// Each op is the kernel the per-op path calls, on these rows: a row's numbers are the per-op path's bit for bit
// (the matmuls' row pairs are the same pairs when the run starts at an even row). The host (src/simd/wasmBackend.ts
// decodeStep) checks tokens and positions and writes the block.
import { matmulForward } from './matmul';
import { layernormForward } from './layernorm';
import { attentionDecode } from './attention';
import { embeddingLast } from './embedding';

/** u32 fields of the block before the layers' weights (wasmBackend.ts DECODE_HEAD). */
const HEAD = 33;
/** u32 fields a layer: ln1w, ln1b, qkvw, qkvb, attprojw, attprojb, ln2w, ln2b, fcw, fcb, fcprojw, fcprojb. */
const PER_LAYER = 12;

// @ts-ignore: decorator
@inline
function at(blk: usize, i: i32): usize {
  return <usize>load<u32>(blk + (<usize>i << 2));
}

/** Weight field i of member k: member 0's pointer, the members a stride of bytes apart (field 32). */
// @ts-ignore: decorator
@inline
function weight(blk: usize, i: i32, k: i32): usize {
  return at(blk, i) + <usize>k * at(blk, 32);
}

/**
 * Sequences [r0, r0 + n) of a decode step, all of member k (its weights). blk (u32): B, T, C, NH, L, V, tokens, pos,
 * kv, kvStride (bytes between layers), scratch (T floats a sequence), encoded, ln1, ln1Mean, ln1Rstd, qkv, atty,
 * residual2, ln2, ln2Mean, ln2Rstd, fch, fchGelu, residual3, lnf, lnfMean, lnfRstd, logits, wte, wpe, lnfw, lnfb,
 * the bytes between two members' weights; then PER_LAYER weights a layer (member 0's).
 */
export function decodeRows(blk: usize, r0: i32, n: i32, k: i32): void {
  const T = <i32>at(blk, 1), C = <i32>at(blk, 2), NH = <i32>at(blk, 3), L = <i32>at(blk, 4), V = <i32>at(blk, 5);
  const r = <usize>r0, T4 = <usize>T << 2, c = (<usize>C << 2) * r, c3 = c * 3, c4 = c * 4, one = r << 2;
  const pos = at(blk, 7) + one, kvStride = at(blk, 9), scratch = at(blk, 10) + r * T4;
  const encoded = at(blk, 11) + c, ln1 = at(blk, 12) + c, ln1Mean = at(blk, 13) + one, ln1Rstd = at(blk, 14) + one;
  const qkv = at(blk, 15) + c3, atty = at(blk, 16) + c, residual2 = at(blk, 17) + c, ln2 = at(blk, 18) + c;
  const ln2Mean = at(blk, 19) + one, ln2Rstd = at(blk, 20) + one, fch = at(blk, 21) + c4, fchGelu = at(blk, 22) + c4;
  const residual3 = at(blk, 23) + c, wte = weight(blk, 28, k);
  embeddingLast(encoded, at(blk, 6) + r * T4, pos, wte, weight(blk, 29, k), n, T, C);
  let residual = encoded;
  for (let l = 0; l < L; l++) {
    const w = HEAD + l * PER_LAYER, cache = at(blk, 8) + <usize>l * kvStride + r * T4 * 3 * <usize>C;
    layernormForward(ln1, ln1Mean, ln1Rstd, residual, weight(blk, w, k), weight(blk, w + 1, k), n, C);
    matmulForward(qkv, ln1, weight(blk, w + 2, k), weight(blk, w + 3, k), 0, 0, n, C, 3 * C);
    attentionDecode(atty, cache, qkv, pos, scratch, n, T, C, NH);
    matmulForward(residual2, atty, weight(blk, w + 4, k), weight(blk, w + 5, k), residual, 0, n, C, C);
    layernormForward(ln2, ln2Mean, ln2Rstd, residual2, weight(blk, w + 6, k), weight(blk, w + 7, k), n, C);
    matmulForward(fchGelu, ln2, weight(blk, w + 8, k), weight(blk, w + 9, k), 0, fch, n, C, 4 * C);
    matmulForward(residual3, fchGelu, weight(blk, w + 10, k), weight(blk, w + 11, k), residual2, 0, n, 4 * C, C);
    residual = residual3; // the next layer reads it before its own residual3 is written
  }
  const lnf = at(blk, 24) + c;
  layernormForward(lnf, at(blk, 25) + one, at(blk, 26) + one, residual, weight(blk, 30, k), weight(blk, 31, k), n, C);
  matmulForward(at(blk, 27) + (<usize>V << 2) * r, lnf, wte, 0, 0, 0, n, C, V);
}
