// The SMTP listener of e-mail pings (ping-protocol §12): cron's MAILTO, or an
// MTA that hands the ping domain over, delivers here. RCPT takes only the two
// ping address forms at the ping domain, so nothing is ever relayed; DATA
// records one ping per recipient and answers 250 only once they are durable.
// The SMTP protocol is smtp-server's; the rules are daemon/domain/email-ping.ts.
import type { Socket } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { emailUserAgent, parsePingAddress, RECIPIENT_REFUSALS, type EmailContent, type PingAddress } from '../domain/email-ping.js';
import { clientAddress } from '../ping/remote-addr.js';
import type { PingFacts, PingService } from '../service/pings.js';
import type { HostPort } from '../config/values.js';
import { hostPortText } from '../shared/listen.js';
import type { Logger } from '../shared/log.js';
import { readEmailContent } from './message.js';
import { StorageAlarmError } from '../store/write-failure.js';

export interface SmtpListenerOptions {
  listen: HostPort;
  /** The domain of ping addresses. */
  domain: string;
  /** Largest message accepted, in bytes: a larger one gets 552. */
  messageLimit: number;
  /** Bytes of the message a ping stores as its body. */
  pingBodyLimit: number;
  pings: PingService;
  logger: Logger;
  /** How long closing waits for sessions in progress before cutting them. */
  closeTimeoutMs: number;
}

export interface SmtpListener {
  /** HOST:PORT it is bound to (the port chosen when 0 was asked for). */
  address: string;
  close(): Promise<void>;
}

/** Sessions at once: a busy MTA opens a few; more only hold memory (each may buffer a whole message). */
const MAX_SESSIONS = 50;
/** Recipients of one message; cron mails one, an MTA batches a few. */
const MAX_RECIPIENTS = 100;
/** A session that says nothing for this long is closed. */
const IDLE_TIMEOUT_MS = 60_000;
/**
 * A whole session, however busy, ends after this: a client that trickles a
 * byte a minute cannot hold a session and its buffer for ever. An MTA
 * reconnects for what it has left.
 */
const SESSION_MAX_MS = 10 * 60_000;

/** An SMTP refusal: smtp-server answers with `responseCode` and the message. */
function smtpError(responseCode: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode });
}

export async function startSmtpListener(opts: SmtpListenerOptions): Promise<SmtpListener> {
  const { logger } = opts;
  /** Sessions whose message is being received or recorded: closing waits for them. */
  const busy = new Set<string>();
  const server = new SMTPServer({
    name: opts.domain,
    banner: 'checkd e-mail pings',
    // No AUTH (nothing to authenticate: the address is the credential, as a
    // ping URL is) and no STARTTLS (its only certificate would be the
    // library's published test one); the listener belongs behind an MTA or on
    // a trusted network.
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    disableReverseLookup: true,
    // The replies of §12 carry their enhanced codes in their text.
    hideENHANCEDSTATUSCODES: true,
    size: opts.messageLimit,
    rejectOversized: true,
    maxClients: MAX_SESSIONS,
    maxRecipients: MAX_RECIPIENTS,
    socketTimeout: IDLE_TIMEOUT_MS,
    closeTimeout: opts.closeTimeoutMs,
    logger: protocolLogger(logger),
    onRcptTo(address, _session, callback) {
      const recipient = parsePingAddress(address.address, opts.domain);
      if ('refusal' in recipient) return callback(smtpError(550, RECIPIENT_REFUSALS[recipient.refusal]));
      callback();
    },
    onData(stream, session, callback) {
      busy.add(session.id);
      const answer: typeof callback = (err, message) => {
        busy.delete(session.id);
        callback(err, message);
      };
      void receive(stream).then(async (raw) => {
        if (raw === 'cut-off') return busy.delete(session.id);
        // Over the limit: smtp-server answers 552 itself (rejectOversized).
        if (raw === 'too-large') return answer(null);
        try {
          await deliver(raw, session, opts);
          answer(null, 'OK');
        } catch (err) {
          // While the storage alarm is on, refusals are expected: it was logged once.
          if (err instanceof StorageAlarmError) logger.debug('e-mail ping refused: the storage alarm is on');
          else logger.error({ err }, 'e-mail ping not recorded');
          answer(smtpError(451, '4.3.0 The ping could not be stored, try again later'));
        }
      });
    },
  });
  // Socket errors of sessions arrive here; without a listener they would end the process.
  server.on('error', (err) => logger.warn({ err }, 'SMTP session error'));
  server.server.on('connection', (socket: Socket) => {
    const cut = setTimeout(() => socket.destroy(), SESSION_MAX_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.listen.port, opts.listen.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const bound = server.server.address();
  const address = bound && typeof bound === 'object' ? hostPortText({ host: bound.address, port: bound.port }) : String(bound);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A session between messages has nothing to finish: it is told so at once
      // (421, try later), as idle HTTP connections are closed; one in the middle
      // of a message gets until closeTimeoutMs.
      for (const connection of server.connections) {
        if (busy.has(connection.session.id)) continue;
        connection.send(421, '4.3.2 checkd is shutting down, try again later');
        connection.close();
      }
    });
  return { address, close };
}

/**
 * The whole message; 'too-large' once it exceeds the size limit (the rest is
 * read and dropped); 'cut-off' when the session ended in the middle of it,
 * which delivers nothing.
 */
function receive(stream: SMTPServerDataStream): Promise<Buffer | 'too-large' | 'cut-off'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      if (!stream.sizeExceeded) chunks.push(chunk);
    });
    stream.on('end', () => resolve(stream.sizeExceeded ? 'too-large' : Buffer.concat(chunks)));
    // smtp-server destroys the stream of a session that went away: 'close' without 'end'.
    stream.on('error', () => resolve('cut-off'));
    stream.on('close', () => resolve('cut-off'));
  });
}

/** One ping per accepted recipient, each durable before the next; a check that is not there is logged. */
async function deliver(raw: Buffer, session: SMTPServerSession, opts: SmtpListenerOptions): Promise<void> {
  const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  const facts: PingFacts = {
    method: '',
    scheme: 'email',
    remoteAddr: clientAddress(undefined, session.remoteAddress, false),
    ua: emailUserAgent(sender),
    body: raw.subarray(0, opts.pingBodyLimit),
    rid: null,
  };
  let content: Promise<EmailContent> | undefined;
  for (const { address } of session.envelope.rcptTo) {
    const recipient = parsePingAddress(address, opts.domain);
    const target = await checkOf(recipient, opts.pings);
    if (target === 'ambiguous') {
      opts.logger.info(`Ambiguous slug: ${address}`);
      continue;
    }
    if (target !== 'missing') {
      content ??= readEmailContent(raw);
      if ((await opts.pings.recordEmail(target, await content, facts)) === 'ok') continue;
    }
    opts.logger.info(`Check not found: ${address}`);
  }
}

/** The UUID of the check a recipient names, or why there is none. */
async function checkOf(recipient: PingAddress, pings: PingService): Promise<string | 'missing' | 'ambiguous'> {
  if ('refusal' in recipient) return 'missing';
  if (recipient.by === 'uuid') return recipient.uuid;
  const found = await pings.resolveSlug(recipient.pingKey, recipient.slug, false);
  return found.kind === 'found' || found.kind === 'created' ? found.uuid : found.kind;
}

/** smtp-server's own log of every command and reply, kept to debug and trace. */
function protocolLogger(logger: Logger) {
  const log = logger.child({ component: 'smtp-protocol' });
  return {
    info: log.debug.bind(log),
    debug: log.trace.bind(log),
    error: log.warn.bind(log),
  };
}
