// Reading crontabs (crontab(5)): the jobs they hold, each with its schedule,
// time zone and command, and a name for the check that will watch it. Pure:
// text in, jobs and problems out; `checkd cron scan` does the reading.
import { isValidCron } from './schedule/cron.js';
import { normalizeTimezone } from './timezones.js';

/** A user's crontab (`crontab -l`) has no user field; /etc/crontab and /etc/cron.d have one. */
export type CrontabFormat = 'user' | 'system';

export interface CronJob {
  line: number;
  /** Five cron fields, with a macro such as @daily written out. */
  schedule: string;
  /** The schedule as the crontab writes it (a macro stays a macro). */
  written: string;
  tz: string;
  command: string;
  /** The shell cron runs the command with (SHELL=, else /bin/sh). */
  shell: string;
  /** The user the job runs as (system crontabs only). */
  user?: string;
  name: string;
  /** Why this job cannot be wrapped by `checkd run` as it stands, if it cannot. */
  unwrappable?: string;
}

export interface CrontabProblem {
  line: number;
  text: string;
  error: string;
}

export interface ParsedCrontab {
  jobs: CronJob[];
  problems: CrontabProblem[];
}

const MACROS: Record<string, string | null> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
  // Runs once at boot: no schedule a check could expect.
  '@reboot': null,
};

const ENV_LINE = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/** Commands that only prepare the real one; the name comes from what they run. */
const WRAPPERS = new Set(['sudo', 'nice', 'ionice', 'nohup', 'timeout', 'flock', 'chronic', 'env', 'exec', 'time', 'setlock', 'cronic']);

/**
 * Parses one crontab. `defaultTz` is the zone cron runs in when no CRON_TZ or
 * TZ line says otherwise (the machine's local zone).
 */
export function parseCrontab(text: string, format: CrontabFormat, defaultTz: string): ParsedCrontab {
  const jobs: CronJob[] = [];
  const problems: CrontabProblem[] = [];
  let tz = defaultTz;
  let cronTzSet = false;
  let shell = '/bin/sh';
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const text = raw.replace(/\r$/, '');
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const env = ENV_LINE.exec(trimmed);
    if (env && !/^[@*\d]/.test(trimmed)) {
      const [, name, rawValue] = env;
      if (name === 'SHELL' && unquote(rawValue!.trim()) !== '') shell = unquote(rawValue!.trim());
      if (name === 'CRON_TZ' || (name === 'TZ' && !cronTzSet)) {
        const value = unquote(rawValue!.trim());
        const zone = normalizeTimezone(value);
        if (zone === null) problems.push({ line, text, error: `unknown time zone "${value}" in ${name}` });
        else {
          tz = zone;
          if (name === 'CRON_TZ') cronTzSet = true;
        }
      }
      return;
    }
    const parsed = parseJobLine(trimmed, format);
    if ('error' in parsed) {
      problems.push({ line, text, error: parsed.error });
      return;
    }
    jobs.push({ line, tz, shell, ...parsed, name: nameForCommand(parsed.command) });
  });
  return { jobs, problems };
}

function parseJobLine(text: string, format: CrontabFormat): Omit<CronJob, 'line' | 'tz' | 'shell' | 'name'> | { error: string } {
  let schedule: string;
  let written: string;
  let rest: string;
  if (text.startsWith('@')) {
    const [macro = '', ...tail] = text.split(/\s+/);
    const expanded = MACROS[macro.toLowerCase()];
    if (expanded === undefined) return { error: `unknown schedule macro "${macro}"` };
    if (expanded === null) return { error: `${macro} jobs run once at boot: no schedule to monitor` };
    schedule = expanded;
    written = macro;
    rest = text.slice(macro.length).trimStart();
    if (tail.length === 0) return { error: 'no command after the schedule' };
  } else {
    const fields = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(text);
    if (!fields) return { error: 'expected five schedule fields and a command' };
    schedule = fields.slice(1, 6).join(' ');
    written = schedule;
    rest = fields[6]!;
    if (!isValidCron(schedule)) return { error: `invalid cron schedule "${schedule}"` };
  }
  let user: string | undefined;
  if (format === 'system') {
    const m = /^(\S+)\s*(.*)$/.exec(rest);
    if (!m || m[2] === '') return { error: 'expected a user and a command after the schedule' };
    user = m[1];
    rest = m[2]!;
  }
  const command = rest.trim();
  if (command === '') return { error: 'no command after the schedule' };
  const unwrappable = hasUnescapedPercent(command)
    ? 'its command uses % (cron turns it into a newline and standard input)'
    : undefined;
  return { schedule, written, command, ...(user !== undefined ? { user } : {}), ...(unwrappable ? { unwrappable } : {}) };
}

