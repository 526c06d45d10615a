// Shared pieces of the e-mail ping suite: a real SMTP client (nodemailer) that
// hands a message as written to checkd's SMTP port, and cron-like messages.
// Not a test file itself.
import nodemailer from 'nodemailer';

export interface SmtpAnswer {
  /** The final reply line, e.g. `250 OK`. */
  response: string;
  accepted: string[];
  rejected: string[];
}

export interface SmtpRefusal {
  responseCode?: number;
  response?: string;
  /** Per rejected recipient, when RCPT refused some. */
  rejectedErrors?: Array<{ recipient: string; response: string; responseCode: number }>;
}

/**
 * Deliver `raw` (the message exactly as given) to `to` over SMTP on `address`
 * (HOST:PORT). Resolves with the server's final answer; rejects with
 * nodemailer's error (responseCode, response) when the server refuses.
 */
export async function sendRaw(address: string, from: string, to: string[], raw: string | Buffer): Promise<SmtpAnswer> {
  const [host, port] = splitHostPort(address);
  const transport = nodemailer.createTransport({
    host,
    port,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail({ envelope: { from, to }, raw });
    return {
      response: info.response,
      accepted: (info.accepted as string[]).map(String),
      rejected: (info.rejected as string[]).map(String),
    };
  } finally {
    transport.close();
  }
}

/** The refusal `sendRaw` rejected with. */
export async function refusalOf(promise: Promise<unknown>): Promise<SmtpRefusal> {
  try {
    await promise;
  } catch (err) {
    return err as SmtpRefusal;
  }
  throw new Error('expected the server to refuse the message');
}

function splitHostPort(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at).replace(/^\[|\]$/g, ''), Number(address.slice(at + 1))];
}

/** A message as cron writes it: `Subject: Cron <user@host> command`, the job's output as the body. */
export function cronMessage(opts: { to: string; subject?: string; body: string; headers?: string[] }): string {
  return [
    'From: "(Cron Daemon)" <root@backup-host>',
    `To: ${opts.to}`,
    `Subject: ${opts.subject ?? 'Cron <root@backup-host> /usr/local/bin/backup.sh'}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: 8bit',
    'X-Cron-Env: <SHELL=/bin/sh>',
    'X-Cron-Env: <HOME=/root>',
    ...(opts.headers ?? []),
    'Date: Tue, 25 Nov 2025 03:00:01 +0000',
    '',
    opts.body,
    '',
  ].join('\r\n');
}

/** A message of the given headers and body, lines joined with CRLF. */
export function message(headers: string[], body: string): string {
  return [...headers, '', body, ''].join('\r\n');
}
