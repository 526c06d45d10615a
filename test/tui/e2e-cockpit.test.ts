// checktop as the operator's cockpit, end to end: the built checktop in a
// tmux pane (80x24, then 200x50) against the built daemon, two projects from
// a config file. Proves, on a real terminal: a key typed while checktop
// starts is kept; a sort key reorders the table; rows with wide-character,
// emoji and combining-mark names keep every column where the header puts
// it; a countdown shows and decreases; a /fail with a body shows that body,
// and its exit status, in the details; ] switches to the other project; a
// dropped link dims the table and the header names the time it dropped.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../tui/format.js';
import { createProjectCli, startChild } from '../helpers/child.js';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { api, freePort } from '../helpers/http.js';
import { CHECKTOP_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { assertFreshBuild } from './built.js';
import { assertTmux, Tmux } from './tmux.js';

const NAMES = ['backup-db', '備份データベース毎晩', '🚀 deploy-frontend', 'cafe\u0301-report', 'tick-job'];
/** What of each name shows in the narrowest name column. */
const shown = (name: string) => [...new Intl.Segmenter().segment(name)].slice(0, 6).map((s) => s.segment).join('');

/** The column at which `text` (or the first match of a pattern) starts on a screen line: its display width before it. */
function columnOf(line: string, text: string | RegExp): number {
  const at = typeof text === 'string' ? line.indexOf(text) : (text.exec(line)?.index ?? -1);
  return at < 0 ? -1 : displayWidth(line.slice(0, at));
}

/**
 * Whether the character at `index` of a capture-pane -e screen is dim. tmux
 * writes an attribute only where it changes, also across lines, so the
 * escape sequences before it are replayed from the top.
 */
function dimAt(screen: string, index: number): boolean {
  let dim = false;
  for (const m of screen.slice(0, index).matchAll(/\x1b\[([0-9;]*)m/g)) {
    for (const p of m[1]!.split(';')) {
      if (p === '' || p === '0' || p === '22') dim = false;
      else if (p === '2') dim = true;
    }
  }
  return dim;
}

/** The order of the named checks on screen, top to bottom. */
function orderOn(screen: string): string[] {
  const lines = screen.split('\n');
  return NAMES.map((n) => ({ n, at: lines.findIndex((l) => l.includes(shown(n))) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.n);
}

const sizes = [
  { columns: 80, rows: 24 },
  { columns: 200, rows: 50 },
];

describe.each(sizes)('checktop in tmux at $columns x $rows against a child daemon', ({ columns, rows }) => {
  const tmux = new Tmux(`checktop-cockpit-${process.pid}-${columns}`);
  let dir = '';
  let home = '';
  setupSuite(() => {
    dir = tempDir('checktop-cockpit-');
    home = tempDir('checktop-home-');
    onCleanup(() => tmux.kill());
  });

  it('keeps typed-ahead keys, sorts, aligns, counts down, shows failure output, switches projects, and says when the link dropped', async () => {
    assertTmux();
    assertFreshBuild();
    const prod = await createProjectCli(dir, 'acme-prod', ['--check-limit', '50']);
    const staging = await createProjectCli(dir, 'staging', ['--check-limit', '50']);
    const port = await freePort();
    const serve = () =>
      startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', `127.0.0.1:${port}`, '--api-rate-limit', '0']);
    let daemon = await serve();
    const uuids = new Map<string, string>();
    for (const name of NAMES) {
      const body = name === 'tick-job' ? { name, timeout: 60, grace: 60 } : { name, timeout: 3600, grace: 300, tags: name.startsWith('備') ? '日本 ops' : 'prod' };
      const r = await api(daemon.url, '/api/v3/checks/', { key: prod.api_key, body });
      expect(r.status).toBe(201);
      uuids.set(name, r.json.uuid);
      expect((await fetch(`${daemon.url}/ping/${r.json.uuid}`)).status).toBe(200);
    }
    await api(daemon.url, '/api/v3/checks/', { key: staging.api_key, body: { name: 'staging-deploy', timeout: 3600, grace: 300 } });

    // Both projects' keys from the environment, named by the config file (no key on the command line).
    mkdirSync(join(home, '.config/checkd'), { recursive: true });
    const config = join(home, '.config/checkd/checktop.json');
    writeFileSync(config, JSON.stringify({ grpc: `127.0.0.1:${port}`, projects: [{ key_env: 'PROD_KEY' }, { key_env: 'STAGING_KEY' }] }));
    chmodSync(config, 0o600);
    const env = [
      `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
      `HOME=${home}`,
      'TERM=xterm-256color',
      'LANG=C.UTF-8',
      'CI=true',
      `PROD_KEY=${prod.api_key}`,
      `STAGING_KEY=${staging.api_key}`,
    ];
    tmux.start(['env', '-i', ...env, process.execPath, CHECKTOP_BIN], columns, rows);
    // Typed while checktop is still starting (Node alone takes longer than this):
    // sort by name, then two rows down, which need the table to be there.
    expect(tmux.screen()).not.toContain('LAST PING');
    tmux.keys('o', 'j', 'j');

    // -- the key typed ahead was kept: sorted by name --------------------------
    let screen = await tmux.waitFor(/tick-job/, 'the table');
    screen = await tmux.waitFor(/sort: name ▼/, 'the sort typed ahead');
    expect(screen.split('\n')[0]).toMatch(/^checktop · 1 acme-prod {2}2 staging\s+● live {2}\d\d:\d\d:\d\d$/);
    const byName = [...NAMES].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    expect(orderOn(screen)).toEqual(byName);
    await tmux.waitFor(new RegExp(`^›.*${shown(byName[2]!)}`, 'm'), 'the cursor two rows down');
    // -- a sort key reorders: I reverses ----------------------------------------
    tmux.keys('I');
    screen = await tmux.waitFor(/sort: name ▲/, 'the reversed sort');
    expect(orderOn(screen)).toEqual([...byName].reverse());
    tmux.keys('O');
    screen = await tmux.waitFor(/sort: status ▼/, 'back to status');

    // -- wide names keep every column where the header puts it -------------------
    const lines = screen.split('\n');
    const header = lines.find((l) => l.includes('LAST PING'))!;
    for (const name of NAMES) {
      const row = lines.find((l) => l.includes(shown(name)))!;
      expect(columnOf(row, / (just now|\d+s ago)/) + 1, row).toBe(columnOf(header, 'LAST PING'));
      expect(columnOf(row, 'down in'), row).toBe(columnOf(header, 'TIMER'));
      expect(displayWidth(row), row).toBeLessThanOrEqual(columns);
    }
    if (columns >= 120) expect(header).toMatch(/SCHEDULE\s+GRACE\s+LAST RUN\s+PINGS$/);

    // -- a countdown shows and decreases ------------------------------------------
    const countdownOf = (s: string) => {
      const m = /tick-job.*down in (\d+)m (\d+)s/.exec(s);
      return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
    };
    const first = countdownOf(screen);
    expect(first).toBeGreaterThan(100);
    expect(first).toBeLessThanOrEqual(120);
    await new Promise((r) => setTimeout(r, 2500));
    expect(countdownOf(tmux.screen())).toBeLessThan(first);

    // -- a /fail with a body: the details show the body and the exit status --------
    const output = 'pg_dump: error: connection to server failed\npg_dump: error: disk full\n';
    const failed = await fetch(`${daemon.url}/ping/${uuids.get('backup-db')}/3`, { method: 'POST', body: output });
    expect(failed.status).toBe(200);
    await tmux.waitFor(/down\s+backup-db\s.*down for \d+s/, 'the failed check');
    tmux.text('/backup-db');
    tmux.keys('Enter', 'Enter');
    screen = await tmux.waitFor(/pg_dump: error: disk full/, 'the failed run’s output in the details');
    expect(screen).toMatch(/Output of ping #2 \(fail, exit 3, just now\)/);
    expect(screen).toContain('pg_dump: error: connection to server failed');
    expect(screen).toMatch(/fail\s+exit 3\s+/);
    tmux.keys('Escape', 'Escape');
    await tmux.waitFor(/LAST PING/, 'the list again');

    // -- ] shows the other project; its Watch was live all along -------------------
    const ping = await fetch(`${daemon.url}/ping/${uuids.get('tick-job')}/fail`);
    expect(ping.status).toBe(200);
    tmux.keys(']');
    screen = await tmux.waitFor(/staging-deploy/, 'the second project');
    expect(screen).not.toContain('tick-job');
    expect(screen.split('\n')[0]).toMatch(/1 acme-prod \(2 down\)\s+2 staging/);
    tmux.keys('1');
    await tmux.waitFor(/down\s+tick-job/, 'back to the first project');

    // -- the link drops: the table dims, the header names the time ------------------
    expect((await daemon.stop()).code).toBe(0);
    screen = await tmux.waitFor(/disconnected \d\d:\d\d:\d\d \(\d+s\)/, 'the time the link dropped');
    expect(screen.split('\n')[0]).toMatch(/reconnecting…/);
    expect(screen).toMatch(/down\s+backup-db/);
    const attributed = tmux.screenWithAttributes();
    for (const name of NAMES) expect(dimAt(attributed, attributed.indexOf(shown(name))), name).toBe(true);
    // The header is not dimmed: it is what is current.
    expect(dimAt(attributed, attributed.indexOf('disconnected'))).toBe(false);
    daemon = await serve();
    screen = await tmux.waitFor(/● live/, 'live again', 20_000);
    expect(screen).not.toMatch(/disconnected/);
  }, 180_000);
});
