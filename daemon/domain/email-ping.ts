// E-mail pings (ping-protocol §12): which check a recipient address names, and
// what kind of signal a message is for that check. Pure: the SMTP listener
// (daemon/email/) parses the message and does the I/O.
import { classifyByKeywords } from './classify.js';
import { SLUG_SEGMENT_RE, UUID_RE } from './ids.js';
import { effectiveKind } from './status.js';
import { PING_UA_MAX, type CheckRecord, type PingKind } from './types.js';

/** A recipient of a ping e-mail, or why RCPT refuses it. */
export type PingAddress =
  | { by: 'uuid'; uuid: string }
  | { by: 'slug'; pingKey: string; slug: string }
  | { refusal: 'other-domain' | 'invalid-mailbox' };

/** The RCPT answers of §12 (sent with code 550). */
export const RECIPIENT_REFUSALS = {
  'other-domain': '5.1.1 Recipient rejected',
  'invalid-mailbox': '5.1.1 Invalid mailbox',
} as const;

/**
 * Read `<uuid>@<domain>` or `<ping-key>+<slug>@<domain>`. The domain is
 * compared without regard to case, as DNS does; the mailbox is read as the
 * ping URLs read their segments (a slug is lowercase, a UUID is taken in
 * either case since some mail software upper-cases addresses).
 */
export function parsePingAddress(address: string, pingDomain: string): PingAddress {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== pingDomain.toLowerCase()) return { refusal: 'other-domain' };
  const mailbox = address.slice(0, at);
  const uuid = mailbox.toLowerCase();
  if (UUID_RE.test(uuid)) return { by: 'uuid', uuid };
  const plus = mailbox.indexOf('+');
  const pingKey = mailbox.slice(0, plus);
  const slug = mailbox.slice(plus + 1);
  if (plus < 0 || !SLUG_SEGMENT_RE.test(pingKey) || !SLUG_SEGMENT_RE.test(slug) || slug !== slug.toLowerCase()) {
    return { refusal: 'invalid-mailbox' };
  }
  return { by: 'slug', pingKey, slug };
}

/** What classification reads of a message. */
export interface EmailContent {
  /** The Subject header, decoded. */
  subject: string;
  /**
   * The plain-text parts and the HTML part turned into text. Asked for only
   * when a check filters on the body, maybe more than once: made once, kept.
   */
  bodyText(): string;
}

export type EmailFilterSettings = Pick<
  CheckRecord,
  'status' | 'manualResume' | 'filterSubject' | 'filterBody' | 'filterDefaultFail' | 'startKw' | 'successKw' | 'failureKw'
>;

/**
 * The kind of an e-mail ping (§12): success unless the check filters on the
 * subject or the body; then the keywords decide over the text it filters on,
 * in the order of HTTP body filtering. `filter_http_body` and `methods` do not
 * apply to e-mail; a paused check with manual resume ignores it, as any ping.
 */
export function classifyEmailPing(content: EmailContent, check: EmailFilterSettings): PingKind {
  let kind: PingKind = 'success';
  if (check.filterSubject || check.filterBody) {
    const parts: string[] = [];
    if (check.filterSubject) parts.push(content.subject);
    if (check.filterBody) parts.push(content.bodyText());
    kind = classifyByKeywords(parts.join('\n'), check);
  }
  return effectiveKind(check, kind);
}

/** The `ua` of an e-mail ping: who sent it, by envelope (an empty sender for a bounce). */
export function emailUserAgent(envelopeSender: string): string {
  return `Email from ${envelopeSender}`.slice(0, PING_UA_MAX);
}
