// The parts of `checkd import --from-healthchecks` on their own: the mapping of
// recorded Healthchecks answers (fixtures/healthchecks-v3.json) to checkd
// records, the HTTP client's retries, timeouts and errors against a local
// stub, and the progress bar's line.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { mapProject, MappingError } from '../../daemon/ops/healthchecks-map.js';
import { apiBase, HealthchecksClient, KeyRefusedError, retryAfterMs } from '../../daemon/ops/healthchecks-client.js';
import { fetchProject, type SourceProject } from '../../daemon/ops/healthchecks-fetch.js';
import { OpsError } from '../../daemon/ops/errors.js';
import { UsageError } from '../../daemon/cli/admin.js';
import { renderBar } from '../../daemon/cli/progress.js';
import { onCleanup } from '../helpers/cleanup.js';
import { recording, startStub, type Recording, type Stub } from './healthchecks-stub.js';

const A = '31365bce-8da9-4729-8ff3-aaa71d56b712';
const B = '803f680d-e89b-492b-82ef-2be7b774a92d';
const C = 'c0ffee00-1234-4abc-8def-0123456789ab';
const D = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const EMAIL = '4ec5a071-2d08-4baa-898a-eb4eb3cd6941';
const SMS = '746a083e-f542-4554-be1a-707ce16d3acc';
const HOOK = 'b7e2a3c4-1d5f-4e6a-9b8c-7d6e5f4a3b2c';
const NOW = Date.parse('2020-03-24T13:00:00Z');
const ms = (iso: string) => Date.parse(iso);

/** What fetchProject would read from the recording, without HTTP. */
function sourceOf(rec: Recording, withBodies = true): SourceProject {
  const r = rec.responses;
  const checks = (r['/api/v3/checks/'] as { checks: Array<Record<string, unknown>> }).checks.map((doc) => {
    const uuid = doc.uuid as string;
    const bodies = new Map<number, Uint8Array>();
    if (withBodies) {
      for (const [path, text] of Object.entries(r)) {
        const m = new RegExp(`^/api/v3/checks/${uuid}/pings/(\\d+)/body$`).exec(path);
        if (m) bodies.set(Number(m[1]), new TextEncoder().encode(text as string));
      }
    }
    return { uuid, doc, pings: r[`/api/v3/checks/${uuid}/pings/`], flips: r[`/api/v3/checks/${uuid}/flips/`], bodies };
  });
  return { checks, channels: r['/api/v3/channels/'] };
}

