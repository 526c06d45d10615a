// The unary calls of checkd.v1.Checkd against a real daemon: authentication by
// `x-api-key` metadata, read-only keys, status codes, GetCheck's history.
import { describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { uniqueKeyOf } from '../../daemon/domain/ids.js';
import { setupSuite } from '../helpers/cleanup.js';
import { createCheck, MISSING_UUID, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { plantChecks } from '../helpers/store.js';
import { connect, keyMetadata, rpc, rpcError, Watcher, type CheckdClient } from './support.js';
import { environmentOf } from '../../daemon/store/environment.js';
import { PageTokens } from '../../daemon/grpc/page-token.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const WRONG_KEY = 'x'.repeat(32);

let d: InProcessDaemon;
let client: CheckdClient;
let p: TestProject;
let other: TestProject;

setupSuite(async () => {
  d = await startInProcess();
  p = await d.createProject({ name: 'svc', checkLimit: 50, pingLogLimit: 100 });
  other = await d.createProject({ name: 'other' });
  client = connect(d.daemon.grpcAddress);
});

describe('authentication', () => {
  const calls = [
    ['GetProject', {}],
    ['ListChecks', {}],
    ['GetCheck', { id: MISSING_UUID }],
    ['PauseCheck', { id: MISSING_UUID }],
    ['ResumeCheck', { id: MISSING_UUID }],
  ] as const;

  it.each(calls)('%s without a key is UNAUTHENTICATED', async (method, req) => {
    const err = await rpcError(client, method, req as never, null);
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(err.details).toMatch(/x-api-key/);
  });

  it.each(calls)('%s with a wrong key is UNAUTHENTICATED', async (method, req) => {
    const wrong = await rpcError(client, method, req as never, WRONG_KEY);
    expect(wrong.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(wrong.details).toBe('wrong api key');
    // A key of the wrong form is a wrong key too, not a missing one.
    const short = await rpcError(client, method, req as never, 'short');
    expect(short.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(short.details).toBe('wrong api key (checkd keys are 32 characters)');
  });

  it('a request message over 64 KiB is refused (RESOURCE_EXHAUSTED), with or without a key', async () => {
    for (const key of [null, p.apiKey]) {
      const err = await rpcError(client, 'GetCheck', { id: 'x'.repeat(100 * 1024) } as never, key);
      expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    }
    // The daemon goes on answering.
    expect((await rpc(client, 'GetProject', {}, p.apiKey)).id).toBe(p.id);
  });

  it('Watch without a key or with a wrong one ends UNAUTHENTICATED before sending anything', async () => {
    for (const key of [null, WRONG_KEY]) {
      const w = new Watcher(client, key);
      const err = await w.ending();
      expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(w.events).toEqual([]);
    }
  });

  it('a revoked key stops working at once', async () => {
    const key = await d.daemon.store.createKey(p.id, false, Date.now());
    expect((await rpc(client, 'GetProject', {}, key)).id).toBe(p.id);
    expect(await d.daemon.store.revokeKey(p.id, key)).toBe(true);
    expect((await rpcError(client, 'GetProject', {}, key)).code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('GetProject describes the key’s project', async () => {
    const before = await rpc(client, 'GetProject', {}, p.apiKey);
    await createCheck(d.url, p.apiKey, { name: 'counted' });
    const proj = await rpc(client, 'GetProject', {}, p.apiKey);
    expect(proj).toEqual({
      id: p.id,
      name: 'svc',
      read_only: false,
      revision: d.daemon.store.revision(),
      log_id: d.daemon.store.currentLogId(),
      check_limit: 50,
      n_checks: before.n_checks + 1,
      // The daemon's storage alarm, off (this test daemon keeps no reserve and no quota).
      storage_alarm: {
        active: false,
        cause: '',
        reason: '',
        since_ms: 0,
        free_bytes: expect.any(Number),
        used_bytes: expect.any(Number),
        reserve_bytes: 0,
        quota_bytes: 0,
      },
    });
    expect(proj.log_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(before.log_id).toBe(proj.log_id);
    expect(proj.revision).toBeGreaterThan(before.revision);
    expect(await rpc(client, 'GetProject', {}, p.apiKeyReadonly)).toMatchObject({ id: p.id, read_only: true });
    expect(await rpc(client, 'GetProject', {}, other.apiKey)).toMatchObject({ id: other.id, name: 'other' });
  });
});

describe('read-only keys', () => {
  it('may list, get and watch, seeing unique_key instead of uuid', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'ro-target' });
    const ukey = uniqueKeyOf(c.uuid);

    const listed = await rpc(client, 'ListChecks', {}, p.apiKeyReadonly);
    const mine = listed.checks.find((x) => x.name === 'ro-target')!;
    expect(mine).toMatchObject({ uuid: '', unique_key: ukey });
    expect(listed.checks.every((x) => x.uuid === '' && /^[0-9a-f]{40}$/.test(x.unique_key))).toBe(true);

    const detail = await rpc(client, 'GetCheck', { id: ukey }, p.apiKeyReadonly);
    expect(detail.check).toMatchObject({ uuid: '', unique_key: ukey, name: 'ro-target' });

    const w = new Watcher(client, p.apiKeyReadonly);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    expect(w.events[0]!.checks.find((x) => x.unique_key === ukey)).toMatchObject({ uuid: '' });
    w.cancel();
  });

  it('may not pause or resume: PERMISSION_DENIED, and nothing changes', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'ro-pause' });
    const rev = d.daemon.store.revision();
    for (const id of [c.uuid, uniqueKeyOf(c.uuid)]) {
      const err = await rpcError(client, 'PauseCheck', { id }, p.apiKeyReadonly);
      expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
      expect((await rpcError(client, 'ResumeCheck', { id }, p.apiKeyReadonly)).code).toBe(grpc.status.PERMISSION_DENIED);
    }
    expect(d.daemon.store.getCheck(c.uuid)!.status).toBe('new');
    expect(d.daemon.store.revision()).toBe(rev);
  });
});

describe('errors', () => {
  it('an unknown check is NOT_FOUND, by uuid or unique_key', async () => {
    for (const method of ['GetCheck', 'PauseCheck', 'ResumeCheck'] as const) {
      expect((await rpcError(client, method, { id: MISSING_UUID }, p.apiKey)).code).toBe(grpc.status.NOT_FOUND);
      expect((await rpcError(client, method, { id: uniqueKeyOf(MISSING_UUID) }, p.apiKey)).code).toBe(grpc.status.NOT_FOUND);
    }
  });

  it('another project’s check is NOT_FOUND, and stays untouched', async () => {
    const theirs = await createCheck(d.url, other.apiKey, { name: 'theirs' });
    for (const id of [theirs.uuid, uniqueKeyOf(theirs.uuid)]) {
      expect((await rpcError(client, 'GetCheck', { id }, p.apiKey)).code).toBe(grpc.status.NOT_FOUND);
      expect((await rpcError(client, 'PauseCheck', { id }, p.apiKey)).code).toBe(grpc.status.NOT_FOUND);
    }
    expect(d.daemon.store.getCheck(theirs.uuid)!.status).toBe('new');
  });

  it('a malformed id is INVALID_ARGUMENT', async () => {
    for (const id of ['', 'nope', `${MISSING_UUID}x`, MISSING_UUID.toUpperCase().replace(/-/g, ''), 'a'.repeat(41)]) {
      for (const method of ['GetCheck', 'PauseCheck', 'ResumeCheck'] as const) {
        const err = await rpcError(client, method, { id }, p.apiKey);
        expect(err.code, `${method}(${JSON.stringify(id)})`).toBe(grpc.status.INVALID_ARGUMENT);
      }
    }
  });

  it('resuming a check that is not paused is FAILED_PRECONDITION', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'running' });
    const err = await rpcError(client, 'ResumeCheck', { id: c.uuid }, p.apiKey);
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.details).toBe('check is not paused');
  });
});

