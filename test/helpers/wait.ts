// Polling for something that happens asynchronously (a flip, a delivery, a file).

export interface WaitOptions {
  /** Give up after this many milliseconds (default 10 s). */
  timeout?: number;
  /** Poll every this many milliseconds (default 20). */
  interval?: number;
  /** What is awaited, for the timeout message; a function is asked at the timeout (current state). */
  what?: string | (() => string);
}

/** Poll `probe` until it returns a truthy value, and return that value; throws at the timeout. */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeout = opts.timeout ?? 10_000;
  const until = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) {
      const what = typeof opts.what === 'function' ? opts.what() : (opts.what ?? 'a condition');
      throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, opts.interval ?? 20));
  }
}
