// Shell channels: the command runs with the check's details in its
// environment and shell-quoted placeholders, only when the daemon allows
// shell commands, under a timeout; failures are recorded.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, tempDir, type InProcessDaemon, type TestProject } from '../helpers/daemon.js';
import { listChannelDeliveries } from '../../daemon/notify/listing.js';
import { goDown, makeChannel, makeCheck, ping, waitUntil } from './support.js';

const out = tempDir('checkd-shell-out-');
let d: InProcessDaemon;
let p: TestProject;

beforeAll(async () => {
  d = await startInProcess({ notify: { allowShell: true, retryBaseMs: 50, retryMaxDelayMs: 100, shellTimeoutMs: 2000 } });
  p = await d.createProject({ name: 'shell project' });
});

afterAll(async () => {
  await d?.stop();
  out.cleanup();
});

const row = (daemon: InProcessDaemon, project: TestProject, id: string) =>
  listChannelDeliveries(daemon.daemon.store, project.id).find((r) => r.id === id)!;

describe('shell channel', () => {
  it('a hostile check name runs nothing, whatever the quoting around $NAME in the command', async () => {
    const dir = out.path;
    const canary = join(dir, 'pwned');
    const cmd = `printf '%s|%s|%s\\n' $NAME "in double: $NAME" 'in single: $NAME' >> ${dir}/hostile-$CODE.txt`;
    const ch = await makeChannel(d, p, 'shell', JSON.stringify({ cmd_down: cmd, cmd_up: '' }));
    const names = [`$(touch ${canary})`, `\`touch ${canary}\``, `'; touch ${canary}; '`, `"; touch ${canary}; "`, `\\" $(touch ${canary}) \\"`];
    for (const name of names) {
      const check = await makeCheck(d, p, { name, channels: ch.id });
      await goDown(d.url, check.uuid);
      const file = join(dir, `hostile-${check.uuid}.txt`);
      await waitUntil(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'));
      expect(readFileSync(file, 'utf8'), name).toBe(`${name}|in double: ${name}|in single: ${name}\n`);
    }
    expect(existsSync(canary)).toBe(false);
  });

  it('runs the command of the event with placeholders quoted and details in the environment', async () => {
    const dir = out.path;
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
    const check = await makeCheck(d, p, { name, tags: 'a b$c', channels: ch.id });
    await ping(d.url, `/ping/${check.uuid}`);
    await ping(d.url, `/ping/${check.uuid}/7`);
    const downFile = join(dir, `down-${check.uuid}.txt`);
    await waitUntil(() => existsSync(downFile) && readFileSync(downFile, 'utf8').split('\n').length >= 10);
    expect(readFileSync(downFile, 'utf8').split('\n')).toEqual(['down', name, check.uuid, 'a b$c', 'fail', '7', 'shell project', name, 'b$c', '']);

    process.env.CHECKD_SMTP_URL = 'smtp://u:leaky-password@127.0.0.1:1';
    const tokens = ['CHECKD_TELEGRAM_BOT_TOKEN', 'CHECKD_PUSHOVER_APP_TOKEN', 'CHECKD_MATRIX_ACCESS_TOKEN'];
    for (const name of tokens) process.env[name] = `leaky-${name}`;
    try {
      await ping(d.url, `/ping/${check.uuid}`);
      const upFile = join(dir, `up-${check.uuid}.txt`);
      await waitUntil(() => row(d, p, ch.id).state === 'ok' && row(d, p, ch.id).pending === 0 && existsSync(upFile));
      const env = readFileSync(upFile, 'utf8');
      expect(env).toContain('CHECKD_STATUS=up\n');
      expect(env).toContain(`CHECKD_CODE=${check.uuid}\n`);
      expect(env).toMatch(/^CHECKD_DOWNTIME_S=\d+$/m);
      expect(env).not.toContain('leaky-password');
      for (const name of tokens) expect(env).not.toContain(`leaky-${name}`);
    } finally {
      delete process.env.CHECKD_SMTP_URL;
      for (const name of tokens) delete process.env[name];
    }
  });

  it('a failing command is retried and reported with its exit code; a hung one is killed', async () => {
    const failing = await makeChannel(d, p, 'shell', `echo x >> ${out.path}/attempts; exit 3`, 'failing');
    const hung = await makeChannel(d, p, 'shell', JSON.stringify({ cmd_down: 'sleep 30' }), 'hung');
    const check = await makeCheck(d, p, { name: 'fails', channels: `${failing.id},${hung.id}` });
    await goDown(d.url, check.uuid);
    await waitUntil(() => existsSync(join(out.path, 'attempts')) && readFileSync(join(out.path, 'attempts'), 'utf8').length >= 6);
    expect(row(d, p, failing.id)).toMatchObject({ state: 'retrying', error: 'Command returned exit code 3', pending: 1 });
    await waitUntil(() => row(d, p, hung.id).error !== '', 5000);
    expect(row(d, p, hung.id)).toMatchObject({ state: 'retrying', error: 'Command timed out after 2000 ms' });
  });
});

describe('shell commands are off unless allowed', () => {
  it('records "Shell commands are not enabled" and runs nothing', async () => {
    const d2 = await startInProcess();
    try {
      const p2 = await d2.createProject();
      const marker = join(out.path, 'must-not-exist');
      const ch = await makeChannel(d2, p2, 'shell', `touch ${marker}`);
      const check = await makeCheck(d2, p2, { name: 'no shell', channels: ch.id });
      await goDown(d2.url, check.uuid);
      await waitUntil(() => row(d2, p2, ch.id).state === 'failed');
      expect(row(d2, p2, ch.id)).toMatchObject({ error: 'Shell commands are not enabled', pending: 0 });
      expect(existsSync(marker)).toBe(false);
    } finally {
      await d2.stop();
    }
  });
});
