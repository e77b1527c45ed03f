// Safetensors reading and writing, float32 only. Generic: knows nothing of the model.
//
// File layout (https://github.com/huggingface/safetensors):
//   [0, 8)          u64 little-endian N = header length in bytes
//   [8, 8+N)        UTF-8 JSON object: { name: {dtype, shape, data_offsets: [begin, end]}, ...,
//                   "__metadata__"?: {key: string} }, padded with spaces
//   [8+N, end)      data section; data_offsets are relative to its start
//
// Reading is strict (docs/model.md, docs/trust.md): the first problem throws a
// SafetensorsError whose message is one line naming it; nothing is half-returned.

import { clip, quote } from '../contract/errors';

export class SafetensorsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SafetensorsError';
  }
}

export interface StTensor {
  dtype: 'F32';
  shape: number[];
  data: Float32Array;
}

export interface ParseOptions {
  /** Largest accepted JSON header, in bytes. Default 1 MiB. */
  maxHeaderBytes?: number;
  /** Largest accepted file, in bytes. Default: no limit beyond memory. */
  maxFileBytes?: number;
}

const DEFAULT_MAX_HEADER_BYTES = 1 << 20;
const TENSOR_KEYS = new Set(['dtype', 'shape', 'data_offsets']);
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function fail(message: string): never {
  throw new SafetensorsError(message);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A bounded description of a header value: short arrays of numbers in full, anything else by `quote`. */
function describe(v: unknown): string {
  if (Array.isArray(v) && v.length <= 8 && v.every((x) => typeof x === 'number')) return `[${v.join(',')}]`;
  return quote(v, 40);
}

/**
 * The first key that appears twice in one object of a JSON text (already valid
 * JSON), or null. JSON.parse keeps the last silently; the reference
 * implementation rejects duplicates. A loop with an explicit stack: any depth.
 */
export function duplicateJsonKey(text: string): string | null {
  const stack: Array<{ keys: Set<string>; expectKey: boolean } | null> = []; // null: an array
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) stack.push({ keys: new Set(), expectKey: true });
    else if (c === 0x5b /* [ */) stack.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */) { const top = stack[stack.length - 1]; if (top) top.expectKey = true; }
    else if (c === 0x22 /* " */) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return key;
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    }
  }
  return null;
}

interface Entry {
  name: string;
  shape: number[];
  numel: number;
  begin: number;
  end: number;
}

