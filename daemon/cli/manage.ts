// The admin commands that change or remove what exists: project update and
// delete, key list, channel update and delete (contract.md, second round).
// Like the others they work with or without a running daemon, which sees the
// result at once through the event log.
import { isoSeconds } from '../domain/format.js';
import { validateChannel } from '../domain/channel-kinds.js';
import { parseRepeatEvery } from '../domain/policy-input.js';
import { systemClock } from '../shared/clock.js';
import { inspectDataDir } from '../store/db.js';
import { Store } from '../store/store.js';
import type { ProjectRecord } from '../domain/types.js';
import { checkGroupMembers, noCheckdData, openForProject, countArgument, requireProject, UsageError, type Output } from './admin.js';

/** The project as `project list` shows it. */
function projectJson(store: Store, p: ProjectRecord) {
  return { id: p.id, name: p.name, check_limit: p.checkLimit, ping_log_limit: p.pingLogLimit, n_checks: store.countChecks(p.id) };
}

function checkName(raw: string, what: string, max: number): string {
  const name = raw.trim();
  if (name === '') throw new UsageError(`${what} must not be empty`);
  if (name.length > max) throw new UsageError(`${what} must be at most ${max} characters`);
  return name;
}

export async function projectUpdate(
  dataDir: string,
  id: string,
  opts: { name?: string; checkLimit?: string; pingLogLimit?: string },
  out: Output,
  warn = (line: string) => process.stderr.write(line + '\n'),
): Promise<void> {
  const fields: Partial<Pick<ProjectRecord, 'name' | 'checkLimit' | 'pingLogLimit'>> = {};
  if (opts.name !== undefined) fields.name = checkName(opts.name, '--name', 200);
  if (opts.checkLimit !== undefined) fields.checkLimit = countArgument(opts.checkLimit, '--check-limit', 0, 1_000_000);
  if (opts.pingLogLimit !== undefined) fields.pingLogLimit = countArgument(opts.pingLogLimit, '--ping-log-limit', 1, 100_000);
  if (Object.keys(fields).length === 0) throw new UsageError('nothing to change: give --name, --check-limit or --ping-log-limit');
  const store = openForProject(dataDir, id);
  try {
    requireProject(store, id);
    const updated = (await store.updateProject(id, fields, systemClock.now()))!;
    const doc = projectJson(store, updated);
    if (doc.n_checks > doc.check_limit) {
      warn(`checkd: project ${id} has ${doc.n_checks} checks, more than its new limit: they stay, but no check can be created until some are deleted`);
    }
    out.print(
      doc,
      `project ${id} "${updated.name}" updated: check limit ${updated.checkLimit} (${doc.n_checks} in use), ping log limit ${updated.pingLogLimit}\n(data dir ${dataDir})`,
    );
  } finally {
    await store.close();
  }
}

export async function projectDelete(dataDir: string, id: string, opts: { yes?: boolean }, out: Output): Promise<void> {
  if (!opts.yes) {
    throw new UsageError(`deleting project ${id} removes its checks, pings, flips, keys and channels for good: add --yes to do it`);
  }
  const store = openForProject(dataDir, id);
  try {
    const project = requireProject(store, id);
    const checks = store.countChecks(id);
    await store.deleteProject(id, systemClock.now());
    out.print({ deleted: true }, `project ${id} "${project.name}" deleted with its ${checks} checks\n(data dir ${dataDir})`);
  } finally {
    await store.close();
  }
}

export async function keyList(dataDir: string, opts: { project: string }, out: Output): Promise<void> {
  const store = openForProject(dataDir, opts.project);
  try {
    requireProject(store, opts.project);
    const keys = store
      .listApiKeys()
      .filter((k) => k.rec.projectId === opts.project)
      // A project's first two keys share a millisecond: read-write first, as created.
      .sort((a, b) => a.rec.createdAt - b.rec.createdAt || Number(a.rec.readOnly) - Number(b.rec.readOnly))
      .map((k) => ({ prefix: k.rec.prefix ?? null, read_only: k.rec.readOnly, created: isoSeconds(k.rec.createdAt) }));
    const human = [
      'PREFIX    ACCESS      CREATED',
      ...keys.map((k) => `${(k.prefix ?? '(imported)').padEnd(8)}  ${(k.read_only ? 'read-only' : 'read-write').padEnd(10)}  ${k.created}`),
      `(data dir ${dataDir}; keys are stored hashed: only their first 8 characters can be shown)`,
    ].join('\n');
    out.print({ keys }, human);
  } finally {
    await store.close();
  }
}

/** A command about one channel by id: the data dir must hold checkd data. */
function openForChannel(dataDir: string, id: string): Store {
  if (inspectDataDir(dataDir) !== 'env') throw new UsageError(`no channel with id "${id}" (${noCheckdData(dataDir)})`);
  return Store.open(dataDir);
}

export async function channelUpdate(
  dataDir: string,
  id: string,
  opts: { name?: string; value?: string; repeatEvery?: string },
  out: Output,
): Promise<void> {
  if (opts.name === undefined && opts.value === undefined && opts.repeatEvery === undefined) {
    throw new UsageError('nothing to change: give --name, --value or --repeat-every');
  }
  if (opts.name !== undefined && opts.name.trim().length > 100) throw new UsageError('--name must be at most 100 characters');
  if (opts.name?.includes(',')) throw new UsageError('--name must not contain a comma');
  const repeat = opts.repeatEvery === undefined ? undefined : parseRepeatEvery(opts.repeatEvery);
  if (repeat && !repeat.ok) throw new UsageError(repeat.error);
  const store = openForChannel(dataDir, id);
  try {
    const channel = store.getChannel(id);
    if (!channel) throw new UsageError(`no channel with id "${id}" (see: checkd channel list --project ID)`);
    const fields: { name?: string; value?: string; repeatEvery?: number } = {};
    if (opts.name !== undefined) fields.name = opts.name.trim();
    if (opts.value !== undefined) {
      const checked = validateChannel(channel.kind, opts.value);
      if (!checked.ok) throw new UsageError(checked.error);
      if (channel.kind === 'group') checkGroupMembers(store, channel.projectId, checked.value);
      fields.value = checked.value;
    }
    if (repeat?.ok) fields.repeatEvery = repeat.seconds;
    const updated = (await store.updateChannel(id, fields, systemClock.now()))!;
    const every = updated.repeatEvery ? `, reminders every ${updated.repeatEvery} s` : '';
    out.print(
      { id: updated.id, name: updated.name, kind: updated.kind },
      `channel ${updated.id} (${updated.kind}${updated.name ? `, "${updated.name}"` : ''}${every}) updated\n(data dir ${dataDir})`,
    );
  } finally {
    await store.close();
  }
}

export async function channelDelete(dataDir: string, id: string, out: Output): Promise<void> {
  const store = openForChannel(dataDir, id);
  try {
    if (!(await store.deleteChannel(id, systemClock.now()))) {
      throw new UsageError(`no channel with id "${id}" (see: checkd channel list --project ID)`);
    }
    out.print({ deleted: true }, `channel ${id} deleted\n(data dir ${dataDir})`);
  } finally {
    await store.close();
  }
}
