import { describe, expect, it } from 'vitest';
import { parseSafetensors, SafetensorsError, serializeSafetensors } from '../src/model/safetensors';

// Builds a file by hand, independent of serializeSafetensors: 8-byte LE length,
// the header text exactly as given, then the raw data bytes.
function handFile(headerText: string, data: Uint8Array = new Uint8Array(0), headerLen?: bigint): Uint8Array {
  const h = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, headerLen ?? BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

function f32le(values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => dv.setFloat32(4 * i, v, true));
  return out;
}

function expectReject(bytes: Uint8Array, pattern: RegExp, opts?: Parameters<typeof parseSafetensors>[1]): void {
  let caught: unknown;
  try {
    parseSafetensors(bytes, opts);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(SafetensorsError);
  const msg = (caught as Error).message;
  expect(msg).toMatch(pattern);
  expect(msg).not.toContain('\n');
}

const ONE = (dtype = 'F32', shape = '[2]', offsets = '[0,8]') =>
  `{"a":{"dtype":"${dtype}","shape":${shape},"data_offsets":${offsets}}}`;

describe('serializeSafetensors / parseSafetensors', () => {
  it('round-trips tensors, shapes, order-independent values and metadata', () => {
    const a = new Float32Array([1.5, -2, 3.25, 0, 1e-30, -1e30]);
    const b = new Float32Array([Math.PI]);
    const c = new Float32Array(0);
    const meta = { config: '{"n_layer":2}', note: 'héllo ✓' };
    const bytes = serializeSafetensors(
      [
        ['transformer.wte.weight', { shape: [2, 3], data: a }],
        ['scalar', { shape: [], data: b }],
        ['empty', { shape: [0, 4], data: c }],
      ],
      meta,
    );
    const headerLen = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + headerLen) % 8).toBe(0);
    const { tensors, metadata } = parseSafetensors(bytes);
    expect(metadata).toEqual(meta);
    expect([...tensors.keys()].sort()).toEqual(['empty', 'scalar', 'transformer.wte.weight']);
    const wte = tensors.get('transformer.wte.weight')!;
    expect(wte.dtype).toBe('F32');
    expect(wte.shape).toEqual([2, 3]);
    expect(Array.from(wte.data)).toEqual(Array.from(a));
    expect(wte.data).not.toBe(a);
    expect(tensors.get('scalar')!.shape).toEqual([]);
    expect(tensors.get('scalar')!.data[0]).toBe(Math.fround(Math.PI));
    expect(tensors.get('empty')!.data.length).toBe(0);
  });

  it('writes no __metadata__ when metadata is empty, and packs data in the given order', () => {
    const bytes = serializeSafetensors(
      [
        ['z', { shape: [1], data: new Float32Array([7]) }],
        ['a', { shape: [1], data: new Float32Array([9]) }],
      ],
      {},
    );
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    expect(header.__metadata__).toBeUndefined();
    expect(header.z.data_offsets).toEqual([0, 4]);
    expect(header.a.data_offsets).toEqual([4, 8]);
    expect(parseSafetensors(bytes).metadata).toEqual({});
  });

  it('refuses to serialize data that does not match its shape', () => {
    expect(() => serializeSafetensors([['w', { shape: [2, 2], data: new Float32Array(3) }]], {})).toThrow(
      /tensor w: shape \[2,2\] has 4 elements but data has 3/,
    );
  });

  it('parses a file assembled by hand', () => {
    const header =
      '{"__metadata__":{"format":"pt"},' +
      '"b":{"dtype":"F32","shape":[1,2],"data_offsets":[12,20]},' +
      '"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}}   ';
    const bytes = handFile(header, f32le([0.5, -1, 2, 10, -20]));
    const { tensors, metadata } = parseSafetensors(bytes);
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.get('a')!.shape).toEqual([3]);
    expect(Array.from(tensors.get('a')!.data)).toEqual([0.5, -1, 2]);
    expect(tensors.get('b')!.shape).toEqual([1, 2]);
    expect(Array.from(tensors.get('b')!.data)).toEqual([10, -20]);
  });

  it('parses from an unaligned view into a larger buffer', () => {
    const inner = handFile(ONE(), f32le([1, 2]));
    const outer = new Uint8Array(inner.length + 3);
    outer.set(inner, 3);
    const { tensors } = parseSafetensors(outer.subarray(3));
    expect(Array.from(tensors.get('a')!.data)).toEqual([1, 2]);
    expect(tensors.get('a')!.data.byteOffset % 4).toBe(0);
  });
});

