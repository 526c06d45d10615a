// One delivery attempt of one notification to one channel: the real I/O
// (HTTP, SMTP, a shell command), each bounded by a timeout and an abort
// signal. Errors are short fixed sentences: never a URL, a header or a
// password (they end up in logs and in `checkd channel list`).
import { spawn } from 'node:child_process';
import { substitute, headerSafe } from '../domain/templates.js';
import { isNoop, parseChannelValue, type ChannelSpec, type WebhookHalf } from '../domain/channel-values.js';
import {
  emailHtml,
  emailSubject,
  emailText,
  ntfyPayload,
  shellCommand,
  shellEnv,
  slackPayload,
  webhookValues,
  type Notification,
} from './message.js';
import type { ChannelRecord } from '../domain/types.js';
import type { NotifyConfig } from '../config/notify.js';
import { SECRET_ENV } from '../config/settings.js';
import { fetch as undiciFetch, type Agent } from 'undici';
import { isPrivateLiteral, PRIVATE_ADDRESS_CODE, PRIVATE_ADDRESS_ERROR, publicOnlyDispatcher } from './private-addresses.js';
import { sharedThrottle, type Throttle } from './throttle.js';
import type { FanOut } from './kinds/kind.js';
import { deliverIntegration } from './kinds/index.js';
import { isSuccessStatus, permanentByDefault } from './kinds/answer.js';
import type { DeliveryResult, HttpCall, HttpOutcome } from './delivery.js';

export type { DeliveryResult, HttpCall, HttpOutcome } from './delivery.js';

export type TransportSettings = Pick<
  NotifyConfig,
  'smtp' | 'allowShell' | 'timeoutMs' | 'shellTimeoutMs' | 'blockPrivateAddresses' | 'integrations'
>;

/** What a delivery may use beyond the settings; each has a default. */
export interface DeliveryExtras {
  /** Rate-limit buckets; default the daemon's shared ones. */
  throttle?: Throttle;
  /** The current time; default the wall clock. */
  now?: number;
  /** For a group channel: deliver to its members now (`checkd channel test`). */
  fanOut?: FanOut;
}

/** What an HTTP delivery needs of the settings. */
export type HttpSettings = Pick<NotifyConfig, 'timeoutMs' | 'blockPrivateAddresses'>;

const USER_AGENT = 'checkd';
/** The header of the IETF draft "The Idempotency-Key HTTP Header Field", on every webhook delivery. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const MAX_REDIRECTS = 3;

function fail(error: string, permanent = false): DeliveryResult {
  return { ok: false, error, permanent };
}

/** Deliver `n` through `channel`: one attempt, no retries. */
export async function deliver(
  channel: ChannelRecord,
  n: Notification,
  settings: TransportSettings,
  signal?: AbortSignal,
  extras: DeliveryExtras = {},
): Promise<DeliveryResult> {
  const parsed = parseChannelValue(channel.kind, channel.value);
  if (!parsed.ok) return fail(`Channel configuration is invalid: ${parsed.error}`, true);
  const spec = parsed.spec;
  if (isNoop(spec, n.event)) return { ok: true, noop: true };
  try {
    switch (spec.kind) {
      case 'webhook':
        return await deliverWebhook(spec[n.event], n, settings, signal);
      case 'slack':
      case 'discord':
        return await deliverSlack(spec, n, settings, signal);
      case 'ntfy':
        return await deliverNtfy(spec, n, settings, signal);
      case 'email':
        return await deliverEmail(spec.to, n, settings, signal);
      case 'shell':
        return await deliverShell(n.event === 'down' ? spec.cmdDown : spec.cmdUp, n, settings, signal);
      default:
        return await deliverIntegration(spec, n, {
          settings: settings.integrations,
          http: (call) => httpRequest(call, settings, signal),
          throttle: extras.throttle ?? sharedThrottle,
          now: extras.now ?? Date.now(),
          fanOut: extras.fanOut,
        });
    }
  } catch (err) {
    // A bug, not a transport error: report it without details that could hold secrets.
    return fail(`Delivery failed: ${(err as Error).name ?? 'Error'}`);
  }
}

// ---- HTTP ----------------------------------------------------------------------

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name.toLowerCase());
}

function describeFetchError(err: unknown, signal: AbortSignal | undefined): string {
  const e = err as Error & { cause?: { code?: string; name?: string } };
  if (signal?.aborted) return 'Delivery interrupted: checkd is shutting down';
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'Connection timed out';
  // fetch refuses the ports of the Fetch standard's "bad ports" list (25, 6000, ...).
  if ((e.cause as Error | undefined)?.message === 'bad port') return 'Connection failed: fetch does not allow this port';
  const code = e.cause?.code ?? (e as NodeJS.ErrnoException).code ?? '';
  if (code === PRIVATE_ADDRESS_CODE) return PRIVATE_ADDRESS_ERROR;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'Could not resolve host';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return 'Connection timed out';
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code)) return 'TLS handshake failed';
  if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED'].includes(code)) {
    return 'Connection failed';
  }
  return code ? `HTTP request failed, code: ${code}` : 'HTTP request failed';
}