describe('pause and resume', () => {
  it('pause answers the paused check (twice is a no-op), resume answers it back to new', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'pausable' });
    await ping(d.url, c.uuid);
    const paused = await rpc(client, 'PauseCheck', { id: c.uuid }, p.apiKey);
    expect(paused).toMatchObject({ uuid: c.uuid, status: 'paused', stored_status: 'paused', n_pings: 1 });
    const rev = d.daemon.store.revision();
    expect(await rpc(client, 'PauseCheck', { id: uniqueKeyOf(c.uuid) }, p.apiKey)).toMatchObject({ status: 'paused' });
    expect(d.daemon.store.revision()).toBe(rev);
    const resumed = await rpc(client, 'ResumeCheck', { id: uniqueKeyOf(c.uuid) }, p.apiKey);
    expect(resumed).toMatchObject({ uuid: c.uuid, status: 'new', stored_status: 'new', last_ping_ms: 0 });
    expect(d.daemon.store.getCheck(c.uuid)!.status).toBe('new');
  });
});

describe('GetCheck', () => {
  it('returns the check with its recent pings and flips, newest first', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'history', timeout: 3600, grace: 60 });
    await ping(d.url, `${c.uuid}/start`);
    await ping(d.url, c.uuid);
    await ping(d.url, `${c.uuid}/fail`);
    const posted = await fetch(`${d.url}/ping/${c.uuid}/log`, { method: 'POST', body: 'hello', headers: { 'User-Agent': 'cron/1.0' } });
    expect(posted.status).toBe(200);
    await posted.text();

    const detail = await rpc(client, 'GetCheck', { id: c.uuid }, p.apiKey);
    expect(detail.check).toMatchObject({ uuid: c.uuid, name: 'history', n_pings: 4, stored_status: 'down', timeout_s: 3600 });
    expect(detail.pings.map((x) => [x.n, x.type])).toEqual([
      [4, 'log'],
      [3, 'fail'],
      [2, 'success'],
      [1, 'start'],
    ]);
    expect(detail.pings[0]).toMatchObject({ method: 'POST', ua: 'cron/1.0', body_size: 5, remote_addr: '127.0.0.1' });
    expect(detail.pings[2]!.duration_s).toBeGreaterThanOrEqual(0);
    expect(detail.pings[3]!.duration_s).toBe(-1);
    const dates = detail.pings.map((x) => x.date_ms);
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);

    expect(detail.flips.map((f) => [f.old_status, f.new_status, f.reason])).toEqual([
      ['up', 'down', 'fail'],
      ['new', 'up', ''],
    ]);
    // A flip's revision is the revision of its FLIP event in the log.
    for (const f of detail.flips) {
      const event = environmentOf(d.daemon.store).events.get(f.revision)!;
      expect(event).toMatchObject({ type: 'flip', checkUuid: c.uuid });
      expect(event.flip!.newStatus).toBe(f.new_status);
    }
    expect(detail.flips[0]!.revision).toBeGreaterThan(detail.flips[1]!.revision);

    // limit bounds both lists; the same by unique_key.
    const limited = await rpc(client, 'GetCheck', { id: uniqueKeyOf(c.uuid), limit: 1 }, p.apiKey);
    expect(limited.pings.map((x) => x.n)).toEqual([4]);
    expect(limited.flips.map((f) => f.new_status)).toEqual(['down']);
  });
});

