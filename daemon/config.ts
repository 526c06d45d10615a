// Settings of `checkd serve` (contract.md): flags win over env vars, env vars
// over defaults. Everything is validated here, before anything is opened.

export interface ServeConfig {
  dataDir: string;
  listen: { host: string; port: number };
  grpcListen: string;
  baseUrl: string;
  apiRateLimit: number;
  pingBodyLimit: number;
  trustProxy: boolean;
  logLevel: string;
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
}

export function parseHostPort(value: string, what: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new ConfigError(`${what}: expected HOST:PORT (port 0-65535), got "${value}"`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function parseCount(value: string, what: string): number {
  if (!/^\d+$/.test(value.trim())) throw new ConfigError(`${what}: expected a non-negative integer, got "${value}"`);
  return Number(value.trim());
}

function parseBool(value: string, what: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${what}: expected true or false, got "${value}"`);
}

export function validateGrpcAddress(value: string): string {
  if (value.startsWith('unix:')) {
    if (value.length <= 5) throw new ConfigError(`--grpc-listen: unix socket path is empty`);
    return value;
  }
  parseHostPort(value, '--grpc-listen');
  return value;
}

export function resolveServeConfig(opts: RawServeOptions, env: NodeJS.ProcessEnv): ServeConfig {
  const pick = (flag: string | undefined, envName: string, dflt: string): string =>
    flag ?? env[envName] ?? dflt;
  const baseUrl = pick(opts.baseUrl, 'CHECKD_BASE_URL', DEFAULTS.baseUrl).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new ConfigError(`--base-url: not a URL: "${baseUrl}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`--base-url: must be http:// or https://, got "${baseUrl}"`);
  }
  const dataDir = pick(opts.dataDir, 'CHECKD_DATA_DIR', DEFAULTS.dataDir);
  if (dataDir.trim() === '') throw new ConfigError('--data-dir: must not be empty');
  const level = pick(opts.logLevel, 'CHECKD_LOG_LEVEL', DEFAULTS.logLevel);
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
    throw new ConfigError(`--log-level: one of fatal, error, warn, info, debug, trace, silent; got "${level}"`);
  }
  return {
    dataDir,
    listen: parseHostPort(pick(opts.listen, 'CHECKD_LISTEN', DEFAULTS.listen), '--listen'),
    grpcListen: validateGrpcAddress(pick(opts.grpcListen, 'CHECKD_GRPC_LISTEN', DEFAULTS.grpcListen)),
    baseUrl,
    apiRateLimit: parseCount(pick(opts.apiRateLimit, 'CHECKD_API_RATE_LIMIT', DEFAULTS.apiRateLimit), '--api-rate-limit'),
    pingBodyLimit: parseCount(
      pick(opts.pingBodyLimit, 'CHECKD_PING_BODY_LIMIT', DEFAULTS.pingBodyLimit),
      '--ping-body-limit',
    ),
    trustProxy: opts.trustProxy ?? parseBool(env.CHECKD_TRUST_PROXY ?? '', 'CHECKD_TRUST_PROXY'),
    logLevel: level,
  };
}