/**
 * One HTTP request with the rules of notifications.md §4.4: at most 3
 * redirects and a timeout over the whole call. Any answer is returned as it
 * is; only a request that got no answer is an error.
 */
export async function httpRequest(call: HttpCall, settings: HttpSettings, signal?: AbortSignal): Promise<HttpOutcome> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
  let { method, url, body } = call;
  const headers = { ...call.headers };
  if (!hasHeader(headers, 'user-agent')) headers['User-Agent'] = USER_AGENT;
  try {
    // fetch refuses URLs with credentials: send them as Basic authentication instead.
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      if (!hasHeader(headers, 'authorization')) {
        const user = decodeURIComponent(parsed.username);
        const pass = decodeURIComponent(parsed.password);
        headers.Authorization = 'Basic ' + Buffer.from(`${user}:${pass}`, 'utf8').toString('base64');
      }
      parsed.username = '';
      parsed.password = '';
      url = parsed.toString();
    }
  } catch {
    return { ok: false, error: 'Invalid URL after filling in the placeholders', permanent: true };
  }
  for (let hop = 0; ; hop++) {
    let res: Response;
    let text: string;
    // Every hop, redirects included: an IP literal is connected to without DNS.
    if (settings.blockPrivateAddresses && isPrivateLiteral(new URL(url).hostname)) {
      return { ok: false, error: PRIVATE_ADDRESS_ERROR, permanent: true };
    }
    try {
      res = settings.blockPrivateAddresses
        ? ((await undiciFetch(url, { method, headers, body, redirect: 'manual', signal: combined, dispatcher: publicOnly() })) as unknown as Response)
        : await fetch(url, { method, headers, body, redirect: 'manual', signal: combined });
      text = await res.text();
    } catch (err) {
      const error = describeFetchError(err, signal);
      return { ok: false, error, permanent: error === PRIVATE_ADDRESS_ERROR };
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      if (hop >= MAX_REDIRECTS) return { ok: false, error: 'Too many redirects', permanent: false };
      url = new URL(res.headers.get('location')!, url).toString();
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method !== 'GET')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { ok: true, status: res.status, body: text, headers: res.headers };
  }
}

/**
 * One HTTP delivery: httpRequest, then success only on 200/201/202/204; a
 * 4xx other than 408 and 429 is permanent, as is what `permanentOn` says.
 */
export async function httpDeliver(
  call: HttpCall,
  settings: HttpSettings,
  signal?: AbortSignal,
  permanentOn?: (status: number, body: string) => boolean,
): Promise<DeliveryResult> {
  const res = await httpRequest(call, settings, signal);
  if (!res.ok) return fail(res.error, res.permanent);
  if (isSuccessStatus(res.status)) return { ok: true };
  const permanent = permanentByDefault(res.status) || (permanentOn?.(res.status, res.body) ?? false);
  return fail(`Received status code ${res.status}`, permanent);
}

let publicOnlyAgent: Agent | null = null;
/** One dispatcher for every guarded delivery, made on first use: its connections are pooled. */
function publicOnly(): Agent {
  return (publicOnlyAgent ??= publicOnlyDispatcher());
}

