// `checkd import --from-healthchecks URL --api-key KEY (--project ID | --name NAME)`:
// moves a project from Healthchecks (hosted or self-hosted, or another checkd)
// into this data dir. Everything is read first (healthchecks-fetch.ts) and
// mapped (healthchecks-map.ts); then one transaction checks the target and
// writes: each check with its UUID, so its ping URL keeps working once the host
// name points here, with its settings, status, ping log and flips; each channel
// by name and kind, without its value (the API does not give channel secrets),
// so it is disabled until given one. Checks and channels that exist already are
// skipped, so a second run changes nothing. A failure leaves nothing written.
import { UsageError, type Output } from '../cli/admin.js';
import { progressBar } from '../cli/progress.js';
import { inspectDataDir } from '../store/db.js';
import { Store } from '../store/store.js';
import { systemClock } from '../shared/clock.js';
import { needsValue, setValueCommand } from '../domain/channel-kinds.js';
import { newUuid } from '../domain/ids.js';
import type { ChannelRecord, ProjectRecord } from '../domain/types.js';
import { PING_KEY_RE } from './export-fields.js';
import { OpsError } from './errors.js';
import { apiBase, HealthchecksClient, type ClientOptions } from './healthchecks-client.js';
import { fetchProject } from './healthchecks-fetch.js';
import { mapProject, MappingError, type MappedChannel, type MappedProject } from './healthchecks-map.js';

export interface HealthchecksImportOptions {
  fromHealthchecks: string;
  apiKey?: string;
  project?: string;
  name?: string;
  pingKey?: string;
  /** Also read each logged ping's body (one request per ping). */
  pingBodies?: boolean;
}

/** The `--json` document of contract.md. */
export interface HealthchecksImportSummary {
  project: string;
  checks_created: number;
  checks_skipped: number;
  channels_created: number;
  flips: number;
  pings: number;
}

/** Defaults of a project the import creates, raised to what the source needs (contract.md: 20 and 100). */
const NEW_PROJECT_CHECK_LIMIT = 20;
const NEW_PROJECT_PING_LOG_LIMIT = 100;
const PROJECT_NAME_MAX = 200;

interface Target {
  projectId?: string;
  name?: string;
  pingKey?: string;
}

/** What the transaction did, for the report. */
interface Written {
  project: ProjectRecord;
  /** Keys of a project the import created, in clear (shown once). */
  keys: { apiKey: string; apiKeyReadonly: string } | null;
  pingKeyChanged: boolean;
  checksCreated: number;
  checksSkipped: number;
  channelsCreated: number;
  /** Channels the imported checks use that still need a value. */
  toConfigure: ChannelRecord[];
  unsupported: MappedChannel[];
  flips: number;
  pings: number;
  slugs: boolean;
}

function validateOptions(opts: HealthchecksImportOptions): { base: string; apiKey: string; target: Target } {
  const base = apiBase(opts.fromHealthchecks);
  const apiKey = opts.apiKey?.trim() ?? '';
  if (apiKey === '') throw new UsageError('--from-healthchecks needs --api-key KEY (a read-write API key of the project)');
  if ((opts.project === undefined) === (opts.name === undefined)) {
    throw new UsageError('give either --project ID (import into that project) or --name NAME (into the project of that name, created if missing)');
  }
  const name = opts.name?.trim();
  if (name !== undefined && (name === '' || name.length > PROJECT_NAME_MAX)) {
    throw new UsageError(`--name must be 1 to ${PROJECT_NAME_MAX} characters`);
  }
  if (opts.pingKey !== undefined && !PING_KEY_RE.test(opts.pingKey)) {
    throw new UsageError('--ping-key must be the project\'s ping key: 1 to 64 of a-z, A-Z, 0-9, - and _');
  }
  return { base, apiKey, target: { projectId: opts.project, name, pingKey: opts.pingKey } };
}

const noProject = (id: string) => new UsageError(`no project with id "${id}" (see: checkd project list)`);

/** The project to import into, or null when --name names none yet. Throws UsageError. */
function resolveProject(store: Store, target: Target): ProjectRecord | null {
  let project: ProjectRecord | null = null;
  if (target.projectId !== undefined) {
    project = store.getProject(target.projectId) ?? null;
    if (!project) throw noProject(target.projectId);
  } else {
    const named = store.listProjects().filter((p) => p.name === target.name);
    if (named.length > 1) {
      throw new UsageError(`${named.length} projects are named "${target.name}": pass --project ID instead (see: checkd project list)`);
    }
    project = named[0] ?? null;
  }
  if (target.pingKey !== undefined) {
    const owner = store.projectByPingKey(target.pingKey);
    if (owner && owner.id !== project?.id) throw new UsageError(`--ping-key is already the ping key of project ${owner.id} ("${owner.name}")`);
  }
  return project;
}

