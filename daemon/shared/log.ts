// Structured logs (pino, JSON lines for journald). API keys never reach a
// log line: request logging records no headers, and known key fields are redacted.
import { fstatSync } from 'node:fs';
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'apiKey',
  'api_key',
  'key',
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  'body.api_key',
];

/** syslog priority of each pino level: 10 trace and 20 debug → 7, 30 → 6, 40 → 4, 50 → 3, 60 → 2. */
const PRIORITY: Record<string, string> = { '10': '<7>', '20': '<7>', '30': '<6>', '40': '<4>', '50': '<3>', '60': '<2>' };

/**
 * A line with its syslog priority in front (`<3>{"level":50,...}`), which journald
 * takes off and stores as the line's priority, so that `journalctl -p err` finds
 * errors. pino writes `level` first, so the number is at a fixed place.
 */
export function withPriority(line: string): string {
  return (PRIORITY[line.slice(9, 11)] ?? '') + line;
}

/**
 * Whether file descriptor `fd` is the stream systemd connected to the journal:
 * JOURNAL_STREAM names its device and inode (systemd.exec(5)). A pipe or a
 * terminal in between (`checkd serve | tee`) does not match.
 */
export function writesToJournal(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const stream = env.JOURNAL_STREAM;
  if (!stream) return false;
  try {
    const st = fstatSync(fd);
    return stream === `${st.dev}:${st.ino}`;
  } catch {
    return false;
  }
}

export function createLogger(level: string, destination?: NodeJS.WritableStream, opts: { journal?: boolean } = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'checkd' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(opts.journal ? { hooks: { streamWrite: withPriority } } : {}),
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

export type { Logger };
