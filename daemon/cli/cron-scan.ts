// `checkd cron scan`: finds the jobs in crontabs and proposes a check for each;
// with --create it creates them, with --print-crontab it prints the crontabs
// with each job wrapped by `checkd run`. It never edits a crontab.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseCrontab, shellQuote, uniqueNames, wrappedLine, type CronJob, type CrontabFormat } from '../domain/crontab.js';
import { validateCheckInput } from '../domain/check-input.js';
import { CheckService } from '../service/checks.js';
import { systemClock } from '../shared/clock.js';
import type { Store } from '../store/store.js';
import { openForProject, refuseDuringStorageAlarm, requireProject, UsageError, type Output } from './admin.js';

/** A crontab as read: where from, in which format, its text. */
export interface CrontabSource {
  file: string;
  format: CrontabFormat;
  text: string;
}

export interface ScanOptions {
  files: string[];
  project?: string;
  create?: boolean;
  printCrontab?: boolean;
  system?: boolean;
  url?: string;
  json: boolean;
}

/** The grace of the checks it creates: a job may run late or long by this much. */
const CREATED_GRACE_S = 3600;
const DEFAULT_URL = 'http://127.0.0.1:8000';

export async function cronScan(dataDir: string, opts: ScanOptions, out: Output, warn = (line: string) => process.stderr.write(line + '\n')): Promise<void> {
  if (opts.create && !opts.project) throw new UsageError('--create needs --project ID (the project the checks go to)');
  if (opts.printCrontab && opts.json) throw new UsageError('--print-crontab prints crontabs, not JSON: leave out --json');
  if (opts.printCrontab && !opts.project) throw new UsageError('--print-crontab needs --project ID (its checks give the ping URLs)');
  const sources = opts.files.length > 0 ? opts.files.map((f) => readGiven(f, opts.system)) : await readDefaultSources(warn);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const parsed = sources.map((source) => ({ source, ...parseCrontab(source.text, source.format, zone) }));
  // Names are unique over everything scanned: each becomes one check of the project.
  const named = uniqueNames(parsed.flatMap((p) => p.jobs));
  let next = 0;
  const scanned = parsed.map((p) => ({ ...p, jobs: p.jobs.map(() => named[next++]!) }));
  for (const { source, problems } of scanned) {
    for (const p of problems) warn(`checkd cron scan: ${source.file}:${p.line}: ${p.error}: ${p.text.trim()}`);
  }

  const checks = new Map<CronJob, string | null>();
  if (opts.project) {
    const store = openForProject(dataDir, opts.project);
    try {
      if (opts.create) refuseDuringStorageAlarm(store, systemClock.now());
      const project = requireProject(store, opts.project);
      const service = new CheckService(store, systemClock);
      for (const { jobs } of scanned) {
        for (const job of jobs) checks.set(job, opts.create ? await createFor(service, project, job, warn) : existingFor(store, project.id, job));
      }
    } finally {
      await store.close();
    }
  }

  if (opts.printCrontab) {
    const url = opts.url && opts.url !== DEFAULT_URL ? opts.url : null;
    out.print({}, scanned.map(({ source, jobs }) => printWrapped(source, jobs, checks, url)).join('\n'));
    return;
  }
  const rows = scanned.flatMap(({ source, jobs }) =>
    jobs.map((job) => ({
      file: source.file,
      line: job.line,
      schedule: job.schedule,
      tz: job.tz,
      command: job.command,
      name: job.name,
      check: checks.get(job) ?? null,
    })),
  );
  const human =
    rows.length === 0
      ? `no cron jobs found in ${sources.map((s) => s.file).join(', ') || 'any crontab'}`
      : rows
          .map((r) => `${r.file}:${r.line}  ${r.schedule}  ${r.tz}  ${r.name}  ${r.check ?? '(no check)'}\n    ${r.command}`)
          .join('\n') + (opts.project ? `\n(data dir ${dataDir})` : '');
  out.print({ jobs: rows }, human);
}

function readGiven(file: string, system?: boolean): CrontabSource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const path = resolve(file);
  const isSystem = system || path === '/etc/crontab' || path.startsWith('/etc/cron.d/');
  return { file, format: isSystem ? 'system' : 'user', text };
}

/** /etc/crontab, /etc/cron.d and the user's own crontab, whichever exist. */
async function readDefaultSources(warn: (line: string) => void): Promise<CrontabSource[]> {
  const sources: CrontabSource[] = [];
  const tryRead = (file: string) => {
    try {
      sources.push({ file, format: 'system', text: readFileSync(file, 'utf8') });
    } catch {
      // absent or unreadable: nothing to scan there
    }
  };
  tryRead('/etc/crontab');
  let entries: string[] = [];
  try {
    entries = readdirSync('/etc/cron.d').sort();
  } catch {
    // no cron.d
  }
  // cron itself skips names with dots or ending in ~ (package backups).
  for (const name of entries) if (/^[A-Za-z0-9_-]+$/.test(name)) tryRead(join('/etc/cron.d', name));
  try {
    const { stdout } = await promisify(execFile)('crontab', ['-l'], { timeout: 10_000 });
    sources.push({ file: 'crontab -l', format: 'user', text: stdout });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') warn('checkd cron scan: no crontab command here; only system crontabs were read');
    // `crontab -l` fails when the user has no crontab: nothing to scan.
  }
  return sources;
}

async function createFor(
  service: CheckService,
  project: ReturnType<typeof requireProject>,
  job: CronJob,
  warn: (line: string) => void,
): Promise<string | null> {
  const validated = validateCheckInput({ name: job.name, schedule: job.schedule, tz: job.tz, grace: CREATED_GRACE_S, unique: ['name'] });
  if (!validated.ok) {
    warn(`checkd cron scan: line ${job.line}: no check created: ${validated.error}`);
    return null;
  }
  const result = await service.create(project, validated.input, 3);
  if (result.kind === 'created' || result.kind === 'updated') return result.check.uuid;
  if (result.kind === 'limit') {
    warn(`checkd cron scan: line ${job.line}: no check for "${job.name}": the project's check limit (${project.checkLimit}) is reached (raise it with checkd project update)`);
  } else warn(`checkd cron scan: line ${job.line}: no check created: ${result.error}`);
  return null;
}

function existingFor(store: Store, projectId: string, job: CronJob): string | null {
  return store.checksWith(projectId, 'name', job.name)[0]?.uuid ?? null;
}

function printWrapped(source: CrontabSource, jobs: CronJob[], checks: Map<CronJob, string | null>, url: string | null): string {
  const byLine = new Map(jobs.map((j) => [j.line, j]));
  const lines = source.text.replace(/\n$/, '').split('\n');
  const body = lines.map((text, i) => {
    const job = byLine.get(i + 1);
    if (!job) return text;
    const uuid = checks.get(job);
    if (!uuid) return `# checkd: no check for this job yet (run cron scan with --create)\n${text}`;
    const wrapped = wrappedLine(job, uuid, url, checkdCommand());
    return wrapped === null ? `# checkd: not wrapped: ${job.unwrappable}\n${text}` : wrapped;
  });
  return [`# ${source.file}, each job wrapped by checkd run (printed by checkd cron scan; review before installing)`, ...body].join('\n');
}

/** This checkd, by absolute paths: cron's PATH is short and knows no npm bin dir. */
function checkdCommand(): string {
  const script = process.argv[1] ? realpathSync(process.argv[1]) : 'checkd';
  return `${shellQuote(process.execPath)} ${shellQuote(script)}`;
}