describe('parseSafetensors rejects malformed files', () => {
  it('empty file', () => expectReject(new Uint8Array(0), /file is empty/));
  it('file shorter than the length prefix', () => expectReject(new Uint8Array(5), /5 bytes, too short/));

  it('truncated data', () => {
    const good = handFile(ONE(), f32le([1, 2]));
    expectReject(good.subarray(0, good.length - 3), /tensor a: byte range .* is outside the file.*truncated/);
  });

  it('header length larger than the file', () => {
    expectReject(handFile(ONE(), f32le([1, 2]), 1000n), /header length 1000 bytes is larger than the rest of the file/);
  });

  it('absurd header length', () => {
    expectReject(handFile(ONE(), f32le([1, 2]), 2n ** 40n), /header length 1099511627776 bytes exceeds the limit of 1048576/);
    expectReject(handFile(ONE(), f32le([1, 2]), 2n ** 64n - 1n), /header length 18446744073709551615 bytes exceeds/);
  });

  it('header over a custom limit, and file over maxFileBytes', () => {
    expectReject(handFile(ONE(), f32le([1, 2])), /exceeds the limit of 16 bytes/, { maxHeaderBytes: 16 });
    expectReject(handFile(ONE(), f32le([1, 2])), /more than the limit of 10/, { maxFileBytes: 10 });
  });

  it('header not JSON', () => {
    expectReject(handFile('{"a": {"dtype": "F32", ', f32le([1, 2])), /header is not valid JSON/);
    expectReject(handFile('[1,2,3]'), /header must be a JSON object, got an array/);
    expectReject(handFile('"x"'), /header must be a JSON object/);
  });

  it('header not UTF-8', () => {
    const bytes = handFile('{"a":1}');
    bytes[10] = 0xff;
    expectReject(bytes, /header is not valid UTF-8/);
  });

  it('wrong dtype, naming it', () => {
    expectReject(handFile(ONE('F16', '[4]', '[0,8]'), f32le([1, 2])), /tensor a: dtype F16 is not supported \(only F32\)/);
    expectReject(handFile(ONE('F64', '[1]', '[0,8]'), f32le([1, 2])), /dtype F64 is not supported/);
    expectReject(handFile(ONE('I64', '[1]', '[0,8]'), f32le([1, 2])), /dtype I64 is not supported/);
    expectReject(handFile('{"a":{"shape":[2],"data_offsets":[0,8]}}', f32le([1, 2])), /tensor a: missing dtype/);
  });

  it('shape and offsets that disagree on size', () => {
    expectReject(handFile(ONE('F32', '[3]', '[0,8]'), f32le([1, 2])), /shape \[3\] needs 12 bytes of F32 but data_offsets \[0, 8\] span 8/);
  });

  it('offsets outside the file', () => {
    expectReject(handFile(ONE('F32', '[2]', '[8,16]'), f32le([1, 2])), /tensor a: byte range \d+\.\.\d+ is outside the file \(size \d+\)/);
    expectReject(handFile(ONE('F32', '[0]', '[8,4]'), f32le([1, 2])), /begin > end/);
    expectReject(handFile(ONE('F32', '[2]', '[-1,7]'), f32le([1, 2])), /data_offsets \[-1,7\] must be non-negative integers/);
    expectReject(handFile(ONE('F32', '[2]', '[0]'), f32le([1, 2])), /data_offsets must be \[begin, end\]/);
  });

  it('overlapping ranges', () => {
    const header =
      '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}';
    expectReject(handFile(header, f32le([1, 2, 3])), /tensors a and b overlap/);
  });

  it('negative or non-integer shape', () => {
    expectReject(handFile(ONE('F32', '[-2]', '[0,8]'), f32le([1, 2])), /shape \[-2\] has a dimension that is not a non-negative integer/);
    expectReject(handFile(ONE('F32', '[1.5]', '[0,8]'), f32le([1, 2])), /not a non-negative integer \(1.5\)/);
    expectReject(handFile(ONE('F32', '["2"]', '[0,8]'), f32le([1, 2])), /not a non-negative integer/);
    expectReject(handFile(ONE('F32', '2', '[0,8]'), f32le([1, 2])), /shape must be an array/);
  });

  it('metadata value not a string', () => {
    expectReject(handFile('{"__metadata__":{"config":{"n_layer":2}}}'), /__metadata__ value for "config" must be a string/);
    expectReject(handFile('{"__metadata__":[]}'), /__metadata__ must be an object of strings/);
  });

  it('unknown key or non-object tensor entry', () => {
    expectReject(
      handFile('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}}', f32le([1, 2])),
      /tensor a: unknown key "extra"/,
    );
    expectReject(handFile('{"a":5}'), /tensor a: header entry must be an object/);
  });

  it('throws SafetensorsError, with nothing half-returned after an earlier good tensor', () => {
    const header =
      '{"good":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"bad":{"dtype":"BF16","shape":[2],"data_offsets":[4,8]}}';
    expectReject(handFile(header, f32le([1, 2])), /tensor bad: dtype BF16/);
  });
});

describe('a checkpoint written by scripts/make_checkpoint.py (numpy, by hand)', () => {
  it('parses, with the config metadata, nanoGPT names and lm_head equal to wte', async () => {
    const { readFileSync } = await import('node:fs');
    const bytes = new Uint8Array(readFileSync(new URL('./fixtures/tiny-numpy.safetensors', import.meta.url)));
    const { tensors, metadata } = parseSafetensors(bytes);
    expect(JSON.parse(metadata.config!)).toEqual({ n_layer: 1, n_head: 2, n_embd: 4, block_size: 5, vocab_size: 6 });
    expect(tensors.get('transformer.wte.weight')!.shape).toEqual([6, 4]);
    expect(tensors.get('transformer.wpe.weight')!.shape).toEqual([5, 4]);
    expect(tensors.get('transformer.h.0.attn.c_attn.weight')!.shape).toEqual([12, 4]);
    expect(tensors.get('transformer.h.0.mlp.c_proj.weight')!.shape).toEqual([4, 16]);
    expect(tensors.size).toBe(2 + 12 + 2 + 1);
    // values printed by numpy from the same file
    expect(Array.from(tensors.get('transformer.wte.weight')!.data.slice(0, 3))).toEqual([
      0.0006150766857899725, 0.14937277138233185, -0.13706892728805542,
    ]);
    expect(Array.from(tensors.get('lm_head.weight')!.data)).toEqual(Array.from(tensors.get('transformer.wte.weight')!.data));
    // and re-serializing gives back the same tensors
    const again = parseSafetensors(serializeSafetensors([...tensors], metadata));
    for (const [name, t] of tensors) expect(Array.from(again.tensors.get(name)!.data)).toEqual(Array.from(t.data));
  });
});