describe('a check’s history, a page at a time', () => {
  it('ListPings pages back from the newest, by before_n, until more is false; by unique_key too', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'paged pings' });
    for (let i = 0; i < 7; i++) await ping(d.url, i % 2 ? `${c.uuid}/log` : c.uuid);
    const pages: number[][] = [];
    let before = 0;
    for (;;) {
      const page = await rpc(client, 'ListPings', { id: uniqueKeyOf(c.uuid), before_n: before, page_size: 3 }, p.apiKeyReadonly);
      pages.push(page.pings.map((x) => x.n));
      if (!page.more) break;
      before = page.pings.at(-1)!.n;
    }
    expect(pages).toEqual([[7, 6, 5], [4, 3, 2], [1]]);
    // The default page is 50; a page never holds more than 1,000.
    expect((await rpc(client, 'ListPings', { id: c.uuid }, p.apiKey)).pings).toHaveLength(7);
    const err = await rpcError(client, 'ListPings', { id: MISSING_UUID }, p.apiKey);
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect((await rpcError(client, 'ListPings', { id: c.uuid }, other.apiKey)).code).toBe(grpc.status.NOT_FOUND);
  });

  it('ListPings shows no more than the ping log limit, as GetCheck does', async () => {
    const small = await d.createProject({ name: 'short log', pingLogLimit: 4 });
    const c = await createCheck(d.url, small.apiKey, { name: 'short' });
    for (let i = 0; i < 6; i++) await ping(d.url, c.uuid);
    const page = await rpc(client, 'ListPings', { id: c.uuid, page_size: 10 }, small.apiKey);
    expect(page.pings.map((x) => x.n)).toEqual([6, 5, 4, 3]);
    expect(page.more).toBe(false);
  });

  it('ListFlips pages back from the newest, by before_revision', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'paged flips' });
    for (const suffix of ['', '/fail', '', '/fail', '']) await ping(d.url, `${c.uuid}${suffix}`);
    const all = await rpc(client, 'ListFlips', { id: c.uuid }, p.apiKey);
    expect(all.flips.map((f) => f.new_status)).toEqual(['up', 'down', 'up', 'down', 'up']);
    expect(all.more).toBe(false);
    const first = await rpc(client, 'ListFlips', { id: c.uuid, page_size: 2 }, p.apiKey);
    expect(first.more).toBe(true);
    const second = await rpc(client, 'ListFlips', { id: c.uuid, page_size: 2, before_revision: first.flips[1]!.revision }, p.apiKey);
    const third = await rpc(client, 'ListFlips', { id: c.uuid, page_size: 2, before_revision: second.flips[1]!.revision }, p.apiKey);
    expect([...first.flips, ...second.flips, ...third.flips]).toEqual(all.flips);
    expect(third.more).toBe(false);
  });

  it('GetPingBody returns one ping’s stored body, cut to max_bytes if asked', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'with output' });
    const output = 'pg_dump: error: connection to server failed\nexit 3\n';
    const r = await fetch(`${d.url}/ping/${c.uuid}/3`, { method: 'POST', body: output, headers: { 'User-Agent': 'backup.sh' } });
    expect(r.status).toBe(200);
    await r.text();
    await ping(d.url, c.uuid);

    const detail = await rpc(client, 'GetCheck', { id: c.uuid }, p.apiKey);
    expect(detail.pings.map((x) => [x.n, x.type, x.body_size, x.exit_status])).toEqual([
      [2, 'success', 0, undefined],
      [1, 'fail', Buffer.byteLength(output), 3],
    ]);
    const body = await rpc(client, 'GetPingBody', { id: c.uuid, n: 1 }, p.apiKey);
    expect(body.body.toString('utf8')).toBe(output);
    expect(body.truncated).toBe(false);
    expect(body.ping).toMatchObject({ n: 1, type: 'fail', exit_status: 3, ua: 'backup.sh' });
    const cut = await rpc(client, 'GetPingBody', { id: uniqueKeyOf(c.uuid), n: 1, max_bytes: 7 }, p.apiKeyReadonly);
    expect(cut.body.toString('utf8')).toBe('pg_dump');
    expect(cut.truncated).toBe(true);
    // A ping without a body has an empty one; a ping that is not there is NOT_FOUND.
    expect((await rpc(client, 'GetPingBody', { id: c.uuid, n: 2 }, p.apiKey)).body).toHaveLength(0);
    expect((await rpcError(client, 'GetPingBody', { id: c.uuid, n: 9 }, p.apiKey)).code).toBe(grpc.status.NOT_FOUND);
    expect((await rpcError(client, 'GetPingBody', { id: c.uuid, n: 1 }, other.apiKey)).code).toBe(grpc.status.NOT_FOUND);
  });

  it('a down check says since when (its flip); other checks say 0', async () => {
    const c = await createCheck(d.url, p.apiKey, { name: 'went down' });
    await ping(d.url, c.uuid);
    expect((await rpc(client, 'GetCheck', { id: c.uuid }, p.apiKey)).check.down_since_ms).toBe(0);
    await ping(d.url, `${c.uuid}/fail`);
    const detail = await rpc(client, 'GetCheck', { id: c.uuid }, p.apiKey);
    expect(detail.check.stored_status).toBe('down');
    expect(detail.check.down_since_ms).toBe(detail.flips[0]!.timestamp_ms);
    expect(detail.check.down_since_ms).toBeGreaterThan(0);
    const listed = await rpc(client, 'ListChecks', {}, p.apiKey);
    expect(listed.checks.find((x) => x.uuid === c.uuid)!.down_since_ms).toBe(detail.check.down_since_ms);
  });
});

