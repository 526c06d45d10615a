// Parsers of the kinds of value the settings of `checkd serve` take (the table
// in settings.ts). Each validates one text and names its source in the error:
// the flag, `VAR (environment)` or `--flag (default)`. A ConfigError is a bad
// argument: exit code 2, nothing written.
import { lstatSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { parseBool, parseCount, parseSize } from '../domain/text-values.js';

export class ConfigError extends Error {}

/** Where a setting came from, for error messages: the flag, or the env var that set it. */
export type Source = string;

export interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(value: string, what: Source): HostPort {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s[\]]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new ConfigError(`${what}: expected HOST:PORT (port 0-65535), got "${value}"`);
  const host = m[1]!.replace(/^\[|\]$/g, '');
  if (m[1]!.startsWith('[') ? isIP(host) !== 6 : !validHost(host)) {
    throw new ConfigError(`${what}: "${host}" is not an IP address or host name (in "${value}")`);
  }
  return { host, port };
}

/** An IPv4 literal, or a DNS name (letters, digits, hyphens; dot-separated labels). */
function validHost(host: string): boolean {
  if (isIP(host) === 4) return true;
  // Dotted digits that are not an IPv4 address (999.1.1.1, 1.2.3) are typos, not names.
  if (/^[\d.]+$/.test(host)) return false;
  return host.length <= 253 && host.split('.').every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}

/** HOST:PORT, or null (blank) for a listener that is off. */
export function parseOptionalHostPort(value: string, what: Source): HostPort | null {
  return value.trim() === '' ? null : parseHostPort(value.trim(), what);
}

/** A mail domain (a DNS name or IPv4 literal), lowercased; null when blank. */
export function parseMailDomain(value: string, what: Source): string | null {
  const domain = value.trim().toLowerCase();
  if (domain === '') return null;
  if (!validHost(domain)) throw new ConfigError(`${what}: expected a domain such as checkd.example.org, got "${value}"`);
  return domain;
}

/** Longest unix socket path the kernel takes (sun_path is 108 bytes with its NUL). */
const UNIX_PATH_MAX = 107;

/** host:port, or a unix socket path whose directory exists and where no other kind of file is. */
export function validateGrpcAddress(value: string, what: Source): string {
  if (value.startsWith('unix:')) {
    // grpc-js: unix:path (relative or absolute) and unix:///absolute/path.
    const path = value.startsWith('unix://') ? value.slice('unix://'.length) : value.slice('unix:'.length);
    if (path === '') throw new ConfigError(`${what}: unix socket path is empty`);
    if (Buffer.byteLength(path) > UNIX_PATH_MAX) {
      throw new ConfigError(`${what}: unix socket path is longer than ${UNIX_PATH_MAX} bytes: "${path}"`);
    }
    const dir = dirname(resolve(path));
    let ok = false;
    try {
      ok = statSync(dir).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) throw new ConfigError(`${what}: directory ${dir} of the unix socket does not exist`);
    try {
      if (!lstatSync(path).isSocket()) throw new ConfigError(`${what}: ${path} exists and is not a socket`);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      // absent: fine
    }
    return value;
  }
  parseHostPort(value, what);
  return value;
}

/** The public URL: http(s), without trailing slashes, credentials, query or fragment. */
export function parseBaseUrl(value: string, what: Source): string {
  const baseUrl = value.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new ConfigError(`${what}: not a URL: "${value}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${what}: must be an http:// or https:// URL, got "${value}"`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(`${what}: must not have credentials, a query or a fragment, got "${value}"`);
  }
  return baseUrl;
}

/**
 * Where checkd reports that it is alive (a ping URL of another checkd or of
 * Healthchecks), or null when blank. Errors name only the URL's origin: its
 * path is often the secret that lets anyone ping in its name.
 */
export function parseHeartbeatUrl(value: string, what: Source): string | null {
  const text = value.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${what}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${what}: must be an http:// or https:// URL, got a ${url.protocol} URL`);
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    throw new ConfigError(`${what}: must not have credentials or a fragment (${url.origin}/…)`);
  }
  return text;
}

export function parseDataDir(value: string, what: Source): string {
  if (value.trim() === '') throw new ConfigError(`${what}: must not be empty`);
  return value;
}

export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function parseLogLevel(value: string, what: Source): string {
  if (!LOG_LEVELS.includes(value)) throw new ConfigError(`${what}: one of ${LOG_LEVELS.join(', ')}; got "${value}"`);
  return value;
}

