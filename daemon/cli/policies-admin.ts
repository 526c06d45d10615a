// The admin commands of the alert policies (contract.md, second round):
// `checkd maintenance add|list|remove` (alert-policies §4.2). Like the other
// admin commands they open the data dir directly; a running daemon follows
// the change through the event log.
import { Store } from '../store/store.js';
import { systemClock } from '../shared/clock.js';
import { parseDuration, validateWindowInput } from '../domain/policy-input.js';
import { windowToJson } from '../domain/maintenance.js';
import { UUID_RE } from '../domain/ids.js';
import { MaintenanceService } from '../service/maintenance.js';
import { openForProject, refuseDuringStorageAlarm, requireProject, UsageError, type Output } from './admin.js';
import { inspectDataDir } from '../store/db.js';

export interface MaintenanceAddOptions {
  project: string;
  name?: string;
  tags?: string;
  start?: string;
  end?: string;
  schedule?: string;
  tz?: string;
  duration?: string;
}

/** The API's message about a window field, in terms of the command's flags. */
function flagMessage(error: string): string {
  return error.replace(/^json validation error: /, '').replace(/^(name|tags|start|end|schedule|tz|duration)\b/, '--$1');
}

/** The window the flags describe, as the API would take it; a UsageError when they describe none. */
export function windowBody(opts: MaintenanceAddOptions): Record<string, unknown> {
  const oneOff = opts.start !== undefined || opts.end !== undefined;
  const recurring = opts.schedule !== undefined || opts.duration !== undefined || opts.tz !== undefined;
  if (oneOff === recurring) throw new UsageError('give --start and --end, or --schedule (with --tz) and --duration');
  const body: Record<string, unknown> = { name: opts.name ?? '', tags: opts.tags ?? '' };
  if (oneOff) {
    if (opts.start === undefined || opts.end === undefined) throw new UsageError('a one-off window needs both --start and --end');
    return { ...body, start: opts.start, end: opts.end };
  }
  if (opts.schedule === undefined || opts.duration === undefined) throw new UsageError('a recurring window needs --schedule and --duration');
  const duration = parseDuration(opts.duration);
  if (duration === null) throw new UsageError(`--duration must be seconds or a duration like 5m, 1h, 2d, got "${opts.duration}"`);
  return { ...body, schedule: opts.schedule, tz: opts.tz ?? 'UTC', duration };
}

function describeWindow(doc: Record<string, unknown>): string {
  const when = doc.schedule !== undefined ? `"${doc.schedule}" in ${doc.tz}, ${doc.duration} s each` : `${doc.start} to ${doc.end}`;
  const tags = doc.tags === '' ? 'every check' : `tags ${doc.tags}`;
  return `${doc.id}  ${when}, ${tags}${doc.name ? `  "${doc.name}"` : ''}`;
}

export async function maintenanceAdd(dataDir: string, opts: MaintenanceAddOptions, out: Output): Promise<void> {
  const input = validateWindowInput(windowBody(opts));
  if (!input.ok) throw new UsageError(flagMessage(input.error));
  const store = openForProject(dataDir, opts.project);
  try {
    refuseDuringStorageAlarm(store, systemClock.now());
    const project = requireProject(store, opts.project);
    const window = await new MaintenanceService(store, systemClock).create(project.id, input.window);
    const doc = windowToJson(window);
    out.print(doc, `maintenance window added: ${describeWindow(doc)}`);
  } finally {
    await store.close();
  }
}

export async function maintenanceList(dataDir: string, opts: { project: string }, out: Output): Promise<void> {
  if (inspectDataDir(dataDir) !== 'env') throw new UsageError(`no project with id "${opts.project}" (see: checkd project list)`);
  // Read-only: a listing neither writes nor upgrades an older data dir.
  const store = Store.open(dataDir, { readOnly: true });
  try {
    const project = requireProject(store, opts.project);
    const windows = new MaintenanceService(store, systemClock).list(project.id).map(windowToJson);
    const human = windows.length === 0 ? 'no maintenance windows' : windows.map(describeWindow).join('\n');
    out.print({ windows }, human);
  } finally {
    await store.close();
  }
}

export async function maintenanceRemove(dataDir: string, id: string, out: Output): Promise<void> {
  const missing = `no maintenance window with id "${id}" (see: checkd maintenance list --project ID)`;
  if (!UUID_RE.test(id) || inspectDataDir(dataDir) !== 'env') throw new UsageError(missing);
  const store = Store.open(dataDir);
  try {
    const removed = await new MaintenanceService(store, systemClock).remove(id);
    if (!removed) throw new UsageError(missing);
    out.print({ deleted: true }, `maintenance window ${id} removed`);
  } finally {
    await store.close();
  }
}
