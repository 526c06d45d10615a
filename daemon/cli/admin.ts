// The admin commands of contract.md. They open the LMDB environment directly,
// so they work with or without a running daemon; the daemon reads keys,
// projects and channels from LMDB on every request and sees them at once.
import { Store } from '../store/store.js';
import { inspectDataDir } from '../store/db.js';
import { systemClock } from '../shared/clock.js';
import { API_KEY_LENGTH } from '../domain/ids.js';
import { groupMembersError, parseGroupValue } from '../domain/integrations/group.js';
import { parseCount } from '../domain/text-values.js';
import { UsageError } from './usage-error.js';
import { refuseDuringStorageAlarm } from '../store/storage-watch.js';

export { refuseDuringStorageAlarm };

// The commands take it from here with the rest of their kit.
export { UsageError };

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

/** A count argument within [min, max], as the admin commands word their refusal. */
export function countArgument(value: string, what: string, min: number, max: number): number {
  const count = parseCount(value, min, max);
  if (count.ok) return count.value;
  if (count.problem === 'not-a-count') throw new UsageError(`${what} must be a whole number from ${min} to ${max}, got "${value}"`);
  throw new UsageError(`${what} must be between ${min} and ${max}, got ${count.value}`);
}

function noProject(id: string): UsageError {
  return new UsageError(`no project with id "${id}" (see: checkd project list)`);
}

export function requireProject(store: Store, id: string) {
  const project = store.getProject(id);
  if (!project) throw noProject(id);
  return project;
}

/** Why a command found nothing where the data dir holds no checkd data (contract.md's wording). */
export function noCheckdData(dataDir: string): string {
  return `no checkd data in ${dataDir}; start \`checkd serve\` there first or pass --init`;
}

/**
 * Open the store for a command about an existing project. A data dir without
 * an environment has no projects: refuse without creating anything there.
 */
export function openForProject(dataDir: string, projectId: string): Store {
  if (inspectDataDir(dataDir) !== 'env') throw new UsageError(`no project with id "${projectId}" (${noCheckdData(dataDir)})`);
  return Store.open(dataDir);
}

/**
 * Open the store, creating the data dir if it holds no checkd data yet, and
 * say so on stderr: `project create`, `import` and `--init` may create one.
 */
export async function openCreating(dataDir: string): Promise<Store> {
  const fresh = inspectDataDir(dataDir) !== 'env';
  const store = Store.open(dataDir);
  if (fresh) process.stderr.write(`checkd: no checkd data in ${dataDir}: created it\n`);
  return store;
}

export async function projectCreate(
  dataDir: string,
  opts: { name: string; checkLimit: string; pingLogLimit: string },
  out: Output,
): Promise<void> {
  const name = opts.name.trim();
  if (name === '') throw new UsageError('--name must not be empty');
  if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
  const checkLimit = countArgument(opts.checkLimit, '--check-limit', 0, 1_000_000);
  const pingLogLimit = countArgument(opts.pingLogLimit, '--ping-log-limit', 1, 100_000);
  const store = await openCreating(dataDir);
  try {
    refuseDuringStorageAlarm(store, systemClock.now());
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
    refuseDuringStorageAlarm(store, systemClock.now());
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

/** A group's members must be channels of its project and not groups; a UsageError says which is not. */
export function checkGroupMembers(store: Store, projectId: string, value: string): void {
  const error = groupMembersError(parseGroupValue(value), projectId, (id) => store.getChannel(id));
  if (error) throw new UsageError(error);
}