function parseEntry(name: string, raw: unknown, dataBytes: number, dataStart: number, fileBytes: number): Entry {
  const where = `tensor ${clip(name, 80)}`;
  if (!isPlainObject(raw)) fail(`${where}: header entry must be an object, got ${describe(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!TENSOR_KEYS.has(key)) fail(`${where}: unknown key ${quote(key, 40)} in header entry (allowed: dtype, shape, data_offsets)`);
  }
  const { dtype, shape, data_offsets: offsets } = raw;
  if (dtype === undefined) fail(`${where}: missing dtype`);
  if (typeof dtype !== 'string') fail(`${where}: dtype must be a string, got ${describe(dtype)}`);
  if (dtype !== 'F32') fail(`${where}: dtype ${clip(dtype as string, 40)} is not supported (only F32)`);

  if (shape === undefined) fail(`${where}: missing shape`);
  if (!Array.isArray(shape)) fail(`${where}: shape must be an array, got ${describe(shape)}`);
  let numel = 1;
  for (const d of shape as unknown[]) {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) {
      fail(`${where}: shape ${describe(shape)} has a dimension that is not a non-negative integer (${describe(d)})`);
    }
    numel *= d;
    if (!Number.isSafeInteger(numel * 4)) fail(`${where}: shape ${describe(shape)} is too large`);
  }

  if (offsets === undefined) fail(`${where}: missing data_offsets`);
  if (!Array.isArray(offsets) || offsets.length !== 2) {
    fail(`${where}: data_offsets must be [begin, end], got ${describe(offsets)}`);
  }
  const [begin, end] = offsets as unknown[];
  for (const o of [begin, end]) {
    if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) {
      fail(`${where}: data_offsets ${describe(offsets)} must be non-negative integers`);
    }
  }
  const b = begin as number;
  const e = end as number;
  if (b > e) fail(`${where}: data_offsets [${b}, ${e}] has begin > end`);
  if (e > dataBytes) {
    fail(
      `${where}: byte range ${dataStart + b}..${dataStart + e} is outside the file (size ${fileBytes}); ` +
        `data_offsets [${b}, ${e}] exceed the data section (${dataBytes} bytes): file truncated?`,
    );
  }
  if (e - b !== numel * 4) {
    fail(`${where}: shape ${describe(shape)} needs ${numel * 4} bytes of F32 but data_offsets [${b}, ${e}] span ${e - b}`);
  }
  return { name, shape: (shape as number[]).slice(), numel, begin: b, end: e };
}

/** Parses a .safetensors file. Strict: throws SafetensorsError on the first problem. */
export function parseSafetensors(
  bytes: Uint8Array,
  opts: ParseOptions = {},
): { tensors: Map<string, StTensor>; metadata: Record<string, string> } {
  const maxHeader = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const size = bytes.byteLength;
  if (opts.maxFileBytes !== undefined && size > opts.maxFileBytes) {
    fail(`file is ${size} bytes, more than the limit of ${opts.maxFileBytes}`);
  }
  if (size === 0) fail('file is empty (a safetensors file starts with an 8-byte header length)');
  if (size < 8) fail(`file is ${size} bytes, too short for the 8-byte header length`);

  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen64 = view.getBigUint64(0, true);
  if (headerLen64 > BigInt(maxHeader)) {
    fail(`header length ${headerLen64} bytes exceeds the limit of ${maxHeader} bytes`);
  }
  const headerLen = Number(headerLen64);
  if (headerLen > size - 8) {
    fail(`header length ${headerLen} bytes is larger than the rest of the file (${size - 8} bytes after the length)`);
  }
  if (headerLen < 2) fail(`header length ${headerLen} bytes is too short for a JSON object`);

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLen));
  } catch {
    fail('header is not valid UTF-8');
  }
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (err) {
    fail(`header is not valid JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  if (!isPlainObject(header)) fail(`header must be a JSON object, got ${Array.isArray(header) ? 'an array' : describe(header)}`);
  const twice = duplicateJsonKey(text);
  if (twice !== null) fail(`header names ${quote(twice, 80)} twice (duplicate JSON keys are an error, as in the reference implementation)`);

  const dataStart = 8 + headerLen;
  const dataBytes = size - dataStart;

  const metaEntries: Array<[string, string]> = [];
  const entries: Entry[] = [];
  for (const [name, raw] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (!isPlainObject(raw)) fail(`__metadata__ must be an object of strings, got ${describe(raw)}`);
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== 'string') fail(`__metadata__ value for ${quote(k, 40)} must be a string, got ${describe(v)}`);
        metaEntries.push([k, v]);
      }
      continue;
    }
    entries.push(parseEntry(name, raw, dataBytes, dataStart, size));
  }

  // The tensors tile the data section exactly, as the reference implementation requires: no
  // overlap, no gap, nothing after the last (a header length off by one would misalign every weight).
  const sorted = entries.slice().sort((a, b) => a.begin - b.begin || a.end - b.end);
  let covered = 0;
  for (let i = 0; i < sorted.length; i++) {
    const cur = sorted[i]!;
    if (cur.begin < covered) {
      const prev = sorted[i - 1]!;
      fail(`tensors ${clip(prev.name)} and ${clip(cur.name)} overlap: data_offsets [${prev.begin}, ${prev.end}] and [${cur.begin}, ${cur.end}]`);
    }
    if (cur.begin > covered) fail(`data section bytes ${covered}..${cur.begin} belong to no tensor (before tensor ${clip(cur.name)}): the tensors must cover the data section without gaps`);
    covered = cur.end;
  }
  if (covered !== dataBytes) fail(`the data section is ${dataBytes} bytes but the tensors cover ${covered}: bytes ${covered}..${dataBytes} belong to no tensor (header length wrong, or extra bytes at the end)`);

  const tensors = new Map<string, StTensor>();
  for (const e of entries) {
    const data = new Float32Array(e.numel);
    const src = bytes.subarray(dataStart + e.begin, dataStart + e.end);
    if (LITTLE_ENDIAN) {
      new Uint8Array(data.buffer).set(src);
    } else {
      const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
      for (let i = 0; i < e.numel; i++) data[i] = dv.getFloat32(4 * i, true);
    }
    tensors.set(e.name, { dtype: 'F32', shape: e.shape, data });
  }
  return { tensors, metadata: Object.fromEntries(metaEntries) };
}

/**
 * Writes a .safetensors file: tensors packed in the given order, F32 little-endian,
 * header padded with spaces so the data section starts at a multiple of 8 bytes
 * (as the reference implementation does). `__metadata__` is written when non-empty.
 */
export function serializeSafetensors(
  tensors: Array<[string, { shape: number[]; data: Float32Array }]>,
  metadata: Record<string, string>,
): Uint8Array {
  const header: Record<string, unknown> = {};
  const metaKeys = Object.keys(metadata);
  if (metaKeys.length > 0) {
    for (const k of metaKeys) {
      if (typeof metadata[k] !== 'string') fail(`__metadata__ value for "${k}" must be a string`);
    }
    header['__metadata__'] = { ...metadata };
  }
  let offset = 0;
  const seen = new Set<string>();
  for (const [name, t] of tensors) {
    if (name === '__metadata__') fail('tensor name __metadata__ is reserved');
    if (seen.has(name)) fail(`tensor ${name} appears twice`);
    seen.add(name);
    let numel = 1;
    for (const d of t.shape) {
      if (!Number.isSafeInteger(d) || d < 0) fail(`tensor ${name}: shape ${describe(t.shape)} is not non-negative integers`);
      numel *= d;
    }
    if (numel !== t.data.length) {
      fail(`tensor ${name}: shape ${describe(t.shape)} has ${numel} elements but data has ${t.data.length}`);
    }
    Object.defineProperty(header, name, {
      value: { dtype: 'F32', shape: t.shape.slice(), data_offsets: [offset, offset + 4 * numel] },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    offset += 4 * numel;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  const out = new Uint8Array(8 + json.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let pos = 8 + json.length;
  for (const [, t] of tensors) {
    if (LITTLE_ENDIAN) {
      out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), pos);
    } else {
      for (let i = 0; i < t.data.length; i++) view.setFloat32(pos + 4 * i, t.data[i]!, true);
    }
    pos += t.data.byteLength;
  }
  return out;
}