function unquote(value: string): string {
  const m = /^(['"])(.*)\1$/.exec(value);
  return m ? m[2]! : value;
}

function hasUnescapedPercent(command: string): boolean {
  return /(^|[^\\])%/.test(command);
}

/**
 * A name for the job's check: the program it runs (`backup.sh` from
 * `cd /srv && ./backup.sh --full >/dev/null`), `run-parts`' directory, or the
 * first word when nothing better is found.
 */
export function nameForCommand(command: string): string {
  // The last step of a chain is usually the job; `cd`/`test` before it only prepare.
  const steps = command
    .split(/\s*(?:&&|\|\||;)\s*/)
    .map((s) => s.replace(/^[\s({]+|[\s)}]+$/g, ''))
    .filter((s) => s !== '');
  const step = steps.find((s) => !/^(cd|test|\[|\[\[|export|set|umask|sleep|source|\.)\b/.test(s.trim())) ?? steps[0] ?? command;
  const words = step.trim().split(/\s+/).filter((w) => !/^[0-9]*[<>]/.test(w));
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    const base = basename(word);
    if (ENV_LINE.test(word) || word.startsWith('-')) i++;
    // flock and setlock take the lock file before the command.
    else if (base === 'flock' || base === 'setlock') {
      i++;
      while (words[i]?.startsWith('-')) i++;
      i++;
    } else if (WRAPPERS.has(base)) i++;
    else if (/^[0-9]+[smhd]?$/.test(word) && i > 0) i++;
    else break;
  }
  const program = words[i] ?? words[0] ?? command;
  const base = basename(program);
  if ((base === 'run-parts' || /^(sh|bash|dash|zsh|python3?|perl|php|node|ruby)$/.test(base)) && words[i + 1]) {
    const target = words.slice(i + 1).find((w) => !w.startsWith('-'));
    if (target) return clip(basename(target));
  }
  return clip(base || command);
}

function basename(word: string): string {
  return word.replace(/^['"]|['"]$/g, '').replace(/\/+$/, '').split('/').pop() ?? word;
}

function clip(name: string): string {
  return name.length > 100 ? name.slice(0, 100) : name;
}

/** Two jobs running the same program get `name`, `name-2`, ..., in the order given. */
export function uniqueNames(jobs: CronJob[]): CronJob[] {
  const seen = new Map<string, number>();
  return jobs.map((job) => {
    const n = (seen.get(job.name) ?? 0) + 1;
    seen.set(job.name, n);
    return n === 1 ? job : { ...job, name: `${job.name}-${n}` };
  });
}

/**
 * The crontab line with the job wrapped by `checkd run`, or null when it
 * cannot be. `checkd` is the command that runs checkd from cron's short PATH.
 */
export function wrappedLine(job: CronJob, uuid: string, url: string | null, checkd: string): string | null {
  if (job.unwrappable) return null;
  const urlOpt = url ? ` --url ${shellQuote(url)}` : '';
  const user = job.user !== undefined ? ` ${job.user}` : '';
  return `${job.written}${user} ${checkd} run --uuid ${uuid}${urlOpt} -- ${shellQuote(job.shell)} -c ${shellQuote(job.command)}`;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
