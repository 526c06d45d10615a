// Crontab parsing for `checkd cron scan`: schedules, macros, time zones, names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nameForCommand, parseCrontab, uniqueNames, wrappedLine } from '../../daemon/domain/crontab.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../cli/fixtures/crontabs', name), 'utf8');

describe('parseCrontab (user format)', () => {
  const { jobs, problems } = parseCrontab(fixture('user.cron'), 'user', 'UTC');

  it('finds every job with its schedule, in file order; macros written out', () => {
    expect(jobs.map((j) => [j.line, j.schedule, j.written])).toEqual([
      [5, '0 3 * * *', '0 3 * * *'],
      [7, '0 0 * * *', '@daily'],
      [8, '*/5 * * * *', '*/5 * * * *'],
      [11, '30 2 * * 1-5', '30 2 * * 1-5'],
      [12, '15 4 * * 0', '15 4 * * 0'],
    ]);
  });

  it('CRON_TZ applies to the jobs after it; before it, the default zone', () => {
    expect(jobs.map((j) => j.tz)).toEqual(['UTC', 'Europe/Berlin', 'Europe/Berlin', 'Europe/Berlin', 'Europe/Berlin']);
  });

  it('keeps the command whole, long lines included, and the SHELL it runs with', () => {
    expect(jobs[0]!.command).toBe('/usr/local/bin/backup.sh --full > /var/log/backup.log 2>&1');
    expect(jobs[2]!.command).toMatch(/--and-on-again$/);
    expect(jobs.every((j) => j.shell === '/bin/bash')).toBe(true);
  });

  it('reports a malformed line and @reboot as problems, not fatally', () => {
    expect(problems).toEqual([
      { line: 9, text: '@reboot /usr/bin/start-thing', error: '@reboot jobs run once at boot: no schedule to monitor' },
      { line: 10, text: '61 * * * * /bin/broken', error: 'invalid cron schedule "61 * * * *"' },
    ]);
  });

  it('a command with an unescaped % cannot be wrapped; an escaped one can', () => {
    expect(jobs[3]!.unwrappable).toBeUndefined();
    expect(jobs[4]!.unwrappable).toMatch(/uses %/);
  });
});

describe('parseCrontab (system format)', () => {
  const { jobs, problems } = parseCrontab(fixture('system.cron'), 'system', 'UTC');

  it('reads the user field; TZ sets the zone when no CRON_TZ does', () => {
    expect(jobs.map((j) => [j.user, j.schedule, j.tz, j.name])).toEqual([
      ['root', '17 * * * *', 'America/New_York', 'cron.hourly'],
      ['root', '25 6 * * *', 'America/New_York', 'cron.daily'],
      ['backup', '0 0 * * 0', 'America/New_York', 'backup.sh'],
    ]);
  });

  it('a job line without a command is a problem', () => {
    expect(problems).toEqual([{ line: 7, text: '0 1 * * *', error: 'expected a user and a command after the schedule' }]);
  });
});

describe('time zone lines', () => {
  it('CRON_TZ wins over a later TZ; an unknown zone is a problem and changes nothing', () => {
    const { jobs, problems } = parseCrontab('CRON_TZ=Asia/Tokyo\nTZ=Europe/Paris\n0 1 * * * a\nCRON_TZ=Mars/Olympus\n0 2 * * * b\n', 'user', 'UTC');
    expect(jobs.map((j) => j.tz)).toEqual(['Asia/Tokyo', 'Asia/Tokyo']);
    expect(problems.map((p) => p.error)).toEqual(['unknown time zone "Mars/Olympus" in CRON_TZ']);
  });
});

describe('nameForCommand', () => {
  it.each([
    ['/usr/local/bin/backup.sh --full > /var/log/backup.log 2>&1', 'backup.sh'],
    ['cd /srv/app && ./rotate-logs', 'rotate-logs'],
    ['flock -n /tmp/sync.lock /opt/jobs/sync.py --quiet', 'sync.py'],
    ['nice -n 10 ionice -c3 /usr/bin/rsync -a /a /b', 'rsync'],
    ['timeout 30m /usr/bin/pg_dump db', 'pg_dump'],
    ['FOO=1 /opt/x/run', 'run'],
    ['python3 /opt/jobs/report.py', 'report.py'],
    ['test -x /usr/sbin/anacron || ( cd / && run-parts --report /etc/cron.daily )', 'cron.daily'],
    ['run-parts --report /etc/cron.weekly', 'cron.weekly'],
  ])('%s → %s', (command, name) => {
    expect(nameForCommand(command)).toBe(name);
  });

  it('two jobs running the same program get distinct names', () => {
    const { jobs } = parseCrontab('0 1 * * * /bin/job a\n0 2 * * * /bin/job b\n0 3 * * * /bin/job c\n', 'user', 'UTC');
    expect(uniqueNames(jobs).map((j) => j.name)).toEqual(['job', 'job-2', 'job-3']);
  });
});

describe('wrappedLine', () => {
  it('wraps the command for its shell, keeps a macro and the user field, quotes what needs it', () => {
    const { jobs } = parseCrontab(fixture('system.cron'), 'system', 'UTC');
    const line = wrappedLine(jobs[2]!, 'UUID', 'http://mon:8000', '/usr/bin/checkd');
    expect(line).toBe("@weekly backup /usr/bin/checkd run --uuid UUID --url http://mon:8000 -- /bin/sh -c /usr/local/bin/backup.sh");
    const quoted = wrappedLine({ ...jobs[0]!, command: "echo 'it''s' && x" }, 'U', null, 'checkd');
    expect(quoted).toBe(`17 * * * * root checkd run --uuid U -- /bin/sh -c 'echo '\\''it'\\'''\\''s'\\'' && x'`);
  });
});