describe('mapping recorded Healthchecks answers', () => {
  const mapped = mapProject(sourceOf(recording()), NOW);
  const byUuid = (uuid: string) => mapped.checks.find((m) => m.check.uuid === uuid)!;

  it('keeps every check with its UUID, in the order of the list', () => {
    expect(mapped.checks.map((m) => m.check.uuid)).toEqual([A, B, C, D]);
  });

  it('a simple check: settings, status, exact last ping, last duration, badge key and deadline', () => {
    const a = byUuid(A);
    expect(a.check).toMatchObject({
      name: 'Filesystem Backup',
      slug: 'filesystem-backup',
      tags: 'backup fs',
      desc: 'Runs incremental backup every hour',
      kind: 'simple',
      timeout: 3600,
      grace: 600,
      manualResume: false,
      methods: '',
      startKw: '',
      successKw: '',
      failureKw: '',
      filterSubject: false,
      filterBody: false,
      filterHttpBody: false,
      filterDefaultFail: false,
      status: 'up',
      nPings: 4,
      // last_ping has whole seconds; the success ping n=4 has the rest.
      lastPing: ms('2020-03-24T14:02:03.113Z'),
      lastDuration: 2900,
      lastStart: null,
      lastStartRid: null,
      everStarted: true,
      alertAfter: ms('2020-03-24T14:02:03.113Z') + (3600 + 600) * 1000,
      channels: [EMAIL, SMS],
      createdAt: NOW,
    });
    expect(a.sourceBadgeKey).toBe('ea7d5d1d-9b1f-4a8f-b0a8-5bf1ea7a2fa9');
  });

  it('pings oldest first, with every kind, address, method and body', () => {
    const a = byUuid(A);
    expect(a.pings.map((p) => [p.n, p.kind])).toEqual([
      [1, 'success'],
      [2, 'fail'],
      [3, 'start'],
      [4, 'success'],
    ]);
    expect(a.pings[0]).toEqual({
      n: 1,
      date: ms('2020-03-22T09:00:00Z'),
      kind: 'success',
      scheme: 'email',
      remoteAddr: 'alice@example.org',
      method: 'email',
      ua: 'Email from alice@example.org',
      rid: null,
      exitStatus: null,
      duration: null,
      body: null,
    });
    expect(a.pings[1]).toMatchObject({ date: ms('2020-03-23T10:00:05.500Z'), scheme: 'https', remoteAddr: '2001:db8::1', method: 'POST', ua: '' });
    expect(new TextDecoder().decode(a.pings[1]!.body!)).toBe('rsync: connection unexpectedly closed\nexit 12\n');
    expect(a.pings[3]).toMatchObject({ duration: 2.9, date: ms('2020-03-24T14:02:03.113Z') });
    const b = byUuid(B);
    expect(b.pings.map((p) => [p.n, p.kind, p.rid])).toEqual([
      [6, 'log', '4f1cd8a3-0b5e-4c7d-9e2f-6a8b0c1d2e3f'],
      [7, 'ign', null],
    ]);
    expect(new TextDecoder().decode(b.pings[1]!.body!)).toBe('dump finished with warnings');
    expect(mapProject(sourceOf(recording(), false), NOW).checks[1]!.pings[1]!.body).toBeNull();
  });

  it('flips oldest first, each from the status before it, stored as processed (history notifies nobody)', () => {
    expect(byUuid(A).flips).toEqual([
      { created: ms('2020-03-22T09:00:00Z'), oldStatus: 'new', newStatus: 'up', reason: '', processed: true },
      { created: ms('2020-03-23T10:00:05Z'), oldStatus: 'up', newStatus: 'down', reason: '', processed: true },
      { created: ms('2020-03-24T14:02:03Z'), oldStatus: 'down', newStatus: 'up', reason: '', processed: true },
    ]);
    // checkd answers a bare array (the API document), Healthchecks {"flips": [...]}: both are read.
    expect(byUuid(B).flips).toEqual([{ created: ms('2020-03-23T05:35:00Z'), oldStatus: 'new', newStatus: 'down', reason: '', processed: true }]);
    expect(byUuid(C).flips).toEqual([]);
  });

  it('a cron check that is down, with keyword filters', () => {
    const b = byUuid(B);
    expect(b.check).toMatchObject({
      kind: 'cron',
      schedule: '15 5 * * *',
      tz: 'UTC',
      grace: 1200,
      status: 'down',
      nPings: 7,
      // The last ping logged is ignored, not a run: last_ping stays as given.
      lastPing: ms('2020-03-23T05:15:32Z'),
      lastDuration: null,
      successKw: 'OK',
      failureKw: 'ERROR',
      filterSubject: true,
      filterBody: true,
      filterHttpBody: true,
      filterDefaultFail: true,
      alertAfter: null,
      everStarted: false,
      channels: [],
    });
  });

  it('a paused OnCalendar check with manual resume, POST only and a start keyword', () => {
    expect(byUuid(C).check).toMatchObject({
      kind: 'oncalendar',
      schedule: 'Mon *-*-* 06:00:00',
      tz: 'Europe/Riga',
      status: 'paused',
      manualResume: true,
      methods: 'POST',
      startKw: 'begin',
      nPings: 0,
      lastPing: null,
      alertAfter: null,
      channels: [EMAIL],
    });
    expect(byUuid(C).pings).toEqual([]);
  });

  it('a running check in grace from an older Healthchecks (only the deprecated subject filters)', () => {
    const d = byUuid(D);
    expect(d.check).toMatchObject({
      kind: 'simple',
      timeout: 39600,
      status: 'up',
      successKw: 'rotated',
      failureKw: '',
      filterSubject: true,
      lastPing: ms('2020-03-24T01:00:00.750Z'),
      lastStart: ms('2020-03-24T12:30:00.250Z'),
      lastStartRid: '0c8d2a1e-5b7f-4e3d-9a6c-2b1f0e9d8c7a',
      everStarted: true,
      // G = min(E, start) = E = last ping + timeout; D = G + grace.
      alertAfter: ms('2020-03-24T01:00:00.750Z') + (39600 + 3600) * 1000,
    });
  });

  it('channels by id, name and kind; kinds checkd cannot deliver to are marked', () => {
    expect(mapped.channels).toEqual([
      { id: EMAIL, name: 'My Work Email', kind: 'email', supported: true },
      { id: SMS, name: 'My Phone', kind: 'sms', supported: false },
      { id: HOOK, name: '', kind: 'webhook', supported: true },
    ]);
  });

  it('a started check whose start ping is no longer logged is timed from the import', () => {
    const rec = recording();
    (rec.responses[`/api/v3/checks/${D}/pings/`] as { pings: unknown[] }).pings.shift();
    const d = mapProject(sourceOf(rec), NOW).checks[3]!;
    expect(d.check.lastStart).toBe(NOW);
    expect(d.check.lastStartRid).toBeNull();
  });

  it('refuses what checkd cannot store, listing every problem', () => {
    const rec = recording();
    const checks = (rec.responses['/api/v3/checks/'] as { checks: Array<Record<string, unknown>> }).checks;
    checks[0]!.timeout = 30;
    checks[1]!.schedule = 'every tuesday';
    checks[2]!.status = 'sleeping';
    (rec.responses[`/api/v3/checks/${A}/pings/`] as { pings: Array<Record<string, unknown>> }).pings[0]!.type = 'bogus';
    (rec.responses[`/api/v3/checks/${B}/flips/`] as Array<Record<string, unknown>>)[0]!.up = 'yes';
    let err: unknown;
    try {
      mapProject(sourceOf(rec), NOW);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MappingError);
    const problems = (err as MappingError).problems;
    expect(problems).toEqual([
      `check ${A} ("Filesystem Backup"): timeout is too small`,
      `check ${A} ("Filesystem Backup"): pings[0]: expected a ping record (type, date, n, scheme, remote_addr, method, ua, rid)`,
      `check ${B} ("Database Backup"): schedule is not a valid cron or OnCalendar expression`,
      `check ${B} ("Database Backup"): flips[0]: expected {"timestamp", "up": 0 or 1}`,
      `check ${C} ("Weekly report"): unknown status "sleeping"`,
    ]);
  });

  it('channel names lose commas (they separate names where checks name channels) and are at most 100 characters', () => {
    const rec = recording();
    const channels = (rec.responses['/api/v3/channels/'] as { channels: Array<Record<string, unknown>> }).channels;
    channels[0]!.name = 'Ops, night shift';
    channels[2]!.name = 'x'.repeat(150);
    const mapped = mapProject(sourceOf(rec), NOW);
    expect(mapped.channels[0]!.name).toBe('Ops  night shift');
    expect(mapped.channels[2]!.name).toBe('x'.repeat(100));
  });
});

