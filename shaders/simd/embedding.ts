// Token and position embeddings (twin: nn.ts embeddingForward/Backward/Last in src/reference;
// test: test/simd/embedding.test.ts). Tokens and positions are checked by the host. The backward
// adds row by row in the reference's order: one f32 add per element and row, so the same numbers.

/** c[C] = a[C] + b[C] (rows of C floats). */
// @ts-ignore: decorator
@inline
function addRow(c: usize, a: usize, b: usize, cb: usize): void {
  const c4 = cb & ~15;
  for (let i: usize = 0; i < c4; i += 16) v128.store(c + i, f32x4.add(v128.load(a + i), v128.load(b + i)));
  for (let i = c4; i < cb; i += 4) store<f32>(c + i, load<f32>(a + i) + load<f32>(b + i));
}

/** out[n,:] = wte[tokens[n],:] + wpe[n % T,:]. */
export function embeddingForward(out: usize, tokens: usize, wte: usize, wpe: usize, N: i32, T: i32, C: i32): void {
  const cb = <usize>C << 2;
  for (let n = 0; n < N; n++) {
    const tok = <usize>load<i32>(tokens + (<usize>n << 2));
    addRow(out + <usize>n * cb, wte + tok * cb, wpe + <usize>(n % T) * cb, cb);
  }
}

/** dwte[tokens[n],:] += dout[n,:]; dwpe[n % T,:] += dout[n,:], n in order. */
export function embeddingBackward(dwte: usize, dwpe: usize, dout: usize, tokens: usize, N: i32, T: i32, C: i32): void {
  const cb = <usize>C << 2;
  for (let n = 0; n < N; n++) {
    const tok = <usize>load<i32>(tokens + (<usize>n << 2)), d = dout + <usize>n * cb, e = dwte + tok * cb, p = dwpe + <usize>(n % T) * cb;
    addRow(e, e, d, cb);
    addRow(p, p, d, cb);
  }
}

/** out[b,:] = wte[tokens[b*T + t],:] + wpe[t,:] with t = pos[b] - 1 (checked by the host). */
export function embeddingLast(out: usize, tokens: usize, pos: usize, wte: usize, wpe: usize, B: i32, T: i32, C: i32): void {
  const cb = <usize>C << 2;
  for (let b = 0; b < B; b++) {
    const t = load<i32>(pos + (<usize>b << 2)) - 1, tok = <usize>load<i32>(tokens + ((<usize>b * T + t) << 2));
    addRow(out + <usize>b * cb, wte + tok * cb, wpe + <usize>t * cb, cb);
  }
}
