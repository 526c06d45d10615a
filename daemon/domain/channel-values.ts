// The `--value` formats of the channel kinds (docs/notifications.md) and their
// parsing into what the notifier delivers with. Each kind has a plain form (an
// address, a URL or a command) and, where there is more to say, a JSON object
// that follows upstream's stored format (notifications.md §8). Pure: no I/O.
import { isHeaderName } from './templates.js';
import { bool, int, isHttpUrl, onlyKeys, parseJsonObject, str, ValueError } from './value-rules.js';
import { isIntegrationKind, parseIntegrationValue, type IntegrationSpec } from './integrations/index.js';
import { PO_OFF } from './integrations/po.js';

export type NotifyEventName = 'down' | 'up';

export type WebhookMethod = 'GET' | 'POST' | 'PUT';

export interface WebhookHalf {
  method: WebhookMethod;
  /** Empty: this event is a no-op. */
  url: string;
  body: string;
  headers: Record<string, string>;
}

export type ChannelSpec =
  | { kind: 'webhook'; down: WebhookHalf; up: WebhookHalf }
  | { kind: 'email'; to: string; down: boolean; up: boolean }
  | { kind: 'shell'; cmdDown: string; cmdUp: string }
  | { kind: 'slack'; url: string }
  | { kind: 'discord'; url: string }
  | { kind: 'ntfy'; url: string; topic: string; priority: number; priorityUp: number; token: string }
  /** The service integrations, each parsed by its module in integrations/. */
  | IntegrationSpec;

export type ParsedValue = { ok: true; spec: ChannelSpec } | { ok: false; error: string };

/** Same shape as channel-kinds' ChannelCheck (kept separate to avoid an import cycle). */
export type ValueCheck = { ok: true; value: string } | { ok: false; error: string };

const EMAIL_RE = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const NTFY_TOPIC_RE = /^[-_A-Za-z0-9]{1,64}$/;
const MAX_PART = 1000;

// ---- webhook -----------------------------------------------------------------

const WEBHOOK_KEYS = ['method_down', 'url_down', 'body_down', 'headers_down', 'method_up', 'url_up', 'body_up', 'headers_up'];

function webhookHalf(doc: Record<string, unknown>, event: NotifyEventName): WebhookHalf {
  const k = 'webhook';
  const rawMethod = str(k, doc, `method_${event}`, 'GET').toUpperCase();
  if (rawMethod !== 'GET' && rawMethod !== 'POST' && rawMethod !== 'PUT') {
    throw new ValueError(`--value for a webhook channel: "method_${event}" must be GET, POST or PUT`);
  }
  const method = rawMethod as WebhookMethod;
  const url = str(k, doc, `url_${event}`, '').trim();
  if (url.length > MAX_PART) throw new ValueError(`--value for a webhook channel: "url_${event}" is longer than ${MAX_PART} characters`);
  if (url !== '' && !isHttpUrl(url)) {
    throw new ValueError(`--value for a webhook channel: "url_${event}" must be an http(s) URL, got "${url}"`);
  }
  const body = str(k, doc, `body_${event}`, '');
  if (body.length > MAX_PART) throw new ValueError(`--value for a webhook channel: "body_${event}" is longer than ${MAX_PART} characters`);
  if (body !== '' && method === 'GET') {
    throw new ValueError(`--value for a webhook channel: "body_${event}" is only sent with POST or PUT; set "method_${event}"`);
  }
  const rawHeaders = doc[`headers_${event}`];
  const headers: Record<string, string> = {};
  if (rawHeaders !== undefined && rawHeaders !== null) {
    if (typeof rawHeaders !== 'object' || Array.isArray(rawHeaders)) {
      throw new ValueError(`--value for a webhook channel: "headers_${event}" must be an object of name: value`);
    }
    for (const [name, value] of Object.entries(rawHeaders as Record<string, unknown>)) {
      if (!isHeaderName(name) || name.length > MAX_PART) {
        throw new ValueError(`--value for a webhook channel: "${name}" in "headers_${event}" is not a valid header name`);
      }
      if (typeof value !== 'string') {
        throw new ValueError(`--value for a webhook channel: header "${name}" in "headers_${event}" must be a string`);
      }
      if (value.length > MAX_PART || /[\r\n\0]/.test(value)) {
        throw new ValueError(
          `--value for a webhook channel: header "${name}" in "headers_${event}" must be at most ${MAX_PART} characters on one line`,
        );
      }
      headers[name] = value;
    }
  }
  return { method, url, body, headers };
}

