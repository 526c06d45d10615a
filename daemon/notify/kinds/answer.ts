// Reading a service's answer into a delivery result, the same way for every
// integration: success is 200, 201, 202 or 204; the error names the status and,
// when the service said why, its words; what may be retried follows one rule
// (below) that a kind can override for the answers its service documents.
import type { DeliveryResult, HttpOutcome } from '../delivery.js';

const SUCCESS_CODES = new Set([200, 201, 202, 204]);

/** Whether a status is one of the successes of notifications.md §4.4. */
export function isSuccessStatus(status: number): boolean {
  return SUCCESS_CODES.has(status);
}

export interface AnswerRules {
  /** The service's own explanation in an error body, or null. */
  message?(body: string): string | null;
  /** true: permanent; false: worth retrying; undefined: the default rule decides. */
  permanent?(status: number, body: string): boolean | undefined;
  /** A wait the body asks for (Telegram `retry_after`, Matrix `retry_after_ms`), in ms. */
  retryAfterMs?(status: number, body: string): number | undefined;
}

/** Longest service message kept in an error (it ends up in logs and `checkd channel list`). */
const MAX_MESSAGE = 200;

/** The parsed JSON body, or undefined when it is not JSON. */
export function jsonBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** `doc[key]` when `doc` is an object, else undefined. */
export function member(doc: unknown, key: string): unknown {
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>)[key] : undefined;
}

/** A string member of a JSON body, or null. */
export function jsonString(body: string, ...path: string[]): string | null {
  let v: unknown = jsonBody(body);
  for (const key of path) v = member(v, key);
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * The default rule: a 4xx other than 408 and 429 means the request or the
 * channel's configuration is wrong, and sending it again gets the same answer;
 * 408, 429, 5xx and no answer at all may pass later.
 */
export function permanentByDefault(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Retry-After as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterHeader(headers: Headers, now: number): number | undefined {
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function clean(message: string): string {
  const one = message.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  return one.length > MAX_MESSAGE ? one.slice(0, MAX_MESSAGE - 1) + '…' : one;
}

/** `Received status code N`, with the service's message when there is one. */
export function statusError(status: number, message: string | null): string {
  return message ? `Received status code ${status} with a message: "${clean(message)}"` : `Received status code ${status}`;
}

export function readAnswer(res: HttpOutcome, now: number, rules: AnswerRules = {}): DeliveryResult {
  if (!res.ok) return { ok: false, error: res.error, permanent: res.permanent };
  if (isSuccessStatus(res.status)) return { ok: true };
  const permanent = rules.permanent?.(res.status, res.body) ?? permanentByDefault(res.status);
  const retryAfterMs = permanent ? undefined : (rules.retryAfterMs?.(res.status, res.body) ?? retryAfterHeader(res.headers, now));
  return {
    ok: false,
    error: statusError(res.status, rules.message?.(res.body) ?? null),
    permanent,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/** A delivery over a rate limit checkd keeps for the service: not sent, tried again when allowed. */
export function rateLimited(waitMs: number, what: string): DeliveryResult {
  return { ok: false, error: `Rate limit exceeded (${what})`, permanent: false, retryAfterMs: waitMs };
}

/** A kind whose daemon setting is missing: not sent, not retried. */
export function notEnabled(service: string): DeliveryResult {
  return { ok: false, error: `${service} notifications are not enabled.`, permanent: true };
}
