// fetchWarmStart: a warm start's file, or null where it is not there, or an error naming the path; a fetch that never
// answers ends after its bound with an error saying so (init, and the page's busy line, would otherwise wait forever).
import { describe, expect, it } from 'vitest';
import { fetchWarmStart } from '../../src/worker/warmFetch';

const URL_ = new URL('http://page.test/checkpoints/relay-warm.safetensors');
const answer = (body: BodyInit | null, init: ResponseInit) => (async () => new Response(body, init)) as unknown as typeof fetch;

describe('fetchWarmStart', () => {
  it('gives the bytes, null for a 404 or an HTML fallback, and an error naming the path for another status', async () => {
    expect(Array.from((await fetchWarmStart(URL_, answer(new Uint8Array([1, 2, 3]), { status: 200 })))!)).toEqual([1, 2, 3]);
    expect(await fetchWarmStart(URL_, answer(null, { status: 404 }))).toBeNull();
    expect(await fetchWarmStart(URL_, answer('<html>', { status: 200, headers: { 'content-type': 'text/html' } }))).toBeNull();
    await expect(fetchWarmStart(URL_, answer('no', { status: 500 }))).rejects.toThrow('GET /checkpoints/relay-warm.safetensors: HTTP 500');
  });

  it('a fetch that never answers ends after the bound, naming the path and the bound', async () => {
    let signal: AbortSignal | undefined;
    const never = ((_: unknown, init?: RequestInit) => new Promise((_res, rej) => {
      signal = init?.signal ?? undefined;
      signal?.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError')));
    })) as unknown as typeof fetch;
    const t0 = Date.now();
    await expect(fetchWarmStart(URL_, never, 200)).rejects.toThrow('GET /checkpoints/relay-warm.safetensors: no answer within 0.2 s');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    expect(signal?.aborted).toBe(true);
  });

  it('a body that stalls after the headers ends the same way', async () => {
    const stalled = ((_: unknown, init?: RequestInit) => Promise.resolve({
      status: 200, ok: true, headers: new Headers(),
      arrayBuffer: () => new Promise((_res, rej) => init?.signal?.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError')))),
    })) as unknown as typeof fetch;
    await expect(fetchWarmStart(URL_, stalled, 100)).rejects.toThrow(/no answer within 0.1 s/);
  });
});
