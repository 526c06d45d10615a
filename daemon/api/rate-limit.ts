// One request budget per API key across every API route and version (seed
// "Limits"; api-details §19). @fastify/rate-limit gives each route its own
// child store by default, which would turn "100 per minute per key" into
// "100 per minute per key per route"; this store's child() is itself, so all
// routes count against the same window.

interface Window {
  current: number;
  startedAt: number;
}

type IncrCallback = (err: Error | null, res: { current: number; ttl: number }) => void;

/** Keys (hashed API keys or client addresses) remembered at most. */
const MAX_KEYS = 10_000;

export class SharedRateLimitStore {
  private readonly windows = new Map<string, Window>();

  // The plugin constructs the store with its global parameters; nothing is needed from them.
  constructor(_params?: unknown) {}

  /** The plugin passes the route's window (and max, unused here) after the callback. */
  incr(key: string, cb: IncrCallback, timeWindow = 60_000): void {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.startedAt + timeWindow <= now) {
      w = { current: 0, startedAt: now };
      // Re-insert so Map order stays oldest-window-first for pruning.
      this.windows.delete(key);
      this.windows.set(key, w);
      this.prune();
    }
    w.current += 1;
    cb(null, { current: w.current, ttl: w.startedAt + timeWindow - now });
  }

  child(_routeOptions: unknown): this {
    return this;
  }

  /**
   * Bounded memory: arbitrary header values must not grow the map without limit.
   * Map order is oldest window first, so the windows dropped are the stalest.
   */
  private prune(): void {
    for (const key of this.windows.keys()) {
      if (this.windows.size <= MAX_KEYS) break;
      this.windows.delete(key);
    }
  }
}
