// Settings of `checkd serve` (contract.md): flags win over env vars, env vars
// over defaults. Everything is validated here, before anything is opened.
import type { NotifyConfig } from './notify.js';
import { lstatSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { dirname, resolve } from 'node:path';

export interface ServeConfig {
  dataDir: string;
  listen: { host: string; port: number };
  grpcListen: string;
  baseUrl: string;
  apiRateLimit: number;
  pingBodyLimit: number;
  trustProxy: boolean;
  logLevel: string;
  /** The label of the project-wide (`*`) status badge. */
  badgeLabel: string;
  /** Notifier settings (daemon/notify/config.ts); defaults when absent. */
  notify?: NotifyConfig;
}

export class ConfigError extends Error {}

export const DEFAULTS = {
  dataDir: './data',
  listen: '127.0.0.1:8000',
  grpcListen: '127.0.0.1:50051',
  baseUrl: 'http://localhost:8000',
  apiRateLimit: '100',
  pingBodyLimit: '10000',
  logLevel: 'info',
  badgeLabel: 'checkd',
} as const;

export interface RawServeOptions {
  dataDir?: string;
  listen?: string;
  grpcListen?: string;
  baseUrl?: string;
  apiRateLimit?: string;
  pingBodyLimit?: string;
  trustProxy?: boolean;
  logLevel?: string;
  badgeLabel?: string;
}

/** Where a setting came from, for error messages: the flag, or the env var that set it. */
type Source = string;

export function parseHostPort(value: string, what: Source): { host: string; port: number } {
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

function parseCount(value: string, what: Source): number {
  if (!/^\d+$/.test(value.trim())) throw new ConfigError(`${what}: expected a non-negative integer, got "${value}"`);
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n)) throw new ConfigError(`${what}: too large, got "${value}"`);
  return n;
}

function parseBool(value: string, what: Source): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${what}: expected true or false, got "${value}"`);
}

/** Longest unix socket path the kernel takes (sun_path is 108 bytes with its NUL). */
const UNIX_PATH_MAX = 107;

export function validateGrpcAddress(value: string, what: Source = '--grpc-listen'): string {
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

export function resolveServeConfig(opts: RawServeOptions, env: NodeJS.ProcessEnv): ServeConfig {
  // Each setting: the flag if given, else the env var if set, else the default;
  // errors name whichever of the flag or the env var supplied the bad value.
  const pick = (flag: string | undefined, flagName: string, envName: string, dflt: string): [string, Source] => {
    if (flag !== undefined) return [flag, flagName];
    const e = env[envName];
    if (e !== undefined) return [e, `${envName} (environment)`];
    return [dflt, `${flagName} (default)`];
  };
  const [rawBase, baseSrc] = pick(opts.baseUrl, '--base-url', 'CHECKD_BASE_URL', DEFAULTS.baseUrl);
  const baseUrl = rawBase.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new ConfigError(`${baseSrc}: not a URL: "${rawBase}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${baseSrc}: must be an http:// or https:// URL, got "${rawBase}"`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(`${baseSrc}: must not have credentials, a query or a fragment, got "${rawBase}"`);
  }
  const [dataDir, dataSrc] = pick(opts.dataDir, '--data-dir', 'CHECKD_DATA_DIR', DEFAULTS.dataDir);
  if (dataDir.trim() === '') throw new ConfigError(`${dataSrc}: must not be empty`);
  const [level, levelSrc] = pick(opts.logLevel, '--log-level', 'CHECKD_LOG_LEVEL', DEFAULTS.logLevel);
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`${levelSrc}: one of ${LOG_LEVELS.join(', ')}; got "${level}"`);
  }
  const [listen, listenSrc] = pick(opts.listen, '--listen', 'CHECKD_LISTEN', DEFAULTS.listen);
  const [grpcListen, grpcSrc] = pick(opts.grpcListen, '--grpc-listen', 'CHECKD_GRPC_LISTEN', DEFAULTS.grpcListen);
  const [rate, rateSrc] = pick(opts.apiRateLimit, '--api-rate-limit', 'CHECKD_API_RATE_LIMIT', DEFAULTS.apiRateLimit);
  const [body, bodySrc] = pick(opts.pingBodyLimit, '--ping-body-limit', 'CHECKD_PING_BODY_LIMIT', DEFAULTS.pingBodyLimit);
  const [badgeLabel, labelSrc] = pick(opts.badgeLabel, '--badge-label', 'CHECKD_BADGE_LABEL', DEFAULTS.badgeLabel);
  if (badgeLabel.trim() === '' || [...badgeLabel].length > 100 || /\p{Cc}/u.test(badgeLabel)) {
    throw new ConfigError(`${labelSrc}: 1 to 100 characters, no control characters; got ${JSON.stringify(badgeLabel)}`);
  }
  return {
    dataDir,
    listen: parseHostPort(listen, listenSrc),
    grpcListen: validateGrpcAddress(grpcListen, grpcSrc),
    baseUrl,
    apiRateLimit: parseCount(rate, rateSrc),
    pingBodyLimit: parseCount(body, bodySrc),
    trustProxy: opts.trustProxy ?? parseBool(env.CHECKD_TRUST_PROXY ?? '', 'CHECKD_TRUST_PROXY (environment)'),
    logLevel: level,
    badgeLabel,
  };
}

const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The host names of the listen addresses must resolve: checked before the data
 * dir is opened, so that a typo is a bad flag (exit 2, nothing written) rather
 * than a failure after start-up has begun.
 */
export async function checkListenHosts(config: ServeConfig): Promise<void> {
  const hosts: Array<[string, Source]> = [[config.listen.host, '--listen']];
  if (!config.grpcListen.startsWith('unix:')) {
    hosts.push([parseHostPort(config.grpcListen, '--grpc-listen').host, '--grpc-listen']);
  }
  for (const [host, what] of hosts) {
    if (isIP(host) !== 0) continue;
    try {
      await lookup(host);
    } catch {
      throw new ConfigError(`${what}: cannot resolve host name "${host}"`);
    }
  }
}
