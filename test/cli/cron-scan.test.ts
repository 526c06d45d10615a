// `checkd cron scan` as a user runs it: the built CLI on sample crontabs.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProjectCli, PORT0, runCli, runCliJson, startChild } from '../helpers/child.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/crontabs');
const USER = join(FIXTURES, 'user.cron');
const SYSTEM = join(FIXTURES, 'system.cron');

function dataDir(): string {
  return join(tempDir(), 'data');
}

describe('checkd cron scan', () => {
  it('lists the jobs of crontab files; malformed lines are reported on stderr, not fatal', async () => {
    const r = await runCli(['cron', 'scan', USER, '--json']);
    expect(r.code).toBe(0);
    const { jobs } = JSON.parse(r.stdout);
    expect(jobs).toHaveLength(5);
    expect(jobs[0]).toEqual({
      file: USER,
      line: 5,
      schedule: '0 3 * * *',
      tz: expect.any(String),
      command: '/usr/local/bin/backup.sh --full > /var/log/backup.log 2>&1',
      name: 'backup.sh',
      check: null,
    });
    expect(jobs[1]).toMatchObject({ line: 7, schedule: '0 0 * * *', tz: 'Europe/Berlin', name: 'rotate-logs' });
    expect(r.stderr).toContain(`${USER}:10: invalid cron schedule "61 * * * *"`);
    expect(r.stderr).toContain(`${USER}:9: @reboot jobs run once at boot`);
  });

  it('names are unique over all files; --system reads the user field', async () => {
    const { jobs } = await runCliJson(['cron', 'scan', '--system', SYSTEM, SYSTEM]);
    expect(jobs.map((j: any) => j.name)).toEqual(['cron.hourly', 'cron.daily', 'backup.sh', 'cron.hourly-2', 'cron.daily-2', 'backup.sh-2']);
  });

  it('--create makes one check per job (cron schedule, tz), idempotently; the daemon serves them', async () => {
    const dir = dataDir();
    const project = await createProjectCli(dir, 'cron');
    const first = await runCliJson(['cron', 'scan', USER, '--project', project.id, '--create', '--data-dir', dir]);
    const uuids = first.jobs.map((j: any) => j.check);
    expect(uuids.every((u: unknown) => typeof u === 'string')).toBe(true);
    const again = await runCliJson(['cron', 'scan', USER, '--project', project.id, '--create', '--data-dir', dir]);
    expect(again.jobs.map((j: any) => j.check)).toEqual(uuids);
    // Without --create, the checks that exist are found by name.
    const listed = await runCliJson(['cron', 'scan', USER, '--project', project.id, '--data-dir', dir]);
    expect(listed.jobs.map((j: any) => j.check)).toEqual(uuids);

    const daemon = await startChild(['--data-dir', dir, ...PORT0]);
    const list = await api(daemon.url, '/api/v3/checks/', { key: project.api_key });
    const byName = new Map(list.json.checks.map((c: any) => [c.name, c]));
    expect(list.json.checks).toHaveLength(5);
    expect(byName.get('rotate-logs')).toMatchObject({ schedule: '0 0 * * *', tz: 'Europe/Berlin', grace: 3600 });
    expect(byName.get('sync.py')).toMatchObject({ schedule: '*/5 * * * *', tz: 'Europe/Berlin' });
  });

  it('--print-crontab prints the crontab with each job wrapped by checkd run, and edits nothing', async () => {
    const dir = dataDir();
    const project = await createProjectCli(dir, 'cron');
    const created = await runCliJson(['cron', 'scan', USER, '--project', project.id, '--create', '--data-dir', dir]);
    const r = await runCli(['cron', 'scan', USER, '--project', project.id, '--print-crontab', '--data-dir', dir, '--url', 'http://mon.example:8000']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^# .*user\.cron, each job wrapped by checkd run/);
    expect(lines).toContain('SHELL=/bin/bash');
    const backup = lines.find((l) => l.includes(created.jobs[0].check))!;
    expect(backup).toMatch(new RegExp(`^0 3 \\* \\* \\* \\S+ \\S+ run --uuid ${created.jobs[0].check} --url http://mon.example:8000 -- /bin/bash -c '/usr/local/bin/backup.sh --full > /var/log/backup.log 2>&1'$`));
    expect(lines.find((l) => l.includes(created.jobs[1].check))).toMatch(/^@daily /);
    expect(lines).toContain('# checkd: not wrapped: its command uses % (cron turns it into a newline and standard input)');
    expect(lines).toContain('61 * * * * /bin/broken');
  });

  it('the printed line runs the job through checkd run (a real shell, the check pinged)', async () => {
    const dir = dataDir();
    const project = await createProjectCli(dir, 'cron');
    const daemon = await startChild(['--data-dir', dir, ...PORT0]);
    const crontab = join(tempDir(), 'tab');
    writeFileSync(crontab, `0 5 * * * echo "it's done" && exit 3\n`);
    await runCliJson(['cron', 'scan', crontab, '--project', project.id, '--create', '--data-dir', dir]);
    const r = await runCli(['cron', 'scan', crontab, '--project', project.id, '--print-crontab', '--data-dir', dir, '--url', daemon.url]);
    const line = r.stdout.split('\n')[1]!;
    const command = line.replace(/^0 5 \* \* \* /, '');
    const run = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8', timeout: 15_000 });
    expect(run.status).toBe(3);
    expect(run.stdout).toBe("it's done\n");
    const list = await api(daemon.url, '/api/v3/checks/', { key: project.api_key });
    expect(list.json.checks[0].status).toBe('down');
  });

  it('bad arguments: exit 2 with a clear message, nothing written', async () => {
    const dir = dataDir();
    const cases: Array<[string[], string]> = [
      [['cron', 'scan', USER, '--create'], '--create needs --project ID'],
      [['cron', 'scan', USER, '--print-crontab', '--json', '--project', 'x'], '--print-crontab prints crontabs, not JSON'],
      [['cron', 'scan', join(FIXTURES, 'missing.cron')], 'cannot read'],
      [['cron', 'scan', USER, '--project', 'nope', '--create', '--data-dir', dir], 'no project with id "nope"'],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});