function parseWebhook(value: string): ChannelSpec {
  if (!value.startsWith('{')) {
    if (!isHttpUrl(value) || value.length > MAX_PART) {
      throw new ValueError(
        `--value for a webhook channel must be an http(s) URL (GET on both events) or a JSON object with url_down/url_up..., got "${value}"`,
      );
    }
    const half = (): WebhookHalf => ({ method: 'GET', url: value, body: '', headers: {} });
    return { kind: 'webhook', down: half(), up: half() };
  }
  const doc = parseJsonObject('webhook', value);
  onlyKeys('webhook', doc, WEBHOOK_KEYS);
  const down = webhookHalf(doc, 'down');
  const up = webhookHalf(doc, 'up');
  if (down.url === '' && up.url === '') {
    throw new ValueError('--value for a webhook channel: at least one of "url_down" and "url_up" must be an http(s) URL');
  }
  return { kind: 'webhook', down, up };
}

// ---- the other kinds -----------------------------------------------------------

function parseEmail(value: string): ChannelSpec {
  if (!value.startsWith('{')) {
    if (!EMAIL_RE.test(value)) throw new ValueError(`--value for an email channel must be an email address, got "${value}"`);
    return { kind: 'email', to: value, down: true, up: true };
  }
  const doc = parseJsonObject('email', value);
  onlyKeys('email', doc, ['value', 'up', 'down']);
  const to = str('email', doc, 'value', '').trim();
  if (!EMAIL_RE.test(to)) throw new ValueError(`--value for an email channel: "value" must be an email address, got "${to}"`);
  const down = bool('email', doc, 'down', true);
  const up = bool('email', doc, 'up', true);
  if (!down && !up) throw new ValueError('--value for an email channel: at least one of "down" and "up" must be true');
  return { kind: 'email', to, down, up };
}

/** A shell value is JSON when it is a JSON object; `{ cmd; }` is a command. */
function shellIsJson(value: string): boolean {
  if (value.startsWith('{"')) return true;
  if (!value.startsWith('{')) return false;
  try {
    const doc: unknown = JSON.parse(value);
    return typeof doc === 'object' && doc !== null;
  } catch {
    return false;
  }
}

function parseShell(value: string): ChannelSpec {
  if (!shellIsJson(value)) {
    if (value.trim() === '') throw new ValueError('--value for a shell channel must be the command to run');
    return { kind: 'shell', cmdDown: value, cmdUp: value };
  }
  const doc = parseJsonObject('shell', value);
  onlyKeys('shell', doc, ['cmd_down', 'cmd_up']);
  const cmdDown = str('shell', doc, 'cmd_down', '');
  const cmdUp = str('shell', doc, 'cmd_up', '');
  if (cmdDown.trim() === '' && cmdUp.trim() === '') {
    throw new ValueError('--value for a shell channel: at least one of "cmd_down" and "cmd_up" must be a command');
  }
  return { kind: 'shell', cmdDown: cmdDown.trim() === '' ? '' : cmdDown, cmdUp: cmdUp.trim() === '' ? '' : cmdUp };
}

function parseHookUrl(kind: 'slack' | 'discord', value: string): ChannelSpec {
  if (!isHttpUrl(value)) {
    throw new ValueError(`--value for a ${kind} channel must be an http(s) URL (the incoming webhook), got "${value}"`);
  }
  return { kind, url: value };
}

