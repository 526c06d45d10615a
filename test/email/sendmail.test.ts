// `checkd sendmail`, the way in for cron's mail on a machine without an MTA:
// the built CLI run with the flags cron passes, the message on stdin.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { childEnv, createProjectCli, PORT0, startChild, type ChildDaemon, type CreatedProject } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, freePort } from '../helpers/http.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { parseSendmailArgs } from '../../daemon/cli/sendmail.js';
import { cronMessage } from './support.js';

const DOMAIN = 'pings.example.org';
let daemon: ChildDaemon;
let project: CreatedProject;
let uuid: string;

setupSuite(async () => {
  const data = tempDir('checkd-sendmail-');
  project = await createProjectCli(data, 'cron');
  daemon = await startChild(['--data-dir', data, ...PORT0, '--smtp-listen', '127.0.0.1:0', '--ping-email-domain', DOMAIN]);
  const created = await api(daemon.url, '/api/v3/checks/', { key: project.api_key, body: { name: 'nightly', slug: 'nightly' } });
  uuid = created.json.ping_url.split('/').pop();
});

async function sendmail(args: string[], input: string, env: NodeJS.ProcessEnv = {}) {
  const proc = spawn(process.execPath, [CHECKD_BIN, 'sendmail', ...args], { env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  proc.stdin.end(input);
  const [code] = (await once(proc, 'close')) as [number | null];
  return { code, stdout, stderr };
}

async function pings(): Promise<any[]> {
  return (await api(daemon.url, `/api/v3/checks/${uuid}/pings/`, { key: project.api_key })).json.pings;
}

describe('checkd sendmail', () => {
  it("cronie's command line (-t: recipients from the headers), the address from CHECKD_SMTP_LISTEN", async () => {
    const before = (await pings()).length;
    const to = `${uuid}@${DOMAIN}`;
    const r = await sendmail(['-FCronDaemon', '-i', '-odi', '-oem', '-oi', '-t', '-f', 'root'], cronMessage({ to, body: 'done' }), {
      CHECKD_SMTP_LISTEN: daemon.smtp!,
    });
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const list = await pings();
    expect(list).toHaveLength(before + 1);
    // A bare user name is qualified with the host name, as sendmail does.
    expect(list[0]).toMatchObject({ type: 'success', scheme: 'email', ua: `Email from root@${hostname()}` });
  });

  it("Debian cron's command line: the recipient as an argument, --smtp given", async () => {
    const before = (await pings()).length;
    const to = `${project.ping_key}+nightly@${DOMAIN}`;
    const r = await sendmail(['--smtp', daemon.smtp!, '-FCronDaemon', '-i', '-B8BITMIME', '-oem', to], cronMessage({ to, body: 'done' }));
    expect(r.code, r.stderr).toBe(0);
    expect(await pings()).toHaveLength(before + 1);
  });

  it('a recipient checkd refuses: exit 1 with the reply; the others are still delivered', async () => {
    const before = (await pings()).length;
    const good = `${uuid}@${DOMAIN}`;
    const r = await sendmail(['--smtp', daemon.smtp!, '-oi', good, 'root@elsewhere.example'], cronMessage({ to: good, body: 'x' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('checkd: sendmail: root@elsewhere.example: 550 5.1.1 Recipient rejected\n');
    expect(await pings()).toHaveLength(before + 1);
  });

  it('every recipient refused, or no daemon listening: exit 1 with the reason', async () => {
    const refused = await sendmail(['--smtp', daemon.smtp!, 'root'], cronMessage({ to: 'root', body: 'x' }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^checkd: sendmail: .*550 5\.1\.1 Recipient rejected/);
    const port = await freePort();
    const down = await sendmail(['--smtp', `127.0.0.1:${port}`, `${uuid}@${DOMAIN}`], cronMessage({ to: 'x', body: 'x' }));
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^checkd: sendmail: .*ECONNREFUSED/);
  });

  it('no SMTP address or no recipient: a usage error (exit 2)', async () => {
    const noTarget = await sendmail([`${uuid}@${DOMAIN}`], cronMessage({ to: 'x', body: 'x' }));
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('no SMTP address: pass --smtp HOST:PORT or set CHECKD_SMTP_LISTEN');
    const bad = await sendmail(['--smtp', 'nowhere'], 'x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--smtp: expected HOST:PORT');
    const none = await sendmail(['--smtp', daemon.smtp!, '-t'], 'Subject: no recipients\r\n\r\nx\r\n');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no recipients');
  });
});

describe('parseSendmailArgs', () => {
  it('keeps -t, -f/-r and the recipients; skips the other flags and their values', () => {
    expect(parseSendmailArgs(['-FCronDaemon', '-i', '-B8BITMIME', '-oem', '-oi', '-t', '-f', 'root', 'a@b'])).toEqual({
      fromHeaders: true,
      sender: 'root',
      recipients: ['a@b'],
    });
    expect(parseSendmailArgs(['-rcron@host', '-F', 'Cron Daemon', '-odi', '-v', 'a@b', 'c@d'])).toEqual({
      fromHeaders: false,
      sender: 'cron@host',
      recipients: ['a@b', 'c@d'],
    });
    expect(parseSendmailArgs(['-i', '--', '-odd@b'])).toEqual({ fromHeaders: false, sender: null, recipients: ['-odd@b'] });
    expect(() => parseSendmailArgs(['-f'])).toThrow('-f needs a value');
  });
});
