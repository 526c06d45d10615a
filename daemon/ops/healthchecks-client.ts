// An HTTP client of the Healthchecks management API v3 (hosted, self-hosted,
// or another checkd, which speaks the same API) for `checkd import
// --from-healthchecks`: GET requests with the project's key, each under a
// timeout, retried with backoff when the server rate-limits (429, honouring
// Retry-After) or fails for a moment (502, 503, 504, a dropped connection).
// Errors say what to do: a bad URL or a refused key is a UsageError (exit 2),
// a server that cannot be used an OpsError (exit 1).
import { setTimeout as delay } from 'node:timers/promises';
import { UsageError } from '../cli/admin.js';
import { OpsError } from './errors.js';

export interface ClientOptions {
  /** Per request, until the whole response is read. */
  timeoutMs?: number;
  /** Retries of one request after a 429, before giving up. */
  rateLimitRetries?: number;
  /** Retries of one request after a timeout, a dropped connection or a 502/503/504. */
  failureRetries?: number;
  /** The longest wait a Retry-After may ask for; a longer one gives up at once. */
  maxWaitMs?: number;
  /** Told before each wait, e.g. to say so on stderr. */
  onWait?: (ms: number, why: string) => void;
}

const DEFAULTS: Required<Omit<ClientOptions, 'onWait'>> = {
  timeoutMs: 30_000,
  rateLimitRetries: 8,
  failureRetries: 3,
  maxWaitMs: 120_000,
};

/** The first wait after a 429 without Retry-After, or after a failure; doubled each time. */
const FIRST_BACKOFF_MS = 1000;

/** The API key was refused (401): wrong, revoked, or read-only on a read-write endpoint. */
export class KeyRefusedError extends UsageError {}

/**
 * The API base of the URL a user gives: the site's root, with or without a
 * trailing slash or the `/api/v3` part. Throws a UsageError for anything else.
 */
export function apiBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new UsageError(`--from-healthchecks must be an http(s) URL such as https://healthchecks.io, got "${url}"`);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw new UsageError(`--from-healthchecks must be an http(s) URL such as https://healthchecks.io, got "${url}"`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new UsageError(`--from-healthchecks takes the site's address only (no query, fragment or credentials), got "${url}"`);
  }
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v3$/, '');
  return `${parsed.origin}${path}/api/v3`;
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Network errors worth another try; a refused connection or an unknown host is not. */
function isPassing(err: unknown): boolean {
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError') return true;
  return ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes(e.cause?.code ?? '');
}

function describeNetworkError(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'no answer in time';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

export class HealthchecksClient {
  private readonly opts: Required<Omit<ClientOptions, 'onWait'>> & Pick<ClientOptions, 'onWait'>;

  constructor(
    /** From apiBase: ends in /api/v3. */
    readonly base: string,
    private readonly apiKey: string,
    opts: ClientOptions = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** GET a JSON document under the API base (`path` starts with a slash). */
  async json(path: string): Promise<unknown> {
    const { value: text, url } = await this.get(path, (res) => res.text());
    try {
      return JSON.parse(text!);
    } catch {
      throw new OpsError(`${url} did not answer JSON: is ${this.site()} a Healthchecks or checkd server?`);
    }
  }

  /** GET raw bytes (a ping body); null for a 404 (gone meanwhile, or no body). */
  async bytes(path: string): Promise<Uint8Array | null> {
    return (await this.get(path, async (res) => new Uint8Array(await res.arrayBuffer()), { notFound: true })).value;
  }

  private site(): string {
    return this.base.replace(/\/api\/v3$/, '');
  }

  private async get<T>(
    path: string,
    read: (res: Response) => Promise<T>,
    opts: { notFound?: boolean } = {},
  ): Promise<{ value: T | null; url: string }> {
    const url = this.base + path;
    let rateLimited = 0;
    let failed = 0;
    for (;;) {
      let res: Response;
      let value: T | null = null;
      try {
        // The key goes to this server only: a redirect is reported, never followed.
        res = await fetch(url, {
          headers: { 'X-Api-Key': this.apiKey, Accept: 'application/json' },
          redirect: 'manual',
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        });
        if (res.status === 200) value = await read(res);
        else await res.body?.cancel();
      } catch (err) {
        if (isPassing(err) && failed < this.opts.failureRetries) {
          await this.wait(FIRST_BACKOFF_MS * 2 ** failed++, `${describeNetworkError(err)} from ${url}`);
          continue;
        }
        throw new OpsError(`cannot read ${url}: ${describeNetworkError(err)}${failed > 0 ? ` (after ${failed + 1} tries)` : ''}`);
      }
      if (res.status === 200) return { value, url };
      if (res.status === 429) {
        const asked = retryAfterMs(res.headers.get('retry-after'), Date.now());
        if (asked !== null && asked > this.opts.maxWaitMs) {
          throw new OpsError(`${this.site()} rate-limits the import and asks to wait ${Math.ceil(asked / 1000)} s: try again later`);
        }
        if (rateLimited >= this.opts.rateLimitRetries) {
          throw new OpsError(`${this.site()} still rate-limits the import after ${rateLimited} waits: try again later`);
        }
        const ms = asked ?? Math.min(FIRST_BACKOFF_MS * 2 ** rateLimited, this.opts.maxWaitMs);
        rateLimited++;
        await this.wait(ms, `rate-limited by ${this.site()} (429)`);
        continue;
      }
      if ((res.status === 502 || res.status === 503 || res.status === 504) && failed < this.opts.failureRetries) {
        await this.wait(FIRST_BACKOFF_MS * 2 ** failed++, `${res.status} from ${url}`);
        continue;
      }
      if (res.status === 404 && opts.notFound) return { value: null, url };
      throw this.statusError(res, url);
    }
  }

  private async wait(ms: number, why: string): Promise<void> {
    this.opts.onWait?.(ms, why);
    await delay(ms);
  }

  private statusError(res: Response, url: string): Error {
    const status = res.status;
    if (status === 401) {
      return new KeyRefusedError(
        `${this.site()} refused the API key (401): give a read-write API key of the project (in Healthchecks: the project's Settings, API Access)`,
      );
    }
    if (status >= 300 && status < 400) {
      const to = res.headers.get('location');
      const target = to ? new URL(to, url).toString().replace(/\/api\/v3\/.*$/, '') : null;
      return new OpsError(`${url} redirects${target ? ` to ${target}` : ''} (${status})${target ? `: pass --from-healthchecks ${target}` : ''}`);
    }
    if (status === 404) return new OpsError(`${url} gave 404: is ${this.site()} the address of a Healthchecks or checkd server (API v3)?`);
    if (status === 403) return new OpsError(`${url} gave 403: the API key's project has no access to it`);
    return new OpsError(`${url} gave ${status}${status >= 500 ? ': the server failed, try again later' : ''}`);
  }
}