function refuse(lines: string[]): never {
  const shown = lines.slice(0, 20);
  const more = lines.length > 20 ? `\n  ... and ${lines.length - 20} more` : '';
  throw new UsageError(`refusing to import, nothing written:\n  ${shown.join('\n  ')}${more}`);
}

/**
 * Inside a write transaction: check the target against what was read and
 * write it. Every check comes before the first write, so a refusal (a UsageError)
 * leaves the transaction empty.
 */
function writeImport(store: Store, source: MappedProject, target: Target, now: number): Written {
  const existing = resolveProject(store, target);

  const toCreate: MappedProject['checks'] = [];
  let checksSkipped = 0;
  const clashes: string[] = [];
  for (const m of source.checks) {
    const found = store.getCheck(m.check.uuid);
    if (!found) toCreate.push(m);
    else if (found.projectId === existing?.id) checksSkipped++;
    else clashes.push(`check ${m.check.uuid} ("${m.check.name}") already exists in project ${found.projectId}`);
  }
  if (clashes.length > 0) refuse(clashes);
  if (existing) {
    const have = store.countChecks(existing.id);
    if (have + toCreate.length > existing.checkLimit) {
      const needed = have + toCreate.length;
      refuse([
        `project ${existing.id} allows ${existing.checkLimit} checks and has ${have}; the ${toCreate.length} new ones need a check limit of ${needed}` +
          ` (raise it: checkd project update ${existing.id} --check-limit ${needed})`,
      ]);
    }
  }

  // Channels: the same one again (same id, or same kind and name in the project), else a new one without a value.
  const channelsBefore = existing ? store.listChannels(existing.id) : [];
  const channelIds = new Map<string, string>();
  const newChannels: ChannelRecord[] = [];
  const unsupported: MappedChannel[] = [];
  let createdAt = Math.max(now, (channelsBefore.at(-1)?.createdAt ?? 0) + 1);
  for (const c of source.channels) {
    if (!c.supported) {
      unsupported.push(c);
      continue;
    }
    const same = channelsBefore.find((x) => x.id === c.id) ?? channelsBefore.find((x) => x.kind === c.kind && x.name !== '' && x.name === c.name);
    if (same) {
      channelIds.set(c.id, same.id);
      continue;
    }
    // The source's id, unless another project here has it.
    const id = store.getChannel(c.id) ? newUuid() : c.id;
    newChannels.push({ id, projectId: '', kind: c.kind, name: c.name, value: '', createdAt: createdAt++ });
    channelIds.set(c.id, id);
  }

  // Writes from here on.
  let project = existing;
  let keys: Written['keys'] = null;
  let pingKeyChanged = false;
  if (!project) {
    const made = store.createProjectInTxn(
      {
        name: target.name!,
        // The whole source fits, and as many pings per check as it logged.
        checkLimit: Math.max(NEW_PROJECT_CHECK_LIMIT, toCreate.length),
        pingLogLimit: toCreate.reduce((most, m) => Math.max(most, m.pings.length), NEW_PROJECT_PING_LOG_LIMIT),
        pingKey: target.pingKey,
      },
      now,
    );
    project = made.project;
    keys = { apiKey: made.apiKey, apiKeyReadonly: made.apiKeyReadonly };
  } else if (target.pingKey !== undefined && target.pingKey !== project.pingKey) {
    store.setPingKeyInTxn(project.id, target.pingKey, now);
    pingKeyChanged = true;
  }
  for (const c of newChannels) store.insertChannelInTxn({ ...c, projectId: project.id }, now);

  const keep = project.pingLogLimit;
  const badgeKeys = new Set<string>();
  let flips = 0;
  let pings = 0;
  for (const m of toCreate) {
    const wanted = m.sourceBadgeKey;
    const badgeKey = wanted !== null && !badgeKeys.has(wanted) && !store.checkByBadgeKey(wanted) ? wanted : newUuid();
    badgeKeys.add(badgeKey);
    const channels = [...new Set(m.check.channels.map((id) => channelIds.get(id)).filter((id) => id !== undefined))].sort();
    const check = { ...m.check, projectId: project.id, badgeKey, channels };
    store.insertCheckInTxn(check, now);
    for (const flip of m.flips) store.insertFlipInTxn(check, flip, now);
    flips += m.flips.length;
    const logged = m.pings.slice(-keep);
    for (const ping of logged) store.insertImportedPingInTxn(check, ping);
    pings += logged.length;
  }

  const used = new Set(source.channels.map((c) => channelIds.get(c.id)).filter((id) => id !== undefined));
  return {
    project: store.getProject(project.id) ?? project,
    keys,
    pingKeyChanged,
    checksCreated: toCreate.length,
    checksSkipped,
    channelsCreated: newChannels.length,
    toConfigure: store.listChannels(project.id).filter((c) => used.has(c.id) && needsValue(c)),
    unsupported,
    flips,
    pings,
    slugs: toCreate.some((m) => m.check.slug !== ''),
  };
}

