// The workers' verdict store on a real IndexedDB implementation (fake-indexeddb), and the verdict key.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { indexedDbVerdictStore, verdictKey } from '../../src/worker/gpuChoice';

describe('GPU verdicts in IndexedDB', () => {
  it('stores and reads back per key, across store instances of one database', async () => {
    const idb = new IDBFactory();
    const a = indexedDbVerdictStore(idb);
    expect(await a.get('x')).toBeUndefined();
    await a.set('x', { ok: false, message: 'matmulForward (matmul.wgsl, error 2e-1)', at: 5 });
    await a.set('y', { ok: true, message: 'ok', at: 6 });
    const b = indexedDbVerdictStore(idb); // a later page load
    expect(await b.get('x')).toEqual({ ok: false, message: 'matmulForward (matmul.wgsl, error 2e-1)', at: 5 });
    expect(await b.get('y')).toEqual({ ok: true, message: 'ok', at: 6 });
  });

  it('the key follows the adapter and every shader source, not the order they are listed in', () => {
    const s = { matmul: 'fn a() {}', gelu: 'fn b() {}' };
    const k = verdictKey('vendor arch', s);
    expect(verdictKey('vendor arch', { gelu: 'fn b() {}', matmul: 'fn a() {}' })).toBe(k);
    expect(verdictKey('other adapter', s)).not.toBe(k);
    expect(verdictKey('vendor arch', { ...s, gelu: 'fn b() { }' })).not.toBe(k);
    expect(verdictKey('vendor arch', { matmul: 'fn a() {}', gelu2: 'fn b() {}' })).not.toBe(k);
  });
});
