// The two request shapes the service integrations send: a JSON document and
// an urlencoded form (Pushover, Zulip). Pure.
import type { HttpCall } from '../delivery.js';

export function jsonCall(method: 'POST' | 'PUT', url: string, payload: unknown, headers: Record<string, string> = {}): HttpCall {
  return { method, url, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(payload) };
}

export function formCall(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): HttpCall {
  return {
    method: 'POST',
    url,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  };
}

/** A base URL and a path, with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}
