// The admin commands of contract.md. They open the LMDB environment directly,
// so they work with or without a running daemon; the daemon reads keys,
// projects and channels from LMDB on every request and sees them at once.
import { Store } from '../store/store.js';
import { inspectDataDir } from '../store/db.js';
import { systemClock } from '../shared/clock.js';
import { validateChannel } from '../domain/channel-kinds.js';
import { groupMembersError, parseGroupValue } from '../notify/kinds/group.js';
import type { RawNotifyOptions } from '../config/notify.js';
import { API_KEY_LENGTH } from '../domain/ids.js';

export class UsageError extends Error {}

export interface Output {
  json: boolean;
  print(doc: Record<string, unknown>, human: string): void;
}

export function makeOutput(json: boolean, write: (s: string) => void = (s) => process.stdout.write(s)): Output {
  return {
    json,
    print: (doc, human) => write(json ? JSON.stringify(doc) + '\n' : human.replace(/\n?$/, '\n')),
  };
}

export function parseCount(value: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${what} must be a whole number from ${min} to ${max}, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${what} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function noProject(id: string): UsageError {
  return new UsageError(`no project with id "${id}" (see: checkd project list)`);
}

function requireProject(store: Store, id: string) {
  const project = store.getProject(id);
  if (!project) throw noProject(id);
  return project;
}

/**
 * Open the store for a command about an existing project. A data dir without
 * an environment has no projects: refuse without creating anything there.
 */
function openForProject(dataDir: string, projectId: string): Store {
  if (inspectDataDir(dataDir) !== 'env') throw noProject(projectId);
  return Store.open(dataDir);
}

export async function projectCreate(
  dataDir: string,
  opts: { name: string; checkLimit: string; pingLogLimit: string },
  out: Output,
): Promise<void> {
  const name = opts.name.trim();
  if (name === '') throw new UsageError('--name must not be empty');
  if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
  const checkLimit = parseCount(opts.checkLimit, '--check-limit', 0, 1_000_000);
  const pingLogLimit = parseCount(opts.pingLogLimit, '--ping-log-limit', 1, 100_000);
  const store = Store.open(dataDir);
  try {
    const { project, apiKey, apiKeyReadonly } = await store.createProject(
      { name, checkLimit, pingLogLimit },
      systemClock.now(),
    );
    out.print(
      {
        id: project.id,
        name: project.name,
        api_key: apiKey,
        api_key_readonly: apiKeyReadonly,
        ping_key: project.pingKey,
        check_limit: project.checkLimit,
        ping_log_limit: project.pingLogLimit,
      },
      [
        `project ${project.id} "${project.name}" created`,
        `  api key (read-write): ${apiKey}`,
        `  api key (read-only):  ${apiKeyReadonly}`,
        `  ping key:             ${project.pingKey}`,
        `  check limit ${project.checkLimit}, ping log limit ${project.pingLogLimit}`,
        'Keys are stored hashed: note them now, they cannot be shown again.',
      ].join('\n'),
    );
  } finally {
    await store.close();
  }
}

export async function projectList(dataDir: string, out: Output): Promise<void> {
  // Listing writes nothing: a data dir without an environment has no projects, and
  // an older one is read as it is, not upgraded (a backup being checked stays as it was).
  const store = inspectDataDir(dataDir) === 'env' ? Store.open(dataDir, { readOnly: true }) : null;
  try {
    const projects = (store?.listProjects() ?? []).map((p) => ({
      id: p.id,
      name: p.name,
      check_limit: p.checkLimit,
      ping_log_limit: p.pingLogLimit,
      n_checks: store!.countChecks(p.id),
    }));
    const human =
      projects.length === 0
        ? 'no projects (create one: checkd project create --name NAME)'
        : [
            'ID                                    CHECKS  PING LOG  NAME',
            ...projects.map(
              (p) =>
                `${p.id.padEnd(36)}  ${`${p.n_checks}/${p.check_limit}`.padStart(6)}  ${String(p.ping_log_limit).padStart(8)}  ${p.name}`,
            ),
          ].join('\n');
    out.print({ projects }, human);
  } finally {
    await store?.close();
  }
}

export async function keyCreate(dataDir: string, opts: { project: string; readOnly: boolean }, out: Output) {
  const store = openForProject(dataDir, opts.project);
  try {
    const project = requireProject(store, opts.project);
    const key = await store.createKey(project.id, opts.readOnly, systemClock.now());
    out.print(
      { project: project.id, api_key: key, read_only: opts.readOnly },
      `${opts.readOnly ? 'read-only' : 'read-write'} key for ${project.id}: ${key}`,
    );
  } finally {
    await store.close();
  }
}

export async function keyRevoke(dataDir: string, opts: { project: string; key: string }, out: Output) {
  if (opts.key.length !== API_KEY_LENGTH) {
    throw new UsageError(`an API key is ${API_KEY_LENGTH} characters, got ${opts.key.length}`);
  }
  const store = openForProject(dataDir, opts.project);
  try {
    const project = requireProject(store, opts.project);
    if (!(await store.revokeKey(project.id, opts.key))) {
      throw new UsageError(`that key is not a key of project ${project.id}`);
    }
    out.print({ revoked: true }, 'key revoked');
  } finally {
    await store.close();
  }
}

export async function channelCreate(
  dataDir: string,
  opts: { project: string; kind: string; name?: string; value?: string } & RawNotifyOptions,
  out: Output,
) {
  // A Matrix room alias is joined first: the channel keeps the room's ID, and the alias as its name.
  const joined = opts.kind === 'matrix' ? await (await import('./matrix-join.js')).joinMatrixAlias(opts) : null;
  const checked = validateChannel(opts.kind, joined?.roomId ?? opts.value ?? '');
  if (!checked.ok) throw new UsageError(checked.error);
  const name = (opts.name ?? joined?.alias ?? '').trim();
  if (name.length > 100) throw new UsageError('--name must be at most 100 characters');
  // The API's `channels` parameter is a comma-separated list of ids or names.
  if (name.includes(',')) throw new UsageError('--name must not contain a comma');
  const store = openForProject(dataDir, opts.project);
  try {
    const project = requireProject(store, opts.project);
    if (opts.kind === 'group') {
      const error = groupMembersError(parseGroupValue(checked.value), project.id, (id) => store.getChannel(id));
      if (error) throw new UsageError(error);
    }
    const channel = await store.createChannel(
      { projectId: project.id, kind: opts.kind, name, value: checked.value },
      systemClock.now(),
    );
    out.print(
      { id: channel.id, name: channel.name, kind: channel.kind },
      `channel ${channel.id} (${channel.kind}${name ? `, "${name}"` : ''}) created`,
    );
  } finally {
    await store.close();
  }
}
