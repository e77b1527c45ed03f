// The thread pool's start waits for its workers with Atomics.waitAsync (src/simd/threads.ts readyChanged): a wait
// whose promise never settles (its timeout not firing) must not hold the start, or the page would wait on it
// forever instead of falling back to one thread after START_MS. Timed against generous bounds only.
import { describe, expect, it } from 'vitest';
import { READY } from '../../src/simd/threadControl';
import { readyChanged } from '../../src/simd/threads';

const ctl = () => new Int32Array(new SharedArrayBuffer(64));

describe('readyChanged: the pool start\'s wait for its workers', () => {
  it('a waitAsync that never settles: it returns after its own timer, about the wait\'s ms', async () => {
    let calls = 0;
    const never = () => { calls++; return { async: true, value: new Promise<string>(() => {}) }; };
    const t0 = Date.now();
    await readyChanged(ctl(), 0, 30, never);
    const ms = Date.now() - t0;
    expect(calls).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(30);
    expect(ms).toBeLessThan(2_000);
  });
  it('a wait that settles at once (the value changed): it returns without waiting for the timer', async () => {
    const t0 = Date.now();
    await readyChanged(ctl(), 0, 5_000, () => ({ async: true, value: Promise.resolve('ok') }));
    await readyChanged(ctl(), 0, 5_000, () => ({ async: false, value: 'not-equal' }));
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
  it('the engine\'s own waitAsync: READY already past r returns at once; unchanged, after about ms', async () => {
    const c = ctl();
    c[READY] = 1; // READY holds 1, the wait is for a change from 0
    const t0 = Date.now();
    await readyChanged(c, 0, 5_000);
    expect(Date.now() - t0).toBeLessThan(2_000);
    const t1 = Date.now();
    await readyChanged(c, 1, 40);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(30);
  });
});
