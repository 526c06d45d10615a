// Structured logs (pino, JSON on stdout for journald). API keys never reach a
// log line: request logging records no headers, and known key fields are redacted.
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'apiKey',
  'api_key',
  'key',
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  'body.api_key',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'checkd' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

export type { Logger };