/** Whether a webhook body goes out as JSON: its Content-Type says so, or (none set) it looks like JSON. */
export function isJsonBody(half: WebhookHalf): boolean {
  const ct = Object.entries(half.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (ct !== undefined) return /json/i.test(ct);
  return /^\s*[[{]/.test(half.body);
}

/** The request a webhook half makes for a notification (exported for tests and docs). */
export function webhookCall(half: WebhookHalf, n: Notification): HttpCall {
  const headers: Record<string, string> = {};
  const headerValues = webhookValues(n, 'header');
  for (const [name, value] of Object.entries(half.headers)) headers[name] = headerSafe(substitute(value, headerValues));
  // Deliveries are at least once (a crash between sending and recording the
  // success repeats one): the key lets a receiver drop the repeat.
  if (!hasHeader(headers, IDEMPOTENCY_HEADER)) headers[IDEMPOTENCY_HEADER] = n.deliveryId;
  const call: HttpCall = { method: half.method, url: substitute(half.url, webhookValues(n, 'url')), headers };
  if (half.method !== 'GET' && half.body !== '') {
    call.body = Buffer.from(substitute(half.body, webhookValues(n, 'body', isJsonBody(half))), 'utf8');
  }
  return call;
}

async function deliverWebhook(half: WebhookHalf, n: Notification, s: TransportSettings, signal?: AbortSignal) {
  return httpDeliver(webhookCall(half, n), s, signal);
}

/** Discord takes Slack's format at `<webhook URL>/slack`. */
export function discordSlackUrl(url: string): string {
  const u = new URL(url);
  if (!u.pathname.replace(/\/+$/, '').endsWith('/slack')) u.pathname = u.pathname.replace(/\/+$/, '') + '/slack';
  return u.toString();
}

async function deliverSlack(
  spec: Extract<ChannelSpec, { kind: 'slack' | 'discord' }>,
  n: Notification,
  s: TransportSettings,
  signal?: AbortSignal,
) {
  const url = spec.kind === 'discord' ? discordSlackUrl(spec.url) : spec.url;
  return httpDeliver(
    {
      method: 'POST',
      url,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(slackPayload(n, spec.kind)),
    },
    s,
    signal,
    // Slack: a revoked or wrong token does not come back.
    (status, body) => status === 400 && /invalid_token|no_service|channel_not_found/.test(body),
  );
}

async function deliverNtfy(spec: Extract<ChannelSpec, { kind: 'ntfy' }>, n: Notification, s: TransportSettings, signal?: AbortSignal) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (spec.token !== '') headers.Authorization = `Bearer ${spec.token}`;
  const priority = n.event === 'down' ? spec.priority : spec.priorityUp;
  return httpDeliver(
    { method: 'POST', url: spec.url, headers, body: JSON.stringify(ntfyPayload(n, spec.topic, priority)) },
    s,
    signal,
  );
}

// ---- e-mail --------------------------------------------------------------------

/** Strips what could identify credentials from an SMTP error message. */
function smtpError(err: unknown, secrets: string[]): string {
  const e = err as Error & { code?: string; responseCode?: number; response?: string };
  let text: string;
  if (e.code === 'EAUTH') text = `SMTP authentication failed${e.responseCode ? ` (${e.responseCode})` : ''}`;
  else if (e.code === 'ETIMEDOUT') text = 'SMTP connection timed out';
  else if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'EDNS') text = `SMTP connection failed: ${e.message}`;
  else if (e.responseCode) text = `SMTP server refused the message: ${e.response ?? e.responseCode}`;
  else text = `SMTP delivery failed: ${e.message}`;
  for (const secret of secrets) if (secret.length >= 3) text = text.split(secret).join('***');
  return text.slice(0, 500);
}

async function deliverEmail(to: string, n: Notification, s: TransportSettings, signal?: AbortSignal): Promise<DeliveryResult> {
  if (!s.smtp) return fail('SMTP is not configured (start checkd serve with --smtp-url)', true);
  const url = new URL(s.smtp.url);
  const secrets = [decodeURIComponent(url.password), url.password];
  // Loaded on first use: a daemon without email channels never pays for it.
  const nodemailer = (await import('nodemailer')).default;
  const transport = nodemailer.createTransport({
    url: s.smtp.url,
    connectionTimeout: s.timeoutMs,
    greetingTimeout: s.timeoutMs,
    socketTimeout: s.timeoutMs,
    logger: false,
    debug: false,
  });
  const onAbort = () => transport.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const sent = transport.sendMail({
      from: s.smtp.from,
      to,
      subject: emailSubject(n),
      text: emailText(n),
      html: emailHtml(n),
      headers: { 'X-Checkd-Check': n.check.uuid, 'X-Checkd-Status': n.event },
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), s.timeoutMs * 2);
    });
    await Promise.race([sent, timedOut]);
    return { ok: true };
  } catch (err) {
    if (signal?.aborted) return fail('Delivery interrupted: checkd is shutting down');
    const e = err as { responseCode?: number };
    // 5xx answers to the envelope or the data are final; 4xx are "try later".
    const permanent = e.responseCode !== undefined && e.responseCode >= 500;
    return fail(smtpError(err, secrets), permanent);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    transport.close();
  }
}

// ---- shell ---------------------------------------------------------------------

async function deliverShell(template: string, n: Notification, s: TransportSettings, signal?: AbortSignal): Promise<DeliveryResult> {
  if (!s.allowShell) return fail('Shell commands are not enabled', true);
  const command = shellCommand(template, n);
  const env: NodeJS.ProcessEnv = { ...process.env, ...shellEnv(n) };
  // Daemon secrets must not reach a user's command.
  for (const name of SECRET_ENV) delete env[name];
  return new Promise<DeliveryResult>((resolve) => {
    // Its own process group, so a timeout kills the command's children too.
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: 'ignore', detached: true });
    let settled = false;
    const finish = (r: DeliveryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish(fail(`Command timed out after ${s.shellTimeoutMs} ms`));
    }, s.shellTimeoutMs);
    const onAbort = () => {
      kill();
      finish(fail('Delivery interrupted: checkd is shutting down'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => finish(fail(`Command could not be started: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
    child.on('exit', (code, sig) => {
      if (code === 0) finish({ ok: true });
      else if (code !== null) finish(fail(`Command returned exit code ${code}`));
      else finish(fail(`Command was killed by ${sig}`));
    });
  });
}
