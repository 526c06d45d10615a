// checktop's screens through ink-testing-library: a fake backend feeds the
// Watch, stdin.write plays the keyboard, lastFrame() is the terminal.
import { afterEach, describe, expect, it, vi } from 'vitest';

// Colours are part of what is tested: chalk must believe in a colour terminal
// before Ink loads it.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import { render, cleanup } from 'ink-testing-library';
import { App } from '../../tui/app.js';
import { EVENT_FRAME_MS } from '../../tui/hooks/useWatchBatches.js';
import { displayWidth } from '../../tui/format.js';
import { check, down, event, fresh, paused, T0 } from './fixtures.js';
import { FakeBackend, LIVE } from './fake-backend.js';
import type { CheckMsg, PingMsg, StorageAlarmMsg } from '../../tui/wire.js';

const ESC = '\x1b';
const DOWN = '\x1b[B';
const UP = '\x1b[A';
const ENTER = '\r';
const PGDN = '\x1b[6~';

const plain = (s: string | undefined) => (s ?? '').replace(/\x1b\[[0-9;]*m/g, '');
const wait = (ms = 30) => new Promise((r) => setTimeout(r, ms));

async function until(fn: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await wait(10);
  }
}

function start(checks: CheckMsg[], opts: { size?: { columns: number; rows: number }; clock?: () => number; tickMs?: number } = {}) {
  const backend = new FakeBackend(checks);
  const ui = render(
    <App backend={backend} clock={opts.clock ?? (() => T0)} tickMs={opts.tickMs ?? 60_000} size={opts.size ?? { columns: 80, rows: 24 }} />,
  );
  const frame = () => plain(ui.lastFrame());
  const lines = () => frame().split('\n');
  /** The table line holding `name`. */
  const line = (name: string) => lines().find((l) => l.includes(name)) ?? '';
  /** Each key (or string, as one read), then a wait until the screen settles: no new frame for 30 ms. */
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      ui.stdin.write(k);
      const end = Date.now() + 2000;
      let count = -1;
      while (ui.frames.length !== count && Date.now() < end) {
        count = ui.frames.length;
        await wait(30);
      }
    }
  };
  return { backend, ui, frame, lines, line, press };
}

const sample = () => [
  check({ name: 'backup-db', tags: ['prod', 'db'], last_ping_ms: T0 - 3 * 60_000, expected_ms: T0 + 57 * 60_000 }),
  down({ name: 'nightly-report', tags: ['prod'] }),
  paused({ name: 'old-cleanup' }),
  fresh({ name: 'new-job' }),
  check({ name: 'cert-renew', expected_ms: T0 - 30_000, tags: ['infra'] }),
];

afterEach(() => cleanup());

