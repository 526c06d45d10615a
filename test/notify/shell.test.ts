// Shell channels: the command runs with the check's details in its
// environment and shell-quoted placeholders, only when the daemon allows
// shell commands, under a timeout; failures are recorded.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listChannelDeliveries } from '../../daemon/notify/listing.js';
import { setupSuite } from '../helpers/cleanup.js';
import { createCheck, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import { goDown, makeChannel } from './support.js';

let out: string;
let d: InProcessDaemon;
let p: TestProject;

setupSuite(async () => {
  out = tempDir('checkd-shell-out-');
  d = await startInProcess({ notify: { allowShell: true, retryBaseMs: 50, retryMaxDelayMs: 100, shellTimeoutMs: 2000 } });
  p = await d.createProject({ name: 'shell project' });
});

const row = (daemon: InProcessDaemon, project: TestProject, id: string) =>
  listChannelDeliveries(daemon.daemon.store, project.id).find((r) => r.id === id)!;

describe('shell channel', () => {
  it('a hostile check name runs nothing, whatever the quoting around $NAME in the command', async () => {
    const dir = out;
    const canary = join(dir, 'pwned');
    const cmd = `printf '%s|%s|%s\\n' $NAME "in double: $NAME" 'in single: $NAME' >> ${dir}/hostile-$CODE.txt`;
    const ch = await makeChannel(d, p, 'shell', JSON.stringify({ cmd_down: cmd, cmd_up: '' }));
    const names = [`$(touch ${canary})`, `\`touch ${canary}\``, `'; touch ${canary}; '`, `"; touch ${canary}; "`, `\\" $(touch ${canary}) \\"`];
    for (const name of names) {
      const check = await createCheck(d.url, p.apiKey, { name, channels: ch.id });
      await goDown(d.url, check.uuid);
      const file = join(dir, `hostile-${check.uuid}.txt`);
      await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'));
      expect(readFileSync(file, 'utf8'), name).toBe(`${name}|in double: ${name}|in single: ${name}\n`);
    }
    expect(existsSync(canary)).toBe(false);
  });

  it('runs the command of the event with placeholders quoted and details in the environment', async () => {
    const dir = out;
    const ch = await makeChannel(
      d,
      p,
      'shell',
      JSON.stringify({
        cmd_down: `printf '%s\\n' "$CHECKD_STATUS" "$CHECKD_NAME" "$CHECKD_CODE" "$CHECKD_TAGS" "$CHECKD_REASON" "$CHECKD_EXITSTATUS" "$CHECKD_PROJECT" $NAME $TAG2 > ${dir}/down-$CODE.txt`,
        cmd_up: `env > ${dir}/up-$CODE.txt`,
      }),
    );
    const name = `it's "quoted"; rm -rf / ✓`;
    const check = await createCheck(d.url, p.apiKey, { name, tags: 'a b$c', channels: ch.id });
    await ping(d.url, check.uuid);
    await ping(d.url, `${check.uuid}/7`);
    const downFile = join(dir, `down-${check.uuid}.txt`);
    await waitFor(() => existsSync(downFile) && readFileSync(downFile, 'utf8').split('\n').length >= 10);
    expect(readFileSync(downFile, 'utf8').split('\n')).toEqual(['down', name, check.uuid, 'a b$c', 'fail', '7', 'shell project', name, 'b$c', '']);

    process.env.CHECKD_SMTP_URL = 'smtp://u:leaky-password@127.0.0.1:1';
    onTestFinished(() => void delete process.env.CHECKD_SMTP_URL);
    const tokens = ['CHECKD_TELEGRAM_BOT_TOKEN', 'CHECKD_PUSHOVER_APP_TOKEN', 'CHECKD_MATRIX_ACCESS_TOKEN'];
    for (const token of tokens) {
      process.env[token] = `leaky-${token}`;
      onTestFinished(() => void delete process.env[token]);
    }
    await ping(d.url, check.uuid);
    const upFile = join(dir, `up-${check.uuid}.txt`);
    await waitFor(() => row(d, p, ch.id).state === 'ok' && row(d, p, ch.id).pending === 0 && existsSync(upFile));
    const env = readFileSync(upFile, 'utf8');
    expect(env).toContain('CHECKD_STATUS=up\n');
    expect(env).toContain(`CHECKD_CODE=${check.uuid}\n`);
    expect(env).toMatch(/^CHECKD_DOWNTIME_S=\d+$/m);
    expect(env).not.toContain('leaky-password');
    for (const token of tokens) expect(env).not.toContain(`leaky-${token}`);
  });

  it('a failing command is retried and reported with its exit code; a hung one is killed', async () => {
    const failing = await makeChannel(d, p, 'shell', `echo x >> ${out}/attempts; exit 3`, 'failing');
    const hung = await makeChannel(d, p, 'shell', JSON.stringify({ cmd_down: 'sleep 30' }), 'hung');
    const check = await createCheck(d.url, p.apiKey, { name: 'fails', channels: `${failing.id},${hung.id}` });
    await goDown(d.url, check.uuid);
    await waitFor(() => existsSync(join(out, 'attempts')) && readFileSync(join(out, 'attempts'), 'utf8').length >= 6);
    expect(row(d, p, failing.id)).toMatchObject({ state: 'retrying', error: 'Command returned exit code 3', pending: 1 });
    await waitFor(() => row(d, p, hung.id).error !== '', { timeout: 5000 });
    expect(row(d, p, hung.id)).toMatchObject({ state: 'retrying', error: 'Command timed out after 2000 ms' });
  });
});

describe('shell commands are off unless allowed', () => {
  it('records "Shell commands are not enabled" and runs nothing', async () => {
    const d2 = await startInProcess();
    const p2 = await d2.createProject();
    const marker = join(out, 'must-not-exist');
    const ch = await makeChannel(d2, p2, 'shell', `touch ${marker}`);
    const check = await createCheck(d2.url, p2.apiKey, { name: 'no shell', channels: ch.id });
    await goDown(d2.url, check.uuid);
    await waitFor(() => row(d2, p2, ch.id).state === 'failed');
    expect(row(d2, p2, ch.id)).toMatchObject({ error: 'Shell commands are not enabled', pending: 0 });
    expect(existsSync(marker)).toBe(false);
  });
});
