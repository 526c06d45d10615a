// End to end, as an operator sees it: the real daemon as a child process and
// the BUILT checktop (dist/tui/cli.js) in a tmux pane of 80x24. The screen is
// read back with capture-pane, polled until the expected text shows. Proves:
// the check row appears from the Watch snapshot; a ping over HTTP turns the
// row up on screen; after the daemon is stopped the header says
// "reconnecting…"; once a new daemon runs on the same data dir and gRPC port
// the TUI is live again by itself and a new ping shows up.
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createProjectCli, startChild, type ChildDaemon } from '../helpers/child.js';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { api, freePort } from '../helpers/http.js';
import { CHECKTOP_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import { assertFreshBuild } from './built.js';

const SOCKET = `checktop-e2e-${process.pid}`;
const SESSION = 'checktop';

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

function screen(): string {
  return tmux('capture-pane', '-p', '-t', SESSION);
}

/** Polls the pane until `re` matches; the error shows the last screen. */
async function waitForScreen(re: RegExp, what: string, timeoutMs = 15_000): Promise<string> {
  let last = '';
  await waitFor(() => re.test((last = screen())), { timeout: timeoutMs, interval: 50, what: () => `${what}; screen:\n${last}` });
  return last;
}

describe('checktop in tmux against a child daemon', () => {
  let dir: string;
  let port: number;
  let daemon: ChildDaemon;
  let apiKey: string;
  let uuid: string;

  const serve = () =>
    startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', `127.0.0.1:${port}`, '--api-rate-limit', '0']);

  setupSuite(async () => {
    if (spawnSync('tmux', ['-V']).error) throw new Error('tmux is not installed: apt-get install -y tmux (.ci/run does)');
    assertFreshBuild();
    dir = tempDir('checktop-e2e-');
    apiKey = (await createProjectCli(dir, 'e2e-project')).api_key;
    port = await freePort();
    daemon = await serve();
    const r = await api(daemon.url, '/api/v3/checks/', { key: apiKey, body: { name: 'e2e-backup', tags: 'prod db', timeout: 3600, grace: 300 } });
    expect(r.status).toBe(201);
    uuid = r.json.uuid;

    // A clean, explicit environment. CI=true on purpose: CI machines set it,
    // and checktop must still draw (see tui/tty-env.ts).
    const env = [
      `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
      `HOME=${process.env.HOME ?? '/tmp'}`,
      'TERM=xterm-256color',
      'LANG=C.UTF-8',
      'CI=true',
      `CHECKD_API_KEY=${apiKey}`,
    ];
    const command = ['env', '-i', ...env, process.execPath, CHECKTOP_BIN, '--grpc', `127.0.0.1:${port}`]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', SESSION, command);
    const socketPath = tmux('display-message', '-p', '#{socket_path}').trim();
    onCleanup(() => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
      // tmux leaves its socket file behind.
      rmSync(socketPath, { force: true });
    });
    // Keep the pane after an exit, so a crash leaves its message to read.
    tmux('set-option', '-t', SESSION, 'remain-on-exit', 'on');
  });

  it('shows the check, follows a ping live, and reconnects after a daemon restart', async () => {
    const first = await waitForScreen(/new\s+e2e-backup\s+prod db\s+never/, 'the check row');
    const lines = first.split('\n');
    expect(lines[0]).toMatch(/^checktop · e2e-project\s+● live\s+\d\d:\d\d:\d\d$/);
    expect(lines[1]).toContain('1 checks  0 down 0 grace 0 running 1 new 0 up 0 paused');
    expect(first).toContain('? help');

    // A ping over HTTP: the row turns up on screen.
    const t0 = Date.now();
    const ping = await fetch(`${daemon.url}/ping/${uuid}`);
    expect(ping.status).toBe(200);
    // Up, and counting down to down: timeout 1h + grace 5m.
    await waitForScreen(/up\s+e2e-backup\s+prod db\s+just now\s+down in 1h 4m/, 'the ping on screen', 5000);
    // The poll interval (50 ms) and tmux itself are in this number; the TUI's part is smaller.
    expect(Date.now() - t0).toBeLessThan(1500);

    // The daemon goes away: the TUI says so and keeps the last known table.
    expect((await daemon.stop()).code).toBe(0);
    const down = await waitForScreen(/reconnecting…/, 'reconnecting in the header');
    expect(down.split('\n')[0]).toMatch(/reconnecting…/);
    expect(down).toMatch(/up\s+e2e-backup/);

    // Same data dir, same gRPC port: live again by itself, and a new ping shows.
    daemon = await serve();
    await waitForScreen(/● live/, 'live again', 15_000);
    const fail = await fetch(`${daemon.url}/ping/${uuid}/fail`);
    expect(fail.status).toBe(200);
    const after = await waitForScreen(/down\s+e2e-backup\s+prod db\s+just now/, 'the new ping after the restart', 5000);
    expect(after.split('\n')[1]).toContain('1 down');
  });
});