describe('main screen', () => {
  it('shows the header, counts and the table worst first, at 80x24', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    const lines = t.lines();
    expect(lines[0]).toMatch(/^checktop · acme\s+● live {2}\d\d:\d\d:\d\d$/);
    expect(lines[1]).toContain('5 checks  1 down 1 grace 0 running 1 new 1 up 1 paused');
    expect(lines[2]).toMatch(/STATUS\s+NAME\s+TAGS\s+LAST PING\s+TIMER\s+PERIOD/);
    const order = ['nightly-report', 'cert-renew', 'new-job', 'backup-db', 'old-cleanup'];
    const at = order.map((n) => lines.findIndex((l) => l.includes(n)));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // Up and grace count down to down: expected + grace (5m).
    expect(t.line('backup-db')).toMatch(/up\s+backup-db\s+prod db\s+3m ago\s+down in 1h 2m\s+every 1h/);
    expect(t.line('cert-renew')).toMatch(/grace .*down in 4m 30s/);
    expect(t.line('new-job')).toMatch(/new .*never\s+-/);
    // Exactly rows - 1 lines, none wider than the terminal.
    expect(lines).toHaveLength(23);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[22]).toContain('? help');
  });

  it('colours the status by what it means', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    const raw = t.ui.lastFrame()!;
    expect(raw).toMatch(/\x1b\[31mdown/); // red
    expect(raw).toMatch(/\x1b\[33mgrace/); // yellow
    expect(raw).toMatch(/\x1b\[32mup/); // green
    expect(raw).toMatch(/\x1b\[90mpaused/); // gray
  });

  it('applies a Watch event at once and highlights the flip', async () => {
    const checks = sample();
    const t = start(checks);
    await until(() => t.frame().includes('backup-db'), 'the table');
    const b = checks[0]!;
    t.backend.emit(event('EVENT_TYPE_FLIP', 11, { ...b, status: 'down', stored_status: 'down', expected_ms: 0 }));
    await until(() => /down\s+backup-db/.test(t.frame()), 'the flip');
    // Now among the down checks, above the grace one.
    const lines = t.lines();
    expect(lines.findIndex((l) => l.includes('backup-db'))).toBeLessThan(lines.findIndex((l) => l.includes('cert-renew')));
    expect(t.lines()[1]).toContain('2 down');
    // Highlight: the status cell becomes a red block.
    expect(t.ui.lastFrame()).toMatch(/\x1b\[41m[^\n]*down/);
  });

  it('applies a stream of events a frame at a time, not one frame each, and loses none', async () => {
    const checks = sample();
    const t = start(checks);
    await until(() => t.frame().includes('backup-db'), 'the table');
    await wait(EVENT_FRAME_MS); // the snapshot's frame is behind us
    const b = checks[0]!;
    const framesBefore = t.ui.frames.length;
    const began = performance.now();
    // 60 pings of one check, one every 5 ms: a frame for each would be 60 frames.
    for (let n = 2; n <= 61; n++) {
      t.backend.emit(event('EVENT_TYPE_PING_RECEIVED', 10 + n, { ...b, n_pings: n, last_ping_ms: T0 - 61_000 + n * 1000 }));
      await wait(5);
    }
    const elapsed = performance.now() - began;
    await wait(2 * EVENT_FRAME_MS);
    // At most one batch per frame interval (plus the first, at once, and the last).
    expect(t.ui.frames.length - framesBefore).toBeLessThanOrEqual(Math.ceil(elapsed / EVENT_FRAME_MS) + 2);
    // The last ping is what the table shows: at T0, "just now" (the first was a minute ago).
    expect(t.line('backup-db')).toMatch(/up\s+backup-db\s.*just now/);
  });

  it('recomputes status on the clock: up turns grace, then down, with no server event', async () => {
    let now = T0;
    const t = start([check({ name: 'tick-job', expected_ms: T0 + 1000, grace_s: 60 })], { clock: () => now, tickMs: 20 });
    await until(() => /up\s+tick-job/.test(t.frame()), 'up');
    now = T0 + 1000;
    await until(() => /grace\s+tick-job/.test(t.frame()), 'grace');
    now = T0 + 61_000;
    await until(() => /down\s+tick-job/.test(t.frame()), 'down');
  });

  it('shows reconnecting in the header, and the reason', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    t.backend.connection({ state: 'reconnecting', attempt: 2, retryAt: T0 + 2000, error: 'UNAVAILABLE: No connection established' });
    await until(() => t.frame().includes('reconnecting'), 'reconnecting');
    expect(t.lines()[0]).toContain('reconnecting… retry in 2s');
    expect(t.lines()[1]).toContain('UNAVAILABLE');
    // The last known table stays on screen meanwhile.
    expect(t.frame()).toContain('backup-db');
  });

  it("marks the daemon's storage alarm in red in the header: from GetProject, its events and heartbeats", async () => {
    const alarm = (active: boolean, cause = 'free_space'): StorageAlarmMsg => ({
      active,
      cause: active ? cause : '',
      reason: active ? "3 MB free on the data dir's file system, below the reserve of 64 MB" : '',
      since_ms: active ? T0 - 60_000 : 0,
      free_bytes: 3e6,
      used_bytes: 1e6,
      reserve_bytes: 64e6,
      quota_bytes: 0,
    });
    const backend = new FakeBackend(sample());
    backend.project = { ...backend.project, storage_alarm: alarm(true) };
    const ui = render(<App backend={backend} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    const first = () => plain(ui.lastFrame()).split('\n')[0]!;
    await until(() => plain(ui.lastFrame()).includes('backup-db'), 'the table');
    expect(first()).toMatch(/^checktop · acme\s+ DISK FULL {2}● live {2}\d\d:\d\d:\d\d$/);
    expect(first()).toHaveLength(80);
    // Red, bold, inverse: ESC[31m with ESC[1m and ESC[7m around the marker.
    const raw = ui.lastFrame()!.split('\n')[0]!;
    expect(raw).toMatch(/\x1b\[(?:(?:1|7|31)m\x1b\[){2}(?:1|7|31)m DISK FULL /);
    // The event that ends it, then a heartbeat that says a quota alarm is on.
    backend.emit(event('EVENT_TYPE_STORAGE_ALARM', 11, null, { storage_alarm: alarm(false) }));
    await until(() => !first().includes('FULL'), 'the marker gone');
    expect(first()).toMatch(/^checktop · acme\s+● live {2}\d\d:\d\d:\d\d$/);
    backend.emit(event('EVENT_TYPE_HEARTBEAT', 11, null, { storage_alarm: alarm(true, 'quota') }));
    await until(() => first().includes(' QUOTA FULL '), 'the quota marker');
    // A heartbeat from a daemon that predates the alarm changes nothing.
    backend.emit(event('EVENT_TYPE_HEARTBEAT', 11, null, { storage_alarm: null }));
    await wait(50);
    expect(first()).toContain(' QUOTA FULL ');
  });

  it('adapts to a resize: narrow terminals drop the tags column', async () => {
    const backend = new FakeBackend(sample());
    const ui = render(<App backend={backend} clock={() => T0} tickMs={60_000} />);
    await until(() => plain(ui.lastFrame()).includes('backup-db'), 'the table');
    expect(plain(ui.lastFrame())).toContain('TAGS');
    Object.defineProperty(ui.stdout, 'columns', { value: 60, configurable: true });
    Object.defineProperty(ui.stdout, 'rows', { value: 12, configurable: true });
    ui.stdout.emit('resize');
    await until(() => !plain(ui.lastFrame()).includes('TAGS'), 'the narrow layout');
    const lines = plain(ui.lastFrame()).split('\n');
    expect(lines).toHaveLength(11);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
  });
});

describe('keys', () => {
  it('j/k and arrows move the cursor; G and g jump; PgDn pages', async () => {
    const many = Array.from({ length: 40 }, (_, i) => check({ name: `job-${String(i).padStart(2, '0')}` }));
    const t = start(many);
    await until(() => t.frame().includes('job-00'), 'the table');
    expect(t.line('job-00')).toMatch(/^›/);
    await t.press('j', DOWN);
    expect(t.line('job-02')).toMatch(/^›/);
    await t.press('k');
    expect(t.line('job-01')).toMatch(/^›/);
    await t.press('G');
    expect(t.line('job-39')).toMatch(/^›/);
    expect(t.frame()).not.toContain('job-00');
    await t.press('g', PGDN);
    // 24 rows: 23 lines, minus header (2), table header (1), footer (1) = 19 rows.
    expect(t.line('job-19')).toMatch(/^›/);
    await t.press(UP);
    expect(t.line('job-18')).toMatch(/^›/);
  });

  it('keys that arrive in one read (fast typing over SSH) all count', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    t.ui.stdin.write('jj');
    await until(() => /^›new\s+new-job/m.test(t.frame()), 'two moves');
    t.ui.stdin.write('/cert\r');
    await until(() => t.lines()[22]!.includes('/cert  1 of 5'), 'the search, kept');
    t.ui.stdin.write('\r');
    await until(() => t.frame().includes('Recent pings'), 'the detail view');
  });

  it('the cursor stays on its check when a flip moves it', async () => {
    const checks = [check({ name: 'aaa' }), check({ name: 'bbb' }), check({ name: 'ccc' })];
    const t = start(checks);
    await until(() => t.frame().includes('aaa'), 'the table');
    await t.press('j', 'j');
    expect(t.line('ccc')).toMatch(/^›/);
    t.backend.emit(event('EVENT_TYPE_FLIP', 11, { ...checks[2]!, stored_status: 'down', expected_ms: 0 }));
    await until(() => /down\s+ccc/.test(t.frame()), 'the flip');
    expect(t.lines()[3]).toMatch(/^›down\s+ccc/);
  });

  it('the cursor stays on its check from the start, before any key is pressed', async () => {
    const checks = [check({ name: 'mmm', stored_status: 'down', expected_ms: 0 }), check({ name: 'aaa' }), check({ name: 'bbb' })];
    const t = start(checks);
    await until(() => t.frame().includes('mmm'), 'the table');
    expect(t.lines()[3]).toMatch(/^›down\s+mmm/);
    // mmm comes back up and sorts after aaa and bbb: the cursor goes with it.
    t.backend.emit(event('EVENT_TYPE_FLIP', 11, { ...checks[0]!, stored_status: 'up' }));
    await until(() => /^.up\s+aaa/.test(t.lines()[3]!), 'the new order');
    await until(() => /^›up\s+mmm/.test(t.line('mmm')), 'the cursor on mmm');
    expect(t.line('aaa')).not.toMatch(/^›/);
  });

  it('/ filters by text as you type; esc clears', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press('/', 'b', 'a', 'c', 'k');
    expect(t.frame()).toContain('backup-db');
    expect(t.frame()).not.toContain('nightly-report');
    expect(t.lines()[22]).toMatch(/^\/back/);
    await t.press(ENTER);
    expect(t.lines()[22]).toContain('/back  1 of 5');
    await t.press(ESC);
    expect(t.frame()).toContain('nightly-report');
  });

  it('backspace edits the search; a search that matches nothing says so', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press('/', 'x', 'y', 'z');
    expect(t.frame()).toContain('no check matches the filter');
    await t.press('\x7f', '\x7f', '\x7f', 'n', 'e', 'w');
    expect(t.frame()).toContain('new-job');
    expect(t.frame()).not.toContain('backup-db');
  });

  it('t cycles the tag filter, s the status filter', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press('t'); // db
    expect(t.frame()).toContain('backup-db');
    expect(t.frame()).not.toContain('cert-renew');
    expect(t.lines()[22]).toContain('#db');
    await t.press('t'); // infra
    expect(t.frame()).toContain('cert-renew');
    expect(t.frame()).not.toContain('backup-db');
    await t.press('t', 't'); // prod, then any
    expect(t.frame()).toContain('old-cleanup');
    await t.press('s'); // problems
    expect(t.frame()).toContain('nightly-report');
    expect(t.frame()).toContain('cert-renew');
    expect(t.frame()).not.toContain('backup-db');
    expect(t.lines()[22]).toContain('status:problems  2 of 5');
    await t.press('s'); // down
    expect(t.frame()).not.toContain('cert-renew');
    await t.press(ESC);
    expect(t.frame()).toContain('backup-db');
  });

  it('? shows help; any key closes it', async () => {
    const t = start(sample());
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press('?');
    expect(t.frame()).toContain('Keys');
    expect(t.frame()).toMatch(/p\s+pause the selected check/);
    expect(t.frame()).not.toContain('backup-db');
    await t.press('x');
    expect(t.frame()).toContain('backup-db');
  });

  it('p asks before pausing: n cancels, y pauses', async () => {
    const checks = sample();
    const t = start(checks);
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press('/', 'backup', ENTER);
    await t.press('p');
    expect(t.lines()[22]).toContain('Pause check "backup-db"? [y/n]');
    await t.press('n');
    expect(t.backend.calls).toEqual([]);
    expect(t.lines()[22]).toContain('cancelled');
    await t.press('p', 'y');
    await until(() => t.frame().includes('paused backup-db'), 'the result');
    expect(t.backend.calls).toEqual([`PauseCheck ${checks[0]!.uuid}`]);
    expect(t.line('backup-db')).toMatch(/paused\s+backup-db/);
  });

  it('r resumes a paused check after y; refuses a check that is not paused', async () => {
    const checks = sample();
    const t = start(checks);
    await until(() => t.frame().includes('old-cleanup'), 'the table');
    await t.press('G'); // the paused check sorts last
    await t.press('r');
    expect(t.lines()[22]).toContain('Resume check "old-cleanup"? [y/n]');
    await t.press('y');
    await until(() => t.backend.calls.length === 1, 'the call');
    expect(t.backend.calls).toEqual([`ResumeCheck ${checks[2]!.uuid}`]);
    await t.press('g', 'r');
    expect(t.lines()[22]).toContain('nightly-report is not paused');
  });

  it('a read-only key cannot pause', async () => {
    const backend = new FakeBackend(sample());
    backend.project = { ...backend.project, read_only: true };
    const ui = render(<App backend={backend} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    await until(() => plain(ui.lastFrame()).includes('backup-db'), 'the table');
    expect(plain(ui.lastFrame())).toContain('acme (read-only)');
    ui.stdin.write('p');
    await wait();
    expect(plain(ui.lastFrame())).toContain('read-only');
    expect(backend.calls).toEqual([]);
  });

  it('Enter opens the details: pings with type and duration, flips as a timeline; esc goes back', async () => {
    const checks = sample();
    const b = checks[0]!;
    const t = start(checks);
    t.backend.details.set(b.uuid, {
      check: b,
      pings: [
        { n: 3, type: 'success', date_ms: T0 - 3 * 60_000, rid: '', duration_s: 3.2, method: 'GET', remote_addr: '10.0.0.7', ua: 'curl', body_size: 0 },
        { n: 2, type: 'start', date_ms: T0 - 3 * 60_000 - 3200, rid: '', duration_s: -1, method: 'GET', remote_addr: '10.0.0.7', ua: 'curl', body_size: 0 },
        { n: 1, type: 'fail', date_ms: T0 - 3600_000, rid: '', duration_s: -1, method: 'POST', remote_addr: '10.0.0.7', ua: 'curl', body_size: 0 },
      ],
      flips: [
        { timestamp_ms: T0 - 3 * 60_000, old_status: 'down', new_status: 'up', reason: '', revision: 9 },
        { timestamp_ms: T0 - 3600_000, old_status: 'up', new_status: 'down', reason: 'fail', revision: 5 },
      ],
    });
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press('/', 'backup', ENTER, ENTER);
    await until(() => t.frame().includes('Recent pings'), 'the detail view');
    await until(() => t.frame().includes('success'), 'the pings');
    const f = t.frame();
    expect(t.backend.calls[0]).toBe(`GetCheck ${b.uuid} 100`);
    expect(f).toMatch(/3m ago\s+success\s+3\.2s\s+GET 10\.0\.0\.7/);
    expect(f).toMatch(/start\s+-/);
    expect(f).toMatch(/every 1h, grace 5m/);
    expect(f).toMatch(/down → up\s+for 3m/);
    expect(f).toMatch(/up → down\s+fail\s+lasted 57m/);
    expect(f).toMatch(/history █+▁+█+ last 1h/); // up, down for most of the hour, up again
    await t.press(ESC);
    expect(t.frame()).toContain('STATUS');
  });
});

describe('10,000 checks', () => {
  it('renders only the visible rows and moves quickly', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => (i % 100 === 0 ? down({ name: `job-${i}` }) : check({ name: `job-${i}` })));
    const t = start(many);
    await until(() => t.frame().includes('10000 checks'), 'the table', 5000);
    expect(t.lines()).toHaveLength(23);
    const started = performance.now();
    await t.press(PGDN, PGDN, 'G');
    expect(t.frame()).toMatch(/›up\s+job-9999/);
    // Three key presses including the 15 ms pauses between them.
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe('details: output, pings and history', () => {
  const TAB = '\t';
  const ping = (n: number, type: string, o: Partial<PingMsg> = {}): PingMsg => ({
    n,
    type,
    date_ms: T0 - (200 - n) * 60_000,
    rid: '',
    duration_s: -1,
    method: 'POST',
    remote_addr: '10.0.0.7',
    ua: 'cron/2',
    body_size: 0,
    ...o,
  });

  /** A down check whose last run failed with output, and 150 pings of history. */
  function failing() {
    const c = down({ name: 'backup-db', down_since_ms: T0 - (2 * 3600_000 + 13 * 60_000), created_ms: T0 - 2 * 86_400_000 });
    const t = start([c, check({ name: 'other' })]);
    const pings: PingMsg[] = [];
    for (let n = 150; n >= 1; n--) {
      if (n === 150) pings.push(ping(n, 'fail', { exit_status: 3, duration_s: 61, body_size: 80 }));
      else if (n % 2 === 0) pings.push(ping(n, 'success', { duration_s: n / 10, exit_status: 0 }));
      else pings.push(ping(n, 'start'));
    }
    t.backend.history.set(c.uuid, {
      pings,
      flips: [
        { timestamp_ms: T0 - (2 * 3600_000 + 13 * 60_000), old_status: 'up', new_status: 'down', reason: 'fail', revision: 30 },
        { timestamp_ms: T0 - 86_400_000, old_status: 'new', new_status: 'up', reason: '', revision: 3 },
      ],
    });
    const output = ['pg_dump: starting', ...Array.from({ length: 40 }, (_, i) => `table ${i} dumped`), '\x1b[31mpg_dump: error: disk full\x1b[0m'];
    t.backend.bodies.set(`${c.uuid}#150`, output.join('\n') + '\n');
    return { t, c, output };
  }

  it('shows the output of the failed run, its exit status and how long the check has been down', async () => {
    const { t, c } = failing();
    await until(() => t.frame().includes('backup-db'), 'the table');
    expect(t.line('backup-db')).toMatch(/down\s+backup-db\s.*down for 2h 13m/);
    await t.press(ENTER);
    await until(() => t.frame().includes('Output of ping #150'), 'the output');
    await until(() => t.frame().includes('disk full'), 'the body');
    const f = t.frame();
    expect(f).toMatch(/Output of ping #150 \(fail, exit 3, 50m ago\)\s+\(last \d+ of 42 lines; ⏎ all\)/);
    // The end of the output, where errors are; the terminal never sees its escape sequences.
    expect(f).toContain('  pg_dump: error: disk full');
    expect(t.ui.lastFrame()).not.toContain('\x1b[31mpg_dump');
    expect(t.backend.calls).toContain(`GetPingBody ${c.uuid} 150 1048576`);
    // The ping list: exit status, duration, method, address, user agent, and that it has a body.
    expect(f).toMatch(/fail\s+exit 3\s+1m 1s\s+POST 10\.0\.0\.7 cron\/2\s+\[80 B\]/);
    expect(f).toMatch(/success\s+exit 0\s+15s\s+POST/);
    expect(f).toMatch(/start\s+-\s+POST/);
    expect(f).toContain('down for 2h 13m');
    // Run durations as a sparkline, the failed one last.
    expect(f).toMatch(/runs\s+[▁▂▃▄▅▆▇█]+ last 1m 1s, longest 1m 1s/);
  });

  it('Enter pages through the whole output; q closes it', async () => {
    const { t } = failing();
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press(ENTER);
    await until(() => t.frame().includes('disk full'), 'the output');
    await t.press(ENTER);
    await until(() => t.frame().includes('lines 1–'), 'the pager');
    expect(t.lines()[2]).toMatch(/^backup-db · ping #150 fail exit 3 · /);
    expect(t.frame()).toContain('pg_dump: starting');
    expect(t.frame()).toContain('lines 1–18 of 42');
    expect(t.lines()[22]).toContain('esc close');
    await t.press(PGDN);
    expect(t.frame()).toContain('lines 19–36 of 42');
    await t.press('G');
    expect(t.frame()).toContain('lines 25–42 of 42');
    expect(t.frame()).toContain('pg_dump: error: disk full');
    await t.press('q');
    expect(t.frame()).toContain('Output of ping #150');
    expect(t.frame()).not.toContain('lines 25–42');
  });

  it('until the details arrive, the lists say loading, not none', async () => {
    const { t } = failing();
    let release = () => {};
    t.backend.detailsHeld = new Promise<void>((resolve) => (release = resolve));
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press(ENTER, TAB);
    await until(() => t.frame().includes('▸ Recent pings'), 'the details, held');
    expect(t.frame()).toMatch(/▸ Recent pings \(0, newest first\)\n {2}loading…/);
    expect(t.frame()).toMatch(/Flips \(newest first\)\n {2}loading…/);
    expect(t.frame()).not.toContain('none');
    release();
    await until(() => t.frame().includes('Recent pings (100+'), 'the pings');
    expect(t.frame()).toContain('1 of 100');
  });

  it('Tab moves to the ping list: its own cursor, Enter opens that ping, older pages load at its end', async () => {
    const { t, c } = failing();
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press(ENTER);
    await until(() => t.frame().includes('Recent pings (100+'), 'the pings');
    await t.press(TAB);
    expect(t.frame()).toMatch(/▸ Recent pings \(100\+, newest first; 1 of 100\)/);
    expect(t.lines()[22]).toMatch(/esc back\s+↑↓ ping\s+⏎ body\s+tab flips/);
    await t.press('j');
    expect(t.frame()).toContain('2 of 100');
    // Enter on a ping without a body says so.
    await t.press(ENTER);
    expect(t.lines()[22]).toContain('ping #149 sent no body');
    // The check cursor did not move: still backup-db's details.
    expect(t.frame()).toMatch(/^backup-db\s+down/m);
    await t.press('G');
    await until(() => t.backend.calls.includes(`ListPings ${c.uuid} 51 100`), 'the next page');
    await until(() => t.frame().includes('of 150'), 'the older pings');
    expect(t.frame()).toMatch(/Recent pings \(150, newest first; 100 of 150\)/);
    await t.press('G');
    expect(t.frame()).toContain('150 of 150');
    expect(t.frame()).toMatch(/›.*start/);
    await t.press('g', ENTER);
    await until(() => t.frame().includes('lines 1–'), 'the pager');
    await t.press(ESC, ESC);
    expect(t.frame()).not.toContain('▸ Recent pings');
  });

  it('Tab twice scrolls the flips, paging back through older ones as it reaches their end', async () => {
    const c = down({ name: 'flappy', down_since_ms: T0 - 60_000 });
    const t = start([c]);
    // 250 flips, alternating, one every ten minutes.
    const flips = Array.from({ length: 250 }, (_, i) => ({
      timestamp_ms: T0 - 60_000 - i * 600_000,
      old_status: i % 2 === 0 ? 'up' : 'down',
      new_status: i % 2 === 0 ? 'down' : 'up',
      reason: i % 2 === 0 ? 'fail' : '',
      revision: 1000 - i,
    }));
    t.backend.history.set(c.uuid, { pings: [], flips });
    await until(() => t.frame().includes('flappy'), 'the table');
    await t.press(ENTER);
    await until(() => t.frame().includes('up → down'), 'the flips');
    await t.press(TAB, TAB);
    expect(t.frame()).toContain('▸ Flips');
    expect(t.lines()[22]).toMatch(/esc back\s+↑↓ scroll\s+tab check/);
    await t.press('G');
    await until(() => t.backend.calls.includes(`ListFlips ${c.uuid} 901 100`), 'the second page');
    await until(() => t.frame().includes('more older'), 'the second page shown');
    await t.press('G');
    await until(() => t.backend.calls.includes(`ListFlips ${c.uuid} 801 100`), 'the third page');
    await t.press('G');
    // At the oldest flip, with none left on the daemon.
    await until(() => /▸ Flips \(newest first\)/.test(t.frame()), 'the end');
    const last = t.lines().filter((l) => / → /.test(l)).at(-1)!;
    expect(last).toMatch(/down → up\s+lasted 10m/);
    await t.press('g');
    expect(t.frame()).toMatch(/▸ Flips \(newest first, \d+ older\)/);
    await t.press(TAB);
    expect(t.frame()).not.toContain('▸');
  });

  it('w switches the history window; the strip shows nothing before the check existed', async () => {
    const { t } = failing();
    await until(() => t.frame().includes('backup-db'), 'the table');
    await t.press(ENTER);
    await until(() => t.frame().includes('new → up'), 'the details');
    expect(t.frame()).toMatch(/history ▃+█+▁+ last 1d 1h/);
    // The last hour: down all of it.
    await t.press('w');
    expect(t.frame()).toMatch(/history ▁+ last 1h/);
    await t.press('w');
    expect(t.frame()).toMatch(/history ▃+█+▁+ last 1d/);
    await t.press('w');
    // A week: the check is two days old, so most of the strip is blank.
    const strip = t.lines().find((l) => l.startsWith('history'))!;
    expect(strip).toMatch(/^history {30,}▃+█+▁+ last 7d$/);
    await t.press('W', 'W');
    expect(t.frame()).toMatch(/history ▁+ last 1h/);
  });
});

describe('sort and width', () => {
  const MIN = 60_000;
  const sortable = () => [
    check({ name: 'bravo', last_ping_ms: T0 - 30 * MIN, expected_ms: T0 + 30 * MIN, last_duration_ms: 5_000 }),
    check({ name: 'alpha', last_ping_ms: T0 - 5 * MIN, expected_ms: T0 + 55 * MIN, last_duration_ms: 90_000 }),
    down({ name: 'delta', last_ping_ms: T0 - 90 * MIN, last_duration_ms: 1_000 }),
    check({ name: 'charlie', last_ping_ms: T0 - 50 * MIN, expected_ms: T0 + 10 * MIN, last_duration_ms: 30_000 }),
  ];
  const order = (t: ReturnType<typeof start>) =>
    t
      .lines()
      .slice(3, 7)
      .map((l) => /(alpha|bravo|charlie|delta)/.exec(l)?.[1]);

  it('o cycles the sort keys, O goes back, I reverses; the header says which', async () => {
    const t = start(sortable());
    await until(() => t.frame().includes('alpha'), 'the table');
    expect(order(t)).toEqual(['delta', 'alpha', 'bravo', 'charlie']);
    expect(t.lines()[1]).toMatch(/sort: status ▼$/);
    expect(t.lines()[2]).toMatch(/^ ▼STATUS\s+NAME/);
    await t.press('o');
    expect(order(t)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    expect(t.lines()[1]).toMatch(/sort: name ▼$/);
    expect(t.lines()[2]).toMatch(/STATUS\s+▼NAME/);
    await t.press('I');
    expect(order(t)).toEqual(['delta', 'charlie', 'bravo', 'alpha']);
    expect(t.lines()[1]).toMatch(/sort: name ▲$/);
    await t.press('o'); // last ping, latest first (o starts a key in its natural direction)
    expect(order(t)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    expect(t.lines()[2]).toMatch(/▼LAST PING/);
    await t.press('o'); // deadline: soonest first; the down check cannot go down again, last
    expect(order(t)).toEqual(['charlie', 'bravo', 'alpha', 'delta']);
    expect(t.lines()[2]).toMatch(/▼TIMER/);
    await t.press('o'); // last run: longest first
    expect(order(t)).toEqual(['alpha', 'charlie', 'bravo', 'delta']);
    expect(t.lines()[1]).toMatch(/sort: last run ▼$/);
    await t.press('O', 'O', 'O', 'O');
    expect(order(t)).toEqual(['delta', 'alpha', 'bravo', 'charlie']);
  });

  it('keeps the order through events: a ping moves its check where the order says', async () => {
    const checks = sortable();
    const t = start(checks);
    await until(() => t.frame().includes('alpha'), 'the table');
    await t.press('o', 'o'); // last ping
    t.backend.emit(event('EVENT_TYPE_PING_RECEIVED', 11, { ...checks[3]!, last_ping_ms: T0, n_pings: 2 }));
    await until(() => order(t)[0] === 'charlie', 'charlie first');
    expect(order(t)).toEqual(['charlie', 'alpha', 'bravo', 'delta']);
  });

  it('shows schedule with time zone, grace, last run, pings and whole tag lists at 200 columns', async () => {
    const t = start(
      [
        check({
          name: 'nightly-report',
          kind: 'CHECK_KIND_CRON',
          schedule: '30 2 * * *',
          tz: 'Europe/Riga',
          grace_s: 1800,
          last_duration_ms: 83_000,
          n_pings: 1234,
          tags: ['reports', 'finance', 'nightly', 'prod', 'eu-west'],
        }),
      ],
      { size: { columns: 200, rows: 50 } },
    );
    await until(() => t.frame().includes('nightly-report'), 'the table');
    expect(t.lines()[2]).toMatch(/STATUS\s+NAME\s+TAGS\s+LAST PING\s+TIMER\s+SCHEDULE\s+GRACE\s+LAST RUN\s+PINGS$/);
    expect(t.line('nightly-report')).toMatch(
      /up\s+nightly-report\s+reports finance nightly prod eu-west\s+1m ago\s+down in 1h 29m\s+30 2 \* \* \* Europe\/Riga\s+30m\s+1m 23s\s+1234$/,
    );
    expect(t.lines()).toHaveLength(49);
    for (const l of t.lines()) expect(l.length).toBeLessThanOrEqual(200);
  });

  it('keeps every column aligned when names hold wide characters, emoji or combining marks', async () => {
    const names = ['備份データベース毎晩の処理', '🚀 deploy-frontend', 'cafe\u0301-crème-brûlée', 'plain-ascii-name'];
    for (const size of [
      { columns: 80, rows: 24 },
      { columns: 200, rows: 50 },
    ]) {
      const t = start(
        names.map((name) => check({ name, tags: ['日本', 'ops'] })),
        { size },
      );
      await until(() => t.frame().includes('plain-ascii-name'), 'the table');
      const header = t.lines()[2]!;
      const columnAt = (line: string, title: string) => displayWidth(line.slice(0, line.indexOf(title)));
      const lastAt = columnAt(header, 'LAST PING');
      const timerAt = columnAt(header, 'TIMER');
      const periodAt = columnAt(header, size.columns >= 120 ? 'SCHEDULE' : 'PERIOD');
      const rows = t.lines().filter((l) => l.includes('1m ago'));
      expect(rows).toHaveLength(4);
      for (const row of rows) {
        expect(columnAt(row, '1m ago'), row).toBe(lastAt);
        expect(columnAt(row, 'down in'), row).toBe(timerAt);
        expect(columnAt(row, 'every 1h'), row).toBe(periodAt);
        expect(displayWidth(row), row).toBeLessThanOrEqual(size.columns);
      }
      cleanup();
    }
  });
});

describe('several projects, a dropped link, a slow start', () => {
  it('keys typed before the table has loaded wait for it; q never waits', async () => {
    const backend = new FakeBackend(
      Array.from({ length: 5 }, (_, i) => check({ name: `job-${i}` })),
      { snapshot: false },
    );
    const ui = render(<App backend={backend} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    const frame = () => plain(ui.lastFrame());
    await until(() => frame().includes('loading…'), 'the empty table');
    ui.stdin.write('jjj');
    await wait(100);
    backend.sendSnapshot();
    await until(() => /^›up\s+job-3/m.test(frame()), 'the three moves, applied to the loaded table');

    const slow = new FakeBackend([check({ name: 'never-shown' })], { snapshot: false });
    const exits = render(<App backend={slow} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    await until(() => slow.listener !== null, 'the Watch');
    exits.stdin.write('jq');
    // The app exits (and its Watch ends) although the table never loaded and a j waits before the q.
    await until(() => slow.listener === null, 'quit');
  });

  it('with a read-only key, the footer offers no pause or resume', async () => {
    const backend = new FakeBackend(sample());
    backend.project = { ...backend.project, read_only: true };
    const ui = render(<App backend={backend} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    await until(() => plain(ui.lastFrame()).includes('backup-db'), 'the table');
    const footer = plain(ui.lastFrame()).split('\n')[22]!;
    expect(footer).toMatch(/↑↓ move\s+⏎ details\s+\/ search\s+t tag\s+s status\s+\? help\s+q quit/);
    expect(footer).not.toMatch(/pause|resume/);
    ui.stdin.write('\r');
    await until(() => plain(ui.lastFrame()).includes('Recent pings'), 'the details');
    expect(plain(ui.lastFrame()).split('\n')[22]).toMatch(/^esc back\s+↑↓ prev\/next check\s+\? help\s+q quit/);
  });

  it('when the link drops: the table dims, ages stop, the header says since when', async () => {
    let now = T0;
    const t = start(sample(), { clock: () => now, tickMs: 20 });
    await until(() => t.frame().includes('backup-db'), 'the table');
    expect(t.line('backup-db')).toMatch(/3m ago\s+down in 1h 2m/);
    expect(t.ui.lastFrame()).not.toMatch(/\x1b\[2m[^\n]*backup-db/);
    t.backend.connection({ state: 'reconnecting', attempt: 1, retryAt: T0 + 250, error: 'UNAVAILABLE: Connection dropped', since: T0 });
    now = T0 + 3 * 60_000 + 5000;
    await until(() => t.frame().includes('disconnected'), 'the header');
    await until(() => t.lines()[1]!.includes('(3m 5s)'), 'the time since');
    const d = new Date(T0);
    const hhmmss = [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
    expect(t.lines()[1]).toBe(`disconnected ${hhmmss} (3m 5s)  UNAVAILABLE: Connection dropped`);
    expect(t.lines()[0]).toContain('reconnecting…');
    // The rows are dimmed and tell the time they were last known at: nothing counts on.
    expect(t.ui.lastFrame()).toMatch(/\x1b\[2m[^\n]*backup-db/);
    expect(t.line('backup-db')).toMatch(/3m ago\s+down in 1h 2m/);
    // Nor does a check go into grace on the client's say-so: cert-renew stays where it was.
    now = T0 + 10 * 60_000;
    await wait(60);
    expect(t.line('cert-renew')).toMatch(/grace .*down in 4m 30s/);
    // Back: live figures again.
    t.backend.connection(LIVE);
    await until(() => t.line('backup-db').includes('13m ago'), 'the ages counting again');
    expect(t.ui.lastFrame()).not.toMatch(/\x1b\[2m[^\n]*backup-db/);
    await until(() => /down .*down for 5m 30s/.test(t.line('cert-renew')), 'grace turned down on the next tick');
  });

  it('switches projects with ] [ and digits, each stream live all along', async () => {
    const prod = new FakeBackend(sample());
    const staging = new FakeBackend([check({ name: 'staging-deploy' }), check({ name: 'staging-backup' })]);
    staging.project = { ...staging.project, id: 'p2', name: 'staging' };
    const ui = render(<App backends={[prod, staging]} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    const frame = () => plain(ui.lastFrame());
    const lines = () => frame().split('\n');
    const press = async (k: string) => {
      ui.stdin.write(k);
      await wait(60);
    };
    await until(() => frame().includes('backup-db'), 'the first project');
    expect(lines()[0]).toMatch(/^checktop · 1 acme {2}2 staging\s+● live {2}\d\d:\d\d:\d\d$/);
    // staging's Watch runs while prod is on screen: a check of it goes down.
    const sd = staging['checks'][0]!;
    staging.emit(event('EVENT_TYPE_FLIP', 11, { ...sd, stored_status: 'down', status: 'down', expected_ms: 0 }));
    await until(() => lines()[0]!.includes('2 staging (1 down)'), 'the down count on the tab');
    // The suffix is room the title makes: nothing is cut short, the clock stays whole.
    expect(lines()[0]).toMatch(/^checktop · 1 acme {2}2 staging \(1 down\)\s+● live {2}\d\d:\d\d:\d\d$/);
    expect(lines()[0]).not.toContain('…');
    await press(']');
    await until(() => frame().includes('staging-deploy'), 'the second project');
    expect(frame()).not.toContain('backup-db');
    expect(lines()[1]).toContain('2 checks  1 down');
    expect(frame()).toMatch(/down\s+staging-deploy/);
    expect(lines()[0]).toMatch(/1 acme (\(1 down\) )?\s*2 staging/);
    await press('1');
    await until(() => frame().includes('backup-db'), 'back to the first');
    await press('[');
    await until(() => frame().includes('staging-backup'), 'wrapping around backwards');
  });
});