describe('ListChecks', () => {
  it('lists the project’s checks only, in creation order, with the revision', async () => {
    const project = await d.createProject({ name: 'list' });
    const a = await createCheck(d.url, project.apiKey, { name: 'a' });
    const b = await createCheck(d.url, project.apiKey, { name: 'b' });
    await createCheck(d.url, other.apiKey, { name: 'not this one' });
    const listed = await rpc(client, 'ListChecks', {}, project.apiKey);
    expect(listed.checks.map((x) => x.uuid)).toEqual([a.uuid, b.uuid]);
    expect(listed.revision).toBe(d.daemon.store.revision());
    expect(listed.next_page_token).toBe('');
  });

  it('pages through a project in creation order: 1,000 at most per page, every check once', async () => {
    const project = await d.createProject({ name: 'pages', checkLimit: 3000 });
    const uuids = (await plantChecks(d.daemon.store, project.id, 2_345, { createdAt: T0 })).map((c) => c.uuid);
    const pages = async (pageSize: number) => {
      const sizes: number[] = [];
      const seen: string[] = [];
      let token = '';
      do {
        const page = await rpc(client, 'ListChecks', { page_size: pageSize, page_token: token }, project.apiKey);
        sizes.push(page.checks.length);
        seen.push(...page.checks.map((x) => x.uuid));
        token = page.next_page_token;
      } while (token !== '');
      return { sizes, seen };
    };
    const byDefault = await pages(0);
    expect(byDefault.sizes).toEqual([1000, 1000, 345]);
    expect(byDefault.seen).toEqual(uuids);
    expect((await pages(5000)).sizes).toEqual([1000, 1000, 345]);
    const small = await pages(700);
    expect(small.sizes).toEqual([700, 700, 700, 245]);
    expect(small.seen).toEqual(uuids);
    // A last page that is exactly full ends the listing: no token to an empty page.
    const exact = await pages(469);
    expect(exact.sizes).toEqual([469, 469, 469, 469, 469]);
    expect(exact.seen).toEqual(uuids);
    const single = await d.createProject({ name: 'one page' });
    await plantChecks(d.daemon.store, single.id, 3, { createdAt: T0 });
    const whole = await rpc(client, 'ListChecks', { page_size: 3 }, single.apiKey);
    expect(whole.checks).toHaveLength(3);
    expect(whole.next_page_token).toBe('');
  });

  it('gives out opaque page tokens, good only with the key that received them', async () => {
    const project = await d.createProject({ name: 'tokens', checkLimit: 10 });
    const uuids = (await plantChecks(d.daemon.store, project.id, 5, { createdAt: T0 })).map((c) => c.uuid);
    const first = await rpc(client, 'ListChecks', { page_size: 2 }, project.apiKeyReadonly);
    expect(first.checks.map((x) => x.uuid)).toEqual(['', '']);
    const token = first.next_page_token;
    expect(token).not.toBe('');
    // Nothing of a check UUID can be read out of the token, in any encoding of it.
    const raw = Buffer.from(token, 'base64url');
    for (const uuid of uuids) {
      const hex = uuid.replace(/-/g, '');
      for (const form of [uuid, hex, Buffer.from(hex, 'hex').toString('latin1')]) expect(raw.toString('latin1')).not.toContain(form);
      expect(token).not.toContain(uuid);
    }
    expect(() => JSON.parse(raw.toString('utf8'))).toThrow();
    // The same key goes on where it left off.
    const second = await rpc(client, 'ListChecks', { page_size: 2, page_token: token }, project.apiKeyReadonly);
    expect(second.checks.map((x) => x.unique_key)).toEqual(uuids.slice(2, 4).map(uniqueKeyOf));
    // Another key, of the same project or of another one, gets nothing out of it.
    for (const key of [project.apiKey, p.apiKeyReadonly, p.apiKey]) {
      const err = await rpcError(client, 'ListChecks', { page_size: 2, page_token: token }, key);
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toBe('page_token is not one ListChecks gave out');
    }
    // Nor does a token with one character changed.
    const i = Math.floor(token.length / 2);
    const changed = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    expect((await rpcError(client, 'ListChecks', { page_size: 2, page_token: changed }, project.apiKeyReadonly)).code).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    // The same position asked for twice gives two different tokens, both good.
    const again = await rpc(client, 'ListChecks', { page_size: 2 }, project.apiKeyReadonly);
    expect(again.next_page_token).not.toBe(token);
    const viaAgain = await rpc(client, 'ListChecks', { page_size: 2, page_token: again.next_page_token }, project.apiKeyReadonly);
    expect(viaAgain.checks.map((x) => x.unique_key)).toEqual(second.checks.map((x) => x.unique_key));
  });

  it('page tokens outlive a restart: they are sealed with the data dir’s secret', async () => {
    const secret = await d.daemon.store.badgeSecret();
    const pos = { createdAt: T0, uuid: MISSING_UUID };
    const token = new PageTokens(secret).seal(pos, p.apiKey);
    expect(new PageTokens(secret).open(token, p.apiKey)).toEqual(pos);
    expect(new PageTokens(secret).open(token, p.apiKeyReadonly)).toBeNull();
    expect(new PageTokens(`${secret}x`).open(token, p.apiKey)).toBeNull();
  });

  it('refuses a page token it did not give out, with INVALID_ARGUMENT', async () => {
    for (const page_token of ['garbage', Buffer.from('[1,"x"]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      const err = await rpcError(client, 'ListChecks', { page_size: 0, page_token }, p.apiKey);
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toBe('page_token is not one ListChecks gave out');
    }
  });
});

describe('metadata', () => {
  it('the key is read from x-api-key only, not from authorization', async () => {
    const md = keyMetadata(null);
    md.set('authorization', `Bearer ${p.apiKey}`);
    const err = await new Promise<grpc.ServiceError>((resolve) =>
      client.GetProject({}, md, (e) => resolve(e as grpc.ServiceError)),
    );
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
  });
});
