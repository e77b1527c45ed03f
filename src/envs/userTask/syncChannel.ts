// The host's side of the sandbox thread's channel (sandboxWorker.mjs has the layout): a request
// written into shared memory, then a synchronous wait for the reply with a deadline, in slices so
// that the waiting thread can act between them. Environment is synchronous (the Trainer calls
// sampleTasks and score inline), hence Atomics.wait and not a message: allowed on Node's main
// thread, in Node workers and in a browser Web Worker with SharedArrayBuffer (crossOriginIsolated).
const STATE = 0, LENGTH = 1, READY = 2;
const REQUEST = 1, REPLY = 2;

/** The channel's reply area grows to at most this (bytes of UTF-8). */
export const CHANNEL_BYTES = 64 * 2 ** 20;
/** Slices of a wait (ms): between them the host may let signals through (workerHost.ts). */
export const WAIT_SLICE_MS = 50;

/** A SharedArrayBuffer that grows (ES2024; the project's lib is ES2022). */
type Growable = SharedArrayBuffer & { grow(n: number): void; readonly maxByteLength: number };
// read when a channel is made, never at import: a page that is not cross-origin isolated has no SharedArrayBuffer,
// and an import-time reference would stop the whole page from loading
const GrowableBuffer = (n: number, o: { maxByteLength: number }): Growable => new (SharedArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Growable)(n, o);

export class SyncChannel {
  readonly control = new SharedArrayBuffer(12);
  readonly data = GrowableBuffer(64 * 1024, { maxByteLength: CHANNEL_BYTES });
  private readonly c = new Int32Array(this.control);
  private readonly bytes = new Uint8Array(this.data);
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  /** Whether the thread at the other end has started (its engine compiled). */
  get ready(): boolean { return Atomics.load(this.c, READY) === 1; }

  /** Writes `name` and `arg` as the next request. */
  send(name: string, arg: string): void {
    const enc = this.encoder.encode(`${name}\n${arg}`);
    if (enc.length > this.data.byteLength) {
      if (enc.length > CHANNEL_BYTES) throw new RangeError(`a request of ${enc.length} bytes, more than the channel's ${CHANNEL_BYTES}`);
      this.data.grow(enc.length);
    }
    this.bytes.set(enc);
    Atomics.store(this.c, LENGTH, enc.length);
    Atomics.store(this.c, STATE, REQUEST);
    Atomics.notify(this.c, STATE);
  }

  /**
   * Waits for the reply until `deadline()` (performance.now() ms; asked again after each slice, so
   * it may move once the thread is ready). `between(waitedMs)` runs between slices. Null: overrun.
   */
  receive(deadline: () => number, between?: (waited: number) => void): string | null {
    const t0 = performance.now();
    for (;;) {
      if (Atomics.load(this.c, STATE) === REPLY) break;
      const left = deadline() - performance.now();
      if (left <= 0) return null;
      Atomics.wait(this.c, STATE, REQUEST, Math.min(WAIT_SLICE_MS, left));
      between?.(performance.now() - t0);
    }
    // a copy: TextDecoder does not read shared memory in browsers
    const text = this.decoder.decode(this.bytes.slice(0, Atomics.load(this.c, LENGTH)));
    Atomics.store(this.c, STATE, 0);
    return text;
  }
}

/** Whether this thread may block on Atomics.wait (not a browser page's main thread, and SharedArrayBuffer exists). */
export function canWaitHere(): boolean {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') return false;
  try {
    GrowableBuffer(4, { maxByteLength: 8 });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch { return false; }
}
