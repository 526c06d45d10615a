// Reading a ping e-mail for classification (ping-protocol §12): its decoded
// subject, and its text as keyword filters see it: the plain-text parts plus
// the HTML part turned into text. The MIME work is mailparser's.
import { convert } from 'html-to-text';
import { simpleParser } from 'mailparser';
import type { EmailContent } from '../domain/email-ping.js';

/**
 * Characters of HTML turned into text at most: the conversion runs on the
 * event loop, and a keyword past the first megabyte of markup is no use.
 */
const HTML_SCAN_MAX = 1_000_000;

/** Each part of the message once, as written (no text rendered as HTML, no images inlined). */
const PARSE_OPTIONS = {
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
  keepCidLinks: true,
  checksumAlgo: false,
} as const;

/**
 * The message's content. A message mailparser cannot read at all is taken as
 * text without a subject (decoded with replacement characters), so that the
 * ping is still recorded and the keywords still see its words.
 */
export async function readEmailContent(raw: Buffer): Promise<EmailContent> {
  let subject = '';
  let plain: string;
  let html = '';
  try {
    const mail = await simpleParser(raw, PARSE_OPTIONS);
    subject = mail.subject ?? '';
    plain = mail.text ?? '';
    html = typeof mail.html === 'string' ? mail.html : '';
  } catch {
    plain = raw.toString('utf8');
  }
  let body: string | undefined;
  return {
    subject,
    bodyText: () => (body ??= html === '' ? plain : [plain, htmlText(html)].filter((t) => t !== '').join('\n')),
  };
}

function htmlText(html: string): string {
  return convert(html, { wordwrap: false, limits: { maxInputLength: HTML_SCAN_MAX } });
}
