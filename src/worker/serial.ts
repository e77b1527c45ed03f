// One call at a time: what a worker API runs under its lock (steps, exports, changes) waits for
// what was queued before it; a call that fails does not block the next.
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
