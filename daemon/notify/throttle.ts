// Client-side rate limits of the services that state one (Telegram, Pushover,
// Google Chat, Zulip): a token bucket per destination. A delivery over the
// limit is not sent and not failed: the notifier tries it again when the
// bucket has a token, so a burst of flips arrives late instead of not at all.

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateLimit {
  /** Messages allowed in a burst; the bucket refills completely in `windowMs`. */
  capacity: number;
  windowMs: number;
}

/** Buckets untouched for this long are full again and can be forgotten. */
const FORGET_AFTER_MS = 3600_000;

export class Throttle {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  /**
   * Take a token for `key` at `now`: 0 when the message may go now, otherwise
   * the milliseconds until a token will be there (nothing is taken then).
   */
  take(key: string, limit: RateLimit, now: number): number {
    this.sweep(now);
    const rate = limit.capacity / limit.windowMs;
    const b = this.buckets.get(key) ?? { tokens: limit.capacity, at: now };
    b.tokens = Math.min(limit.capacity, b.tokens + Math.max(0, now - b.at) * rate);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / rate);
  }

  private sweep(now: number): void {
    if (Math.abs(now - this.lastSweep) < FORGET_AFTER_MS) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) if (now - b.at > FORGET_AFTER_MS) this.buckets.delete(key);
  }
}

/** The daemon's buckets (one process, one set of limits). */
export const sharedThrottle = new Throttle();