export function parseBadgeLabel(value: string, what: Source): string {
  if (value.trim() === '' || [...value].length > 100 || /\p{Cc}/u.test(value)) {
    throw new ConfigError(`${what}: 1 to 100 characters, no control characters; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A count such as a limit (surrounding blanks allowed); 0 is a count. */
export function parseCountValue(value: string, what: Source): number {
  const count = parseCount(value.trim());
  if (count.ok) return count.value;
  if (count.problem === 'out-of-range') throw new ConfigError(`${what}: too large, got "${value}"`);
  throw new ConfigError(`${what}: expected a non-negative integer, got "${value}"`);
}

/** A number of bytes of at least `min`. */
export function bytesAtLeast(min: number): (value: string, what: Source) => number {
  return (value, what) => {
    const count = parseCount(value.trim(), min);
    if (!count.ok) throw new ConfigError(`${what}: expected a whole number of bytes >= ${min}, got "${value}"`);
    return count.value;
  };
}

/** What a size setting takes, for its errors. */
const SIZE_FORMS = 'a size such as 500MB, 2GB, 1.5GiB or a number of bytes';

/** A size (parseSize) of at least `min` bytes. */
export function sizeAtLeast(min: number, minText: string): (value: string, what: Source) => number {
  return (value, what) => {
    const bytes = parseSize(value);
    if (bytes === undefined) throw new ConfigError(`${what}: expected ${SIZE_FORMS}, got "${value}"`);
    if (bytes < min) throw new ConfigError(`${what}: at least ${minText}, got "${value}"`);
    return bytes;
  };
}

/** Like sizeAtLeast, or null (no limit) for a blank value or a switch word that means off. */
export function optionalSizeAtLeast(min: number, minText: string): (value: string, what: Source) => number | null {
  const size = sizeAtLeast(min, minText);
  return (value, what) => (parseBool(value) === false ? null : size(value, what));
}

/** Whole milliseconds of at least `min`. */
export function millisecondsAtLeast(min: number): (value: string, what: Source) => number {
  return (value, what) => {
    const count = parseCount(value.trim(), min);
    if (!count.ok) throw new ConfigError(`${what}: expected a whole number of milliseconds >= ${min}, got "${value}"`);
    return count.value;
  };
}

export function parseSwitch(value: string, what: Source): boolean {
  const on = parseBool(value);
  if (on === undefined) throw new ConfigError(`${what}: expected true or false, got "${value}"`);
  return on;
}

/**
 * The SMTP server of email channels, or null (blank) when there is none. The
 * error never repeats the URL: it may hold a password.
 */
export function parseSmtpUrl(value: string, what: Source): string | null {
  if (value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`${what}: not a URL (expected smtp://user:pass@host:port or smtps://...)`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`${what}: must be an smtp:// or smtps:// URL, got a ${url.protocol} URL`);
  }
  if (url.hostname === '') throw new ConfigError(`${what}: the URL has no host`);
  return value.trim();
}

const FROM_RE = /^(?:[^<>\r\n]*<[^\s@<>,]+@[^\s@<>,]+>|[^\s@<>,]+@[^\s@<>,]+)$/;

/** A From: address (`a@b` or `Name <a@b>`), or null when blank. */
export function parseFromAddress(value: string, what: Source): string | null {
  const from = value.trim();
  if (from === '') return null;
  if (!FROM_RE.test(from)) throw new ConfigError(`${what}: expected an address like checkd@example.org, got "${from}"`);
  return from;
}

/** A secret token (a bot's, an application's), or null when blank; the error never repeats it. */
export function parseToken(value: string, what: Source): string | null {
  const token = value.trim();
  if (token === '') return null;
  if (/[\s\0]/.test(token)) throw new ConfigError(`${what}: a token is one word, without spaces or line breaks`);
  return token;
}

/** An http(s) URL without a query or fragment, trailing slashes dropped; null when blank. */
export function parseOptionalHttpUrl(value: string, what: Source): string | null {
  const text = value.trim();
  if (text === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`${what}: expected an http(s) URL without a query, got "${text}"`);
  }
  return text.replace(/\/+$/, '');
}

/** An http(s) URL that must be there (a service's API address). */
export function parseHttpUrl(value: string, what: Source): string {
  const url = parseOptionalHttpUrl(value, what);
  if (url === null) throw new ConfigError(`${what}: expected an http(s) URL, got nothing`);
  return url;
}

/** Whole seconds from `min` to `max`. */
export function secondsBetween(min: number, max: number): (value: string, what: Source) => number {
  return (value, what) => {
    const count = parseCount(value.trim(), min, max);
    if (!count.ok) throw new ConfigError(`${what}: expected whole seconds from ${min} to ${max}, got "${value}"`);
    return count.value;
  };
}

/** How checkd names itself to the services: one line of at most 100 characters. */
export function parseSiteName(value: string, what: Source): string {
  const name = value.trim();
  if (name === '' || name.length > 100 || /[\r\n]/.test(name)) throw new ConfigError(`${what}: 1 to 100 characters on one line`);
  return name;
}
