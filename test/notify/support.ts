// Shared pieces of the notification suite: real receivers on 127.0.0.1 (an
// HTTP server that records every request, an SMTP server that records every
// message; both closed at cleanup), a way to make channels, and flips.
// Not a test file itself.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { validateChannel } from '../../daemon/domain/channel-kinds.js';
import type { ChannelRecord } from '../../daemon/domain/types.js';
import { onCleanup } from '../helpers/cleanup.js';
import { ping } from '../helpers/http.js';
import type { InProcessDaemon, TestProject } from '../helpers/in-process.js';
import { waitFor } from '../helpers/wait.js';

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface HttpReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decide the answer per request (default 200 "ok"). */
  respond: Responder;
  /** Answer with `respond` for the rest of the current test (the default again at cleanup). */
  respondWith(respond: Responder): void;
  /** Requests whose path starts with `prefix`. */
  on(prefix: string): ReceivedRequest[];
  waitFor(pred: (reqs: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  body?: string;
  /** Content-Type is text/plain unless given here. */
  headers?: Record<string, string>;
  /** Answer this much later. */
  delayMs?: number;
}

export type Responder = (req: ReceivedRequest) => Answer | undefined;

/**
 * An HTTP server on 127.0.0.1 (`port`, default a free one) that records every
 * request and answers as `respond` says, else as `base` says, else 200 "ok".
 */
export async function startHttpReceiver(port = 0, base: (req: ReceivedRequest) => Answer = () => ({ status: 200, body: 'ok' })): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let closed: Promise<void> | undefined;
  const receiver: HttpReceiver = {
    url: '',
    port: 0,
    requests,
    respond: () => undefined,
    respondWith(respond) {
      receiver.respond = respond;
      onCleanup(() => (receiver.respond = () => undefined));
    },
    on: (prefix) => requests.filter((r) => r.url.startsWith(prefix)),
    waitFor: async (pred, timeoutMs = 10_000) => {
      await waitFor(() => pred(requests), {
        timeout: timeoutMs,
        what: () => `requests: ${JSON.stringify(requests.map((r) => `${r.method} ${r.url}`))}`,
      });
    },
    close: () =>
      (closed ??= (async () => {
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => server.close(() => r()));
      })()),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const rec: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(rec);
      const answer = receiver.respond(rec) ?? base(rec);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'Content-Type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  onCleanup(() => receiver.close());
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The text/plain part, transfer-decoded. */
  text: string;
  auth: { user: string; pass: string } | null;
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  waitFor(n: number, timeoutMs?: number): Promise<void>;
}

/** A real SMTP server (smtp-server) without TLS, accepting user "alice" / password "s3cret-pw"; closed at cleanup. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, session, cb) {
      if (auth.username === 'alice' && auth.password === 's3cret-pw') {
        (session as unknown as { creds: unknown }).creds = { user: auth.username, pass: auth.password };
        return cb(null, { user: auth.username });
      }
      return cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: decodeWords(headerOf(raw, 'subject')),
          text: textPart(raw).replace(/\r\n/g, '\n'),
          auth: ((session as unknown as { creds?: { user: string; pass: string } }).creds ?? null),
        });
        cb();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  onCleanup(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    waitFor: async (n, timeoutMs = 10_000) => {
      await waitFor(() => mails.length >= n, { timeout: timeoutMs, what: () => `mail ${n} (${mails.length} so far)` });
    },
  };
}

/** An unfolded header value of a raw message. */
export function headerOf(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(name.toLowerCase() + ':'));
  return line ? line.slice(name.length + 1).trim() : '';
}

/** RFC 2047 encoded words (B and Q) in a header value. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

function decodeTransfer(body: string, encoding: string): string {
  const enc = encoding.toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** The text/plain part of a (possibly multipart) message. */
export function textPart(raw: string): string {
  const ct = headerOf(raw, 'content-type');
  const boundary = /boundary="?([^";]+)"?/i.exec(ct)?.[1];
  if (!boundary) {
    const body = raw.split(/\r?\n\r?\n/).slice(1).join('\r\n\r\n');
    return decodeTransfer(body, headerOf(raw, 'content-transfer-encoding'));
  }
  for (const part of raw.split('--' + boundary).slice(1)) {
    const trimmed = part.replace(/^\r?\n/, '');
    if (/^content-type:\s*multipart/im.test(trimmed.split(/\r?\n\r?\n/)[0] ?? '')) {
      const inner = textPart(trimmed);
      if (inner) return inner;
    }
    if (/^content-type:\s*text\/plain/im.test(trimmed.split(/\r?\n\r?\n/)[0] ?? '')) {
      const body = trimmed.split(/\r?\n\r?\n/).slice(1).join('\r\n\r\n').replace(/\r?\n$/, '');
      return decodeTransfer(body, headerOf(trimmed, 'content-transfer-encoding'));
    }
  }
  return '';
}

/** Create a channel the way `checkd channel create` does (validated first). */
export async function makeChannel(
  d: InProcessDaemon,
  p: TestProject,
  kind: string,
  value: string,
  name = '',
): Promise<ChannelRecord> {
  const checked = validateChannel(kind, value);
  if (!checked.ok) throw new Error(checked.error);
  return d.daemon.store.createChannel({ projectId: p.id, kind, name, value: checked.value }, Date.now());
}

/** Up (a success ping), then down at once (a fail ping): one "down" notification. */
export async function goDown(url: string, uuid: string, body?: string): Promise<void> {
  await ping(url, uuid);
  await ping(url, `${uuid}/fail`, { body });
}