function parseNtfy(value: string): ChannelSpec {
  if (!value.startsWith('{')) {
    if (!isHttpUrl(value)) {
      throw new ValueError(`--value for a ntfy channel must be an http(s) URL of the topic or a JSON object, got "${value}"`);
    }
    const url = new URL(value);
    const segments = url.pathname.split('/');
    const topic = segments.pop() ?? '';
    if (url.search !== '' || url.hash !== '' || !NTFY_TOPIC_RE.test(topic)) {
      throw new ValueError(
        `--value for a ntfy channel: the http(s) URL must end with the topic (like https://ntfy.sh/my-topic), got "${value}"`,
      );
    }
    url.pathname = segments.join('/') + '/';
    return { kind: 'ntfy', url: url.toString(), topic, priority: 5, priorityUp: 3, token: '' };
  }
  const doc = parseJsonObject('ntfy', value);
  onlyKeys('ntfy', doc, ['url', 'topic', 'priority', 'priority_up', 'token']);
  const url = str('ntfy', doc, 'url', 'https://ntfy.sh').trim();
  if (!isHttpUrl(url)) throw new ValueError(`--value for a ntfy channel: "url" must be an http(s) URL of the server, got "${url}"`);
  const topic = str('ntfy', doc, 'topic', '');
  if (!NTFY_TOPIC_RE.test(topic)) {
    throw new ValueError('--value for a ntfy channel: "topic" must be 1-64 letters, digits, "-" or "_"');
  }
  const priority = int('ntfy', doc, 'priority', 5, 0, 5);
  const priorityUp = int('ntfy', doc, 'priority_up', 3, 0, 5);
  if (priority === 0 && priorityUp === 0) {
    throw new ValueError('--value for a ntfy channel: "priority" and "priority_up" are both 0 (off)');
  }
  const token = str('ntfy', doc, 'token', '');
  if (/[\r\n\0]/.test(token)) throw new ValueError('--value for a ntfy channel: "token" must be on one line');
  return { kind: 'ntfy', url: url.endsWith('/') ? url : url + '/', topic, priority, priorityUp, token };
}

/** Parse a stored (or about to be stored) channel value. */
export function parseChannelValue(kind: string, rawValue: string): ParsedValue {
  const value = rawValue.trim();
  try {
    switch (kind) {
      case 'webhook':
        return { ok: true, spec: parseWebhook(value) };
      case 'email':
        return { ok: true, spec: parseEmail(value) };
      case 'shell':
        return { ok: true, spec: parseShell(value) };
      case 'slack':
      case 'discord':
        return { ok: true, spec: parseHookUrl(kind, value) };
      case 'ntfy':
        return { ok: true, spec: parseNtfy(value) };
      default:
        if (isIntegrationKind(kind)) return { ok: true, spec: parseIntegrationValue(kind, value) };
        return { ok: false, error: `channel kind "${kind}" cannot be delivered to` };
    }
  } catch (err) {
    if (err instanceof ValueError) return { ok: false, error: err.message };
    throw err;
  }
}

/**
 * The checks channel-kinds' `validateChannel` cannot make by itself: the JSON
 * forms, the ntfy topic and every service integration. Null when the plain
 * checks there decide.
 */
export function checkStructuredValue(kind: string, value: string): ValueCheck | null {
  const structured =
    isIntegrationKind(kind) ||
    ((kind === 'webhook' || kind === 'email' || kind === 'ntfy') && value.startsWith('{')) ||
    (kind === 'shell' && shellIsJson(value)) ||
    (kind === 'ntfy' && isHttpUrl(value)) ||
    (kind === 'webhook' && isHttpUrl(value) && value.length > MAX_PART);
  if (!structured) return null;
  const parsed = parseChannelValue(kind, value);
  return parsed.ok ? { ok: true, value } : parsed;
}

/** Whether this channel is configured to ignore the event (no delivery, no record). */
export function isNoop(spec: ChannelSpec, event: NotifyEventName): boolean {
  switch (spec.kind) {
    case 'webhook':
      return spec[event].url === '';
    case 'email':
      return !spec[event];
    case 'shell':
      return (event === 'down' ? spec.cmdDown : spec.cmdUp) === '';
    case 'ntfy':
      return (event === 'down' ? spec.priority : spec.priorityUp) === 0;
    case 'po':
      return (event === 'down' ? spec.priority : spec.priorityUp) === PO_OFF;
    case 'gotify':
      return (event === 'down' ? spec.priority : spec.priorityUp) === 0;
    default:
      return false;
  }
}