describe('the API base of a URL', () => {
  it('takes the site with or without a slash or /api/v3', () => {
    for (const url of ['https://healthchecks.io', 'https://healthchecks.io/', 'https://healthchecks.io/api/v3', 'https://healthchecks.io/api/v3/']) {
      expect(apiBase(url)).toBe('https://healthchecks.io/api/v3');
    }
    expect(apiBase('http://hc.example:8000/monitor/')).toBe('http://hc.example:8000/monitor/api/v3');
  });

  it('refuses what is not an http(s) site address', () => {
    for (const url of ['healthchecks.io', 'ftp://healthchecks.io', 'https://healthchecks.io/?x=1', 'https://user:pw@hc.example', '']) {
      expect(() => apiBase(url), url).toThrow(UsageError);
    }
  });

  it('Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs(null, 0)).toBeNull();
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs(new Date(0).toUTCString(), 4000)).toBe(0);
  });
});

describe('the client against a stub server', () => {
  const client = (s: Stub, key = recording().api_key, opts = {}) => new HealthchecksClient(apiBase(s.url), key, opts);

  it('waits as a 429 asks (Retry-After) and then reads everything', async () => {
    const stub = await startStub(recording(), { rateLimited: 2, retryAfter: '0' });
    const waits: string[] = [];
    const read = await fetchProject(client(stub, undefined, { onWait: (_ms: number, why: string) => waits.push(why) }), { pingBodies: true });
    expect(waits).toHaveLength(2);
    expect(waits[0]).toMatch(/rate-limited .*\(429\)/);
    expect(read.checks.map((c) => c.uuid)).toEqual([A, B, C, D]);
    expect([...read.checks[0]!.bodies.keys()]).toEqual([2]);
    // Two refused, then the list, the channels, pings and flips of 4 checks, 2 bodies.
    expect(stub.requests).toHaveLength(2 + 2 + 8 + 2);
  });

  it('gives up after its bounded retries, saying to try later', async () => {
    const stub = await startStub(recording(), { rateLimited: 100, retryAfter: '0' });
    await expect(client(stub, undefined, { rateLimitRetries: 3 }).json('/checks/')).rejects.toThrow(/still rate-limits the import after 3 waits: try again later/);
    expect(stub.requests).toHaveLength(4);
  });

  it('does not wait longer than it allows', async () => {
    const stub = await startStub(recording(), { rateLimited: 1, retryAfter: '3600' });
    await expect(client(stub).json('/checks/')).rejects.toThrow(/asks to wait 3600 s: try again later/);
  });

  it('retries a passing failure (503) and a timeout, then gives up on a server that does not answer', async () => {
    const stub = await startStub(recording(), { unavailable: 1 });
    expect(await client(stub).json('/channels/')).toMatchObject({ channels: expect.any(Array) });
    const hanging = await startStub(recording(), { hang: /checks/ });
    const c = client(hanging, undefined, { timeoutMs: 200, failureRetries: 1 });
    await expect(c.json('/checks/')).rejects.toThrow(/cannot read .*\/api\/v3\/checks\/: no answer in time \(after 2 tries\)/);
    expect(hanging.requests).toEqual(['/api/v3/checks/', '/api/v3/checks/']);
  });

  it('a wrong key is a KeyRefusedError (exit 2); a read-only key is refused for want of UUIDs', async () => {
    const stub = await startStub();
    await expect(client(stub, 'hcw_' + 'x'.repeat(28)).json('/checks/')).rejects.toBeInstanceOf(KeyRefusedError);
    const err = await fetchProject(client(stub, recording().api_key_readonly), { pingBodies: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/read-only API key.*read-write key/);
  });

  it('a page that is not the API, a 404, a redirect and a refused connection: OpsErrors that say so', async () => {
    const rec = recording();
    rec.responses['/api/v3/channels/'] = undefined;
    const stub = await startStub(rec);
    await expect(client(stub).json('/channels/')).rejects.toThrow(/gave 404: is .* a Healthchecks or checkd server/);
    const html = createHtmlServer();
    await html.listening;
    await expect(new HealthchecksClient(`${html.url}/api/v3`, rec.api_key).json('/checks/')).rejects.toThrow(/did not answer JSON/);
    await expect(new HealthchecksClient(`${html.url}/old/api/v3`, rec.api_key).json('/checks/')).rejects.toThrow(
      new RegExp(`redirects to https://hc.example \\(301\\): pass --from-healthchecks https://hc.example`),
    );
    // Closed now, so that its address refuses connections.
    await html.close();
    const refused = new HealthchecksClient(`${html.url}/api/v3`, rec.api_key);
    const err = await refused.json('/checks/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpsError);
    expect((err as Error).message).toMatch(/cannot read .*ECONNREFUSED/);
  });
});

/** A web site that is not the API: an HTML page, and a redirect under /old; closed at cleanup, or earlier by close(). */
function createHtmlServer(): { url: string; listening: Promise<void>; close(): Promise<void> } {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/old/')) return void res.writeHead(301, { Location: 'https://hc.example/api/v3/checks/' }).end();
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Welcome</body></html>');
  });
  let closed: Promise<void> | undefined;
  const handle = {
    url: '',
    listening: Promise.resolve(),
    close: () =>
      (closed ??= (async () => {
        server.closeAllConnections();
        server.close();
        await once(server, 'close');
      })()),
  };
  handle.listening = (async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    handle.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  })();
  onCleanup(handle.close);
  return handle;
}

describe('the progress bar', () => {
  it('draws done/total as a share of the bar', () => {
    expect(renderBar('reading', 0, 40, 10)).toBe('reading [..........]  0/40');
    expect(renderBar('reading', 12, 40, 10)).toBe('reading [###.......] 12/40');
    expect(renderBar('reading', 40, 40, 10)).toBe('reading [##########] 40/40');
    expect(renderBar('reading', 0, 0, 4)).toBe('reading [....] 0/0');
  });
});