/** The lines after the summary: new keys, what is left to configure, what was left out. */
function details(w: Written, target: Target): string[] {
  const lines: string[] = [];
  const p = w.project;
  if (w.keys) {
    lines.push(
      `project ${p.id} "${p.name}" created`,
      `  api key (read-write): ${w.keys.apiKey}`,
      `  api key (read-only):  ${w.keys.apiKeyReadonly}`,
      `  ping key:             ${p.pingKey}`,
      `  check limit ${p.checkLimit}, ping log limit ${p.pingLogLimit}`,
      'Keys are stored hashed: note them now, they cannot be shown again.',
    );
  }
  if (w.pingKeyChanged) lines.push(`the ping key of project ${p.id} is now the one given with --ping-key; slug URLs with its old key no longer work`);
  if (w.slugs && target.pingKey === undefined) {
    lines.push(`slug ping URLs use this project's ping key ${p.pingKey}: to keep the old ones, run again with --ping-key and the project's ping key from Healthchecks`);
  }
  if (w.toConfigure.length > 0) {
    lines.push('channels to configure (the API does not give their values; nothing is sent through them until they have one):');
    for (const c of w.toConfigure) lines.push(`  ${c.id}  ${c.kind.padEnd(7)}  ${c.name ? `"${c.name}"` : '(no name)'}  ${setValueCommand(c.id)}`);
  }
  if (w.unsupported.length > 0) {
    lines.push('channels not imported (checkd cannot deliver to their kind; checks lose these assignments):');
    for (const c of w.unsupported) lines.push(`  ${c.id}  ${c.kind.padEnd(7)}  ${c.name ? `"${c.name}"` : '(no name)'}`);
  }
  return lines;
}

export async function importFromHealthchecks(
  dataDir: string,
  opts: HealthchecksImportOptions,
  out: Output,
  io: { stderr: NodeJS.WriteStream; client?: Omit<ClientOptions, 'onWait'> } = { stderr: process.stderr },
): Promise<HealthchecksImportSummary> {
  const { base, apiKey, target } = validateOptions(opts);
  const state = inspectDataDir(dataDir); // throws DataDirError (exit 2) for an unusable dir
  // Refuse what can be refused before the (possibly long) read.
  if (state !== 'env') {
    if (target.projectId !== undefined) throw noProject(target.projectId);
  } else {
    const peek = Store.open(dataDir, { readOnly: true });
    try {
      resolveProject(peek, target);
    } finally {
      await peek.close();
    }
  }

  const progress = progressBar(io.stderr, 'reading', { enabled: !out.json });
  const client = new HealthchecksClient(base, apiKey, {
    ...io.client,
    onWait: (ms, why) => progress.note(`${why}: waiting ${Math.ceil(ms / 1000)} s`),
  });
  let source: MappedProject;
  try {
    const read = await fetchProject(client, { pingBodies: opts.pingBodies ?? false, progress: (done, total) => progress.update(done, total) });
    source = mapProject(read, systemClock.now());
  } catch (err) {
    if (err instanceof MappingError) {
      const shown = err.problems.slice(0, 20);
      const more = err.problems.length > 20 ? `\n  ... and ${err.problems.length - 20} more` : '';
      throw new OpsError(`the source has data checkd cannot take, nothing imported:\n  ${shown.join('\n  ')}${more}`);
    }
    throw err;
  } finally {
    progress.end();
  }

  const store = Store.open(dataDir);
  if (state !== 'env') io.stderr.write(`checkd: no checkd data in ${dataDir}: created it\n`);
  let written: Written;
  try {
    const now = systemClock.now();
    written = await store.transact(() => writeImport(store, source, target, now));
  } finally {
    await store.close();
  }

  const summary: HealthchecksImportSummary = {
    project: written.project.id,
    checks_created: written.checksCreated,
    checks_skipped: written.checksSkipped,
    channels_created: written.channelsCreated,
    flips: written.flips,
    pings: written.pings,
  };
  const headline =
    `imported from ${base.replace(/\/api\/v3$/, '')} into project ${written.project.id} "${written.project.name}": ` +
    `${summary.checks_created} check(s) created, ${summary.checks_skipped} skipped (already here), ` +
    `${summary.channels_created} channel(s) created, ${summary.flips} flip(s), ${summary.pings} ping(s)`;
  const more = details(written, target);
  // --json: stdout carries the one document; the rest (new keys included) goes to stderr.
  if (out.json && more.length > 0) io.stderr.write(more.join('\n') + '\n');
  out.print({ ...summary }, [headline, ...(out.json ? [] : more)].join('\n'));
  return summary;
}
