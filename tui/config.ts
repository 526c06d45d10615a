// Which projects checktop watches, and with which keys. Keys come from where
// other users cannot read them: the environment, a key file, or the config
// file in the XDG config directory; a key on the command line works too but is
// visible in `ps`, so it is never the only way. Files that hold keys must be
// readable by their owner alone, as ssh insists for private keys.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const DEFAULT_GRPC = '127.0.0.1:50051';

/** One project to watch: a daemon's address and a key of the project. */
export interface ProjectSource {
  address: string;
  apiKey: string;
  /** Where the key came from, for messages ("CHECKD_API_KEY", a file's path). */
  from: string;
}

export class ConfigError extends Error {}

/** The config file's place: $XDG_CONFIG_HOME/checkd/checktop.json, ~/.config by default. */
export function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'checkd', 'checktop.json');
}

/** `~/x` and paths relative to the file that names them. */
function expand(path: string, relativeTo: string, env: NodeJS.ProcessEnv): string {
  if (path === '~' || path.startsWith('~/')) return join(env.HOME || homedir(), path.slice(1));
  return resolve(relativeTo, path);
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${what} ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/** Refuse a file that holds keys when others may read it. */
function ownerOnly(path: string, what: string): void {
  if ((statSync(path).mode & 0o077) !== 0) {
    throw new ConfigError(`${what} ${path} holds API keys and others can read it: chmod 600 ${path}`);
  }
}

/** Read a file that holds keys, refusing one that others may read. */
function readSecret(path: string, what: string): string {
  const text = readText(path, what);
  ownerOnly(path, what);
  return text;
}

/** A key file: one key per line; blank lines and lines starting with # are skipped. */
export function keysOfFile(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

interface ConfigProject {
  grpc?: unknown;
  key?: unknown;
  key_file?: unknown;
  key_env?: unknown;
}

/**
 * The projects of a config file:
 *
 *     { "grpc": "unix:/run/checkd/grpc.sock",
 *       "projects": [ { "key_file": "~/.config/checkd/prod.key" },
 *                     { "key_env": "STAGING_KEY", "grpc": "10.0.0.5:50051" } ] }
 *
 * Each project has one of key, key_file (its first key) or key_env, and the
 * file's grpc address unless it names its own.
 */
export function projectsOfConfig(path: string, text: string, env: NodeJS.ProcessEnv, fallbackGrpc: string): ProjectSource[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path}: not JSON (${(err as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { projects?: unknown }).projects)) {
    throw new ConfigError(`${path}: expected {"projects": [...]}`);
  }
  const top = doc as { grpc?: unknown; projects: unknown[] };
  if (top.grpc !== undefined && typeof top.grpc !== 'string') throw new ConfigError(`${path}: grpc must be a string`);
  const dir = resolve(path, '..');
  return top.projects.map((raw, i) => {
    const where = `${path}: projects[${i}]`;
    if (typeof raw !== 'object' || raw === null) throw new ConfigError(`${where}: expected an object`);
    const p = raw as ConfigProject;
    const address = p.grpc ?? top.grpc ?? fallbackGrpc;
    if (typeof address !== 'string' || address.trim() === '') throw new ConfigError(`${where}: grpc must be an address`);
    const given = (['key', 'key_file', 'key_env'] as const).filter((k) => p[k] !== undefined);
    if (given.length !== 1) throw new ConfigError(`${where}: expected one of key, key_file and key_env`);
    const value = p[given[0]!];
    if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${where}: ${given[0]} must be a string`);
    let apiKey: string | undefined;
    let from = where;
    if (given[0] === 'key') {
      // A key written into the config makes it a file of secrets.
      ownerOnly(path, 'config file');
      apiKey = value;
    }
    else if (given[0] === 'key_env') {
      apiKey = env[value];
      from = value;
      if (!apiKey?.trim()) throw new ConfigError(`${where}: the environment has no ${value}`);
    } else {
      const file = expand(value, dir, env);
      apiKey = keysOfFile(readSecret(file, 'key file'))[0];
      from = file;
      if (!apiKey) throw new ConfigError(`${where}: key file ${file} holds no key`);
    }
    return { address: address.trim(), apiKey: apiKey.trim(), from };
  });
}

export interface KeySources {
  /** --grpc or CHECKD_GRPC; the default otherwise. */
  grpc: string;
  /** --api-key or CHECKD_API_KEY (commander merges the two). */
  apiKey?: string;
  /** --key-file or CHECKD_API_KEY_FILE. */
  keyFile?: string;
  /** --config or CHECKTOP_CONFIG; the XDG place when absent (and only if it exists there). */
  config?: string;
}

/**
 * Every project to watch, in order: the config file's, then the key file's
 * keys, then the single key; the same key at the same address once.
 */
export function resolveProjects(sources: KeySources, env: NodeJS.ProcessEnv): ProjectSource[] {
  const grpc = sources.grpc.trim();
  const out: ProjectSource[] = [];
  const configPath = resolve(sources.config ?? defaultConfigPath(env));
  // The default place is read only when there is a file; one asked for must be there.
  let configText: string | null = null;
  try {
    configText = readText(configPath, 'config file');
  } catch (err) {
    if (sources.config !== undefined) throw err;
  }
  if (configText !== null) out.push(...projectsOfConfig(configPath, configText, env, grpc));
  if (sources.keyFile) {
    const file = resolve(sources.keyFile);
    const keys = keysOfFile(readSecret(file, 'key file'));
    if (keys.length === 0) throw new ConfigError(`key file ${file} holds no key`);
    out.push(...keys.map((apiKey) => ({ address: grpc, apiKey, from: file })));
  }
  if (sources.apiKey?.trim()) out.push({ address: grpc, apiKey: sources.apiKey.trim(), from: '--api-key / CHECKD_API_KEY' });
  const seen = new Set<string>();
  return out.filter((p) => {
    const id = `${p.address}\u0000${p.apiKey}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
