// Channel kinds checkd can deliver to, and validation of their values at
// creation time, so that a bad value is refused before anything is stored.
import { checkStructuredValue } from './channel-values.js';
import { INTEGRATION_KINDS } from './integrations/index.js';

export const CHANNEL_KINDS = ['email', 'webhook', 'shell', 'slack', 'discord', 'ntfy', ...INTEGRATION_KINDS] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export type ChannelCheck = { ok: true; value: string } | { ok: false; error: string };

const EMAIL_RE = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

function httpUrl(value: string, kind: string): ChannelCheck {
  try {
    // Only a full absolute URL: "http:example.com" would parse, but is a typo.
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\/[^/?#\s]/i.test(value) && url.hostname !== '') {
      return { ok: true, value };
    }
  } catch {
    // fall through
  }
  return { ok: false, error: `--value for a ${kind} channel must be an http(s) URL, got "${value}"` };
}

export function validateChannel(kind: string, rawValue: string): ChannelCheck {
  if (!(CHANNEL_KINDS as readonly string[]).includes(kind)) {
    return { ok: false, error: `unknown channel kind "${kind}"; one of: ${CHANNEL_KINDS.join(', ')}` };
  }
  // Surrounding blanks are copy-paste noise; a shell command keeps its inner spacing.
  const value = rawValue.trim();
  // JSON values and ntfy topics (docs/notifications.md): checked in full there.
  const structured = checkStructuredValue(kind, value);
  if (structured !== null) return structured;
  switch (kind as ChannelKind) {
    case 'email':
      return EMAIL_RE.test(value)
        ? { ok: true, value }
        : { ok: false, error: `--value for an email channel must be an email address, got "${value}"` };
    case 'shell':
      return value !== ''
        ? { ok: true, value }
        : { ok: false, error: '--value for a shell channel must be the command to run' };
    default:
      return httpUrl(value, kind);
  }
}

/**
 * Whether a channel still waits for its value: one imported from Healthchecks,
 * whose API does not give channel secrets. No kind accepts an empty value, so
 * nothing else makes such a channel; nothing is delivered through it until
 * it is given one.
 */
export function needsValue(channel: { value: string }): boolean {
  return channel.value === '';
}

/** The admin command that gives a channel its value, for the messages about one that needs it. */
export function setValueCommand(channelId: string): string {
  return `checkd channel update ${channelId} --value VALUE`;
}
