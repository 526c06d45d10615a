// `checkd sendmail`: a sendmail(8) stand-in for a machine without an MTA, so
// that cron's mail (MAILTO=<uuid>@<ping domain>) still reaches checkd. It reads
// one message on stdin, takes the recipients from its arguments or, with -t,
// from the To/Cc/Bcc headers, and hands it to the daemon's SMTP listener.
// Nothing is queued: a message checkd does not take fails here, and a check
// that gets no ping goes down on its schedule anyway.
import { hostname, userInfo } from 'node:os';
import type { AddressObject, EmailAddress } from 'mailparser';
import { parseHostPort, type HostPort } from '../config/values.js';
import { SERVE_SETTINGS } from '../config/settings.js';
import { UsageError } from './admin.js';

export interface SendmailArgs {
  /** -t: the recipients are in the message's headers. */
  fromHeaders: boolean;
  /** -f / -r: the envelope sender. */
  sender: string | null;
  recipients: string[];
}

/** Flags of sendmail that take a value; `-f root` and `-froot` are the same. */
const WITH_VALUE = new Set(['f', 'r', 'F', 'B', 'N', 'R', 'V', 'X', 'L', 'O', 'p', 'C', 'h', 'o', 'b']);

/**
 * Read sendmail's command line as cron (cronie, Debian's cron, busybox) and
 * mail(1) write it. Flags other than -t, -f and -r change nothing here (-i,
 * -oi: the message ends at end of input anyway) and are skipped.
 */
export function parseSendmailArgs(args: readonly string[]): SendmailArgs {
  const parsed: SendmailArgs = { fromHeaders: false, sender: null, recipients: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      parsed.recipients.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-')) {
      parsed.recipients.push(arg);
      continue;
    }
    const letter = arg[1]!;
    if (letter === 't' && arg === '-t') {
      parsed.fromHeaders = true;
      continue;
    }
    if (!WITH_VALUE.has(letter)) continue;
    // -bm, -oi, -odi, -oem, -B8BITMIME: the value is attached; -o and -b alone take the next word.
    let value = arg.slice(2);
    if (value === '') {
      if (i + 1 >= args.length) throw new UsageError(`sendmail: ${arg} needs a value`);
      value = args[++i]!;
    }
    if (letter === 'f' || letter === 'r') parsed.sender = value;
  }
  return parsed;
}

/** Where the daemon takes e-mail pings: --smtp, else CHECKD_SMTP_LISTEN; a wildcard host means this machine. */
export function smtpTarget(flag: string | undefined, env: NodeJS.ProcessEnv): HostPort {
  const envName = SERVE_SETTINGS.smtpListen.env;
  const text = flag ?? env[envName];
  if (text === undefined || text.trim() === '') {
    throw new UsageError(`sendmail: no SMTP address: pass --smtp HOST:PORT or set ${envName} as for checkd serve`);
  }
  const target = parseHostPort(text.trim(), flag !== undefined ? '--smtp' : `${envName} (environment)`);
  if (target.host === '0.0.0.0') return { ...target, host: '127.0.0.1' };
  if (target.host === '::') return { ...target, host: '::1' };
  return target;
}

function addressesOf(header: AddressObject | AddressObject[] | undefined): string[] {
  const flat = (list: EmailAddress[]): string[] => list.flatMap((a) => (a.group ? flat(a.group) : a.address ? [a.address] : []));
  return (Array.isArray(header) ? header : header ? [header] : []).flatMap((h) => flat(h.value));
}

/** A bare user name (`root`, as cron gives it) is qualified with this host's name, as sendmail does. */
function qualified(address: string): string {
  return address.includes('@') ? address : `${address}@${hostname()}`;
}

async function readAll(input: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export interface SendmailResult {
  accepted: string[];
  rejected: Array<{ recipient: string; response: string }>;
}

/** Deliver the message on `input`; throws on a refusal of the whole message or a daemon that cannot be reached. */
export async function sendmail(args: SendmailArgs, target: HostPort, input: NodeJS.ReadableStream): Promise<SendmailResult> {
  const raw = await readAll(input);
  const recipients = [...args.recipients];
  if (args.fromHeaders) {
    const { simpleParser } = await import('mailparser');
    const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, checksumAlgo: false });
    recipients.push(...addressesOf(mail.to), ...addressesOf(mail.cc), ...addressesOf(mail.bcc));
  }
  if (recipients.length === 0) throw new UsageError('sendmail: no recipients (give them as arguments, or -t to read To:, Cc: and Bcc:)');
  const sender = qualified(args.sender ?? userInfo().username);
  const nodemailer = (await import('nodemailer')).default;
  const transport = nodemailer.createTransport({
    host: target.host,
    port: target.port,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: sender, to: recipients.map(qualified) }, raw });
    const rejectedErrors = (info as { rejectedErrors?: Array<{ recipient: string; response: string }> }).rejectedErrors ?? [];
    return {
      accepted: (info.accepted as unknown[]).map(String),
      rejected: rejectedErrors.map((e) => ({ recipient: e.recipient, response: e.response })),
    };
  } finally {
    transport.close();
  }
}
