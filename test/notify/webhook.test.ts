// Webhook, Slack, Discord and ntfy channels against a real HTTP server on
// 127.0.0.1: which flips are delivered, and the requests exactly as they
// arrive (templates filled, values escaped for URL, JSON body and headers).
import { describe, expect, it } from 'vitest';
import { NotifyStore } from '../../daemon/store/notify.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, createCheck, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { waitFor } from '../helpers/wait.js';
import { goDown, makeChannel, startHttpReceiver, type HttpReceiver } from './support.js';

let d: InProcessDaemon;
let p: TestProject;
let rx: HttpReceiver;

setupSuite(async () => {
  rx = await startHttpReceiver();
  d = await startInProcess({ notify: { retryBaseMs: 50, retryMaxDelayMs: 200, timeoutMs: 5000 } });
  p = await d.createProject({ name: 'Ops "core" ✓' });
});

const NASTY = 'Backup "nightly"\nline two ✓ & $TAG1 100%';

describe('webhook channel', () => {
  it('delivers down and up with every placeholder filled and escaped for its place', async () => {
    const hook = await makeChannel(
      d,
      p,
      'webhook',
      JSON.stringify({
        method_down: 'POST',
        url_down: `${rx.url}/down/$CODE/$STATUS?name=$NAME&now=$NOW&tags=$TAGS&t1=$TAG1`,
        body_down:
          '{"name": "$NAME", "name_json": $NAME_JSON, "status": "$STATUS", "now": "$NOW", "tags": "$TAGS", "tag2": "$TAG2", "body": "$BODY", "body_json": $BODY_JSON, "exit": $EXITSTATUS, "check": $JSON}',
        headers_down: { 'Content-Type': 'application/json', 'X-Check-Name': '$NAME', Authorization: 'Bearer very-secret' },
        method_up: 'PUT',
        url_up: `${rx.url}/up/$CODE`,
        body_up: 'check $NAME is $STATUS',
        headers_up: { 'Content-Type': 'text/plain; charset=utf-8', 'User-Agent': 'my-agent' },
      }),
    );
    const check = await createCheck(d.url, p.apiKey, { name: NASTY, tags: 'prod "db" ✓', channels: hook.id });
    const body = 'out: "quoted"\nsecond ✓';
    await ping(d.url, check.uuid);
    await ping(d.url, `${check.uuid}/3`, { body }); // exit status 3: a failure
    await rx.waitFor(() => rx.on('/down/').length === 1);
    const down = rx.on('/down/')[0]!;
    expect(down.method).toBe('POST');
    const url = new URL(down.url, rx.url);
    expect(url.pathname).toBe(`/down/${check.uuid}/down`);
    expect(url.searchParams.get('name')).toBe(NASTY);
    expect(url.searchParams.get('tags')).toBe('prod "db" ✓');
    expect(url.searchParams.get('t1')).toBe('prod');
    expect(down.url).toContain('name=Backup%20%22nightly%22%0Aline%20two%20%E2%9C%93%20%26%20%24TAG1%20100%25');
    expect(url.searchParams.get('now')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(down.headers['content-type']).toBe('application/json');
    expect(down.headers['user-agent']).toBe('checkd');
    expect(down.headers.authorization).toBe('Bearer very-secret');
    // Non-latin-1 as XML character references, the line break made a space.
    expect(down.headers['x-check-name']).toBe('Backup "nightly" line two &#10003; & $TAG1 100%');
    const doc = JSON.parse(down.body);
    expect(doc).toMatchObject({
      name: NASTY,
      name_json: NASTY,
      status: 'down',
      tags: 'prod "db" ✓',
      tag2: '"db"',
      body,
      body_json: body,
      exit: 3,
    });
    expect(doc.now).toBe(url.searchParams.get('now'));
    expect(doc.check).toMatchObject({ name: NASTY, uuid: check.uuid, status: 'down', n_pings: 2 });

    await ping(d.url, check.uuid);
    await rx.waitFor(() => rx.on('/up/').length === 1);
    const up = rx.on('/up/')[0]!;
    expect(up.method).toBe('PUT');
    expect(up.url).toBe(`/up/${check.uuid}`);
    expect(up.headers['user-agent']).toBe('my-agent');
    // Not JSON: the name goes in raw (upstream behavior).
    expect(up.body).toBe(`check ${NASTY} is up`);
  });

  it('a plain URL is GET on both events; new→up, pause and resume send nothing', async () => {
    const hook = await makeChannel(d, p, 'webhook', `${rx.url}/plain?c=$CODE&s=$STATUS`);
    const check = await createCheck(d.url, p.apiKey, { name: 'plain', channels: hook.id });
    const mine = () => rx.on('/plain').filter((r) => r.url.includes(check.uuid));
    await ping(d.url, check.uuid); // new → up: nothing
    const paused = await api(d.url, `/api/v3/checks/${check.uuid}/pause`, { key: p.apiKey, method: 'POST' });
    expect(paused.status).toBe(200);
    const resumed = await api(d.url, `/api/v3/checks/${check.uuid}/resume`, { key: p.apiKey, method: 'POST' });
    expect(resumed.status).toBe(200);
    await ping(d.url, check.uuid); // new → up again: nothing
    await ping(d.url, `${check.uuid}/fail`); // up → down
    await ping(d.url, `${check.uuid}/fail`); // down → down: no flip
    await ping(d.url, check.uuid); // down → up
    await rx.waitFor(() => mine().length >= 2);
    await d.daemon.notifier.idle();
    expect(mine().map((r) => [r.method, new URL(r.url, rx.url).searchParams.get('s')])).toEqual([
      ['GET', 'down'],
      ['GET', 'up'],
    ]);
    expect(mine().every((r) => r.body === '')).toBe(true);
  });

  it('an event with an empty URL is a no-op; unassigned channels get nothing', async () => {
    const upOnly = await makeChannel(d, p, 'webhook', JSON.stringify({ url_up: `${rx.url}/uponly/$CODE` }));
    const other = await makeChannel(d, p, 'webhook', `${rx.url}/unassigned/$CODE`);
    const check = await createCheck(d.url, p.apiKey, { name: 'up only', channels: upOnly.id });
    await goDown(d.url, check.uuid);
    await ping(d.url, check.uuid);
    await rx.waitFor(() => rx.on(`/uponly/${check.uuid}`).length === 1);
    await d.daemon.notifier.idle();
    expect(rx.on(`/uponly/${check.uuid}`)).toHaveLength(1);
    expect(rx.on('/unassigned/')).toHaveLength(0);
    const listed = await api(d.url, '/api/v3/channels/', { key: p.apiKey });
    expect(listed.json.channels.map((c: { id: string }) => c.id)).toContain(other.id);
  });

  it('credentials in the URL go out as Basic authentication', async () => {
    const hook = await makeChannel(d, p, 'webhook', `http://bob:p%40ss@127.0.0.1:${rx.port}/basic/$CODE`);
    const check = await createCheck(d.url, p.apiKey, { name: 'basic', channels: hook.id });
    await goDown(d.url, check.uuid);
    await rx.waitFor(() => rx.on(`/basic/${check.uuid}`).length === 1);
    expect(rx.on(`/basic/${check.uuid}`)[0]!.headers.authorization).toBe('Basic ' + Buffer.from('bob:p@ss').toString('base64'));
  });

  it('a flip of a check deleted before its delivery is dropped', async () => {
    rx.respondWith((r) => (r.url.startsWith('/deleted/') ? { status: 503 } : undefined));
    const hook = await makeChannel(d, p, 'webhook', `${rx.url}/deleted/$CODE`);
    const check = await createCheck(d.url, p.apiKey, { name: 'short-lived', channels: hook.id });
    await goDown(d.url, check.uuid);
    await rx.waitFor(() => rx.on(`/deleted/${check.uuid}`).length >= 1);
    const del = await api(d.url, `/api/v3/checks/${check.uuid}`, { key: p.apiKey, method: 'DELETE' });
    expect(del.status).toBe(200);
    const { listChannelDeliveries } = await import('../../daemon/notify/listing.js');
    await waitFor(() => listChannelDeliveries(d.daemon.store, p.id).find((c) => c.id === hook.id)!.pending === 0);
    const n = rx.on(`/deleted/${check.uuid}`).length;
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.on(`/deleted/${check.uuid}`)).toHaveLength(n);
  });

  it('a timeout flip (deadline passed) is notified with its reason', async () => {
    const hook = await makeChannel(d, p, 'webhook', JSON.stringify({ url_down: `${rx.url}/late/$CODE`, method_down: 'POST', body_down: '$NOW' }));
    const check = await createCheck(d.url, p.apiKey, { name: 'late', timeout: 60, grace: 60, channels: hook.id });
    await ping(d.url, check.uuid);
    // Move the check's deadline into the past through the store, as the monitor would see it after a long stop.
    const stored = d.daemon.store.getCheck(check.uuid)!;
    await d.daemon.store.transact(() => {
      d.daemon.store.saveCheckInTxn({ ...stored, lastPing: Date.now() - 200_000, alertAfter: Date.now() - 80_000 }, Date.now(), 'check.updated');
    });
    await d.daemon.monitor.poke();
    await rx.waitFor(() => rx.on(`/late/${check.uuid}`).length === 1);
    expect(rx.on(`/late/${check.uuid}`)[0]!.body).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  });
});

describe('Slack, Discord and ntfy channels', () => {
  it('Slack gets its attachment payload; Discord the same at /slack', async () => {
    const slack = await makeChannel(d, p, 'slack', `${rx.url}/services/T0/B0/XX`);
    const discord = await makeChannel(d, p, 'discord', `${rx.url}/api/webhooks/1/abc`);
    const check = await createCheck(d.url, p.apiKey, {
      name: NASTY,
      tags: 'prod db',
      desc: 'Nightly *backup*',
      schedule: '0 2 * * *',
      tz: 'Europe/Riga',
      channels: `${slack.id},${discord.id}`,
    });
    await goDown(d.url, check.uuid, 'last words "here"');
    await rx.waitFor(() => rx.on('/services/').length === 1 && rx.on('/api/webhooks/').length === 1);
    const s = rx.on('/services/')[0]!;
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/services/T0/B0/XX');
    expect(s.headers['content-type']).toBe('application/json');
    const doc = JSON.parse(s.body);
    const a = doc.attachments[0];
    expect(a.color).toBe('danger');
    expect(a.fallback).toBe(`The check "${NASTY}" is DOWN.`);
    expect(a.title).toBe(`“${NASTY}” is DOWN.`);
    expect(a.text).toBe('Received a failure signal.');
    const fields = Object.fromEntries(a.fields.map((f: { title: string; value: string }) => [f.title, f.value]));
    expect(fields).toMatchObject({
      Description: 'Nightly *backup*',
      Project: 'Ops "core" ✓',
      Tags: '`prod` `db`',
      Schedule: '0 2 * * *',
      'Time Zone': 'Europe/Riga',
      'Total Pings': '2',
    });
    expect(fields['Last Ping Body']).toBe('```\nlast words "here"\n```');
    const dd = rx.on('/api/webhooks/')[0]!;
    expect(dd.url).toBe('/api/webhooks/1/abc/slack');
    const dfields = JSON.parse(dd.body).attachments[0].fields;
    expect(dfields.find((f: { title: string }) => f.title === 'Schedule').value).toBe('0 2 \\* \\* \\*');

    await ping(d.url, check.uuid);
    await rx.waitFor(() => rx.on('/services/').length === 2);
    const upDoc = JSON.parse(rx.on('/services/')[1]!.body);
    expect(upDoc.attachments[0]).toMatchObject({ color: 'good', title: `“${NASTY}” is UP.` });
    expect(upDoc.attachments[0].text).toMatch(/^The downtime lasted \d+ seconds?\.$/);
  });

  it('ntfy: JSON to the server with topic, title, priority, tags and the token', async () => {
    const plain = await makeChannel(d, p, 'ntfy', `${rx.url}/ntfy1/alerts-1`);
    const json = await makeChannel(
      d,
      p,
      'ntfy',
      JSON.stringify({ url: `${rx.url}/ntfy2`, topic: 'alerts-2', priority: 4, priority_up: 0, token: 'tk_secret' }),
    );
    const check = await createCheck(d.url, p.apiKey, { name: 'ntfy "check" ✓', channels: `${plain.id},${json.id}` });
    await goDown(d.url, check.uuid);
    await rx.waitFor(() => rx.on('/ntfy1/').length === 1 && rx.on('/ntfy2/').length === 1);
    const one = rx.on('/ntfy1/')[0]!;
    expect(one.method).toBe('POST');
    expect(one.url).toBe('/ntfy1/');
    expect(one.headers.authorization).toBeUndefined();
    expect(JSON.parse(one.body)).toMatchObject({
      topic: 'alerts-1',
      priority: 5,
      title: 'ntfy "check" ✓ is DOWN',
      markdown: true,
      tags: ['red_circle'],
    });
    expect(JSON.parse(one.body).message).toContain('Received a failure signal.');
    const two = rx.on('/ntfy2/')[0]!;
    expect(two.headers.authorization).toBe('Bearer tk_secret');
    expect(JSON.parse(two.body)).toMatchObject({ topic: 'alerts-2', priority: 4 });
    await ping(d.url, check.uuid);
    await rx.waitFor(() => rx.on('/ntfy1/').length === 2);
    await d.daemon.notifier.idle();
    expect(JSON.parse(rx.on('/ntfy1/')[1]!.body)).toMatchObject({ priority: 3, title: 'ntfy "check" ✓ is UP', tags: ['green_circle'] });
    // priority_up 0: the up event is off for the second channel.
    expect(rx.on('/ntfy2/')).toHaveLength(1);
  });
});

describe('delivery bookkeeping', () => {
  it('waits for nothing it should not: pings answer while a channel hangs, other channels go on', async () => {
    rx.respondWith((r) => (r.url.startsWith('/slow/') ? { status: 200, delayMs: 1500 } : undefined));
    const slow = await makeChannel(d, p, 'webhook', `${rx.url}/slow/$CODE`);
    const fast = await makeChannel(d, p, 'webhook', `${rx.url}/fast/$CODE`);
    const a = await createCheck(d.url, p.apiKey, { name: 'slow one', channels: `${slow.id},${fast.id}` });
    const t0 = Date.now();
    await goDown(d.url, a.uuid);
    await rx.waitFor(() => rx.on(`/fast/${a.uuid}`).length === 1);
    expect(Date.now() - t0).toBeLessThan(2000);
    // Pings are answered at once while the slow delivery is in flight.
    const t1 = Date.now();
    await ping(d.url, a.uuid);
    expect(Date.now() - t1).toBeLessThan(1000);
    await rx.waitFor(() => rx.on(`/fast/${a.uuid}`).length === 2);
    expect(Date.now() - t1).toBeLessThan(2000);
    // The slow channel still gets both, in order.
    await rx.waitFor(() => rx.on(`/slow/${a.uuid}`).length === 2, 15_000);
  });

  it('retries with backoff until it works; a 4xx is given up at once', async () => {
    let failures = 0;
    rx.respondWith((r) => {
      if (r.url.startsWith('/flaky/') && failures < 3) {
        failures++;
        return { status: 503 };
      }
      if (r.url.startsWith('/gone/')) return { status: 404 };
      return undefined;
    });
    const flaky = await makeChannel(d, p, 'webhook', `${rx.url}/flaky/$CODE`, 'flaky');
    const gone = await makeChannel(d, p, 'webhook', `${rx.url}/gone/$CODE`, 'gone');
    const c = await createCheck(d.url, p.apiKey, { name: 'retry me', channels: `${flaky.id},${gone.id}` });
    await goDown(d.url, c.uuid);
    await rx.waitFor(() => rx.on('/flaky/').length === 4);
    await d.daemon.notifier.idle();
    const times = rx.on('/flaky/').map((r) => r.at);
    // 50, 100, 200 ms between attempts (some slack for the scheduler).
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(40);
    expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(times[1]! - times[0]!);
    expect(rx.on('/gone/')).toHaveLength(1);
    const { listChannelDeliveries } = await import('../../daemon/notify/listing.js');
    const rows = Object.fromEntries(listChannelDeliveries(d.daemon.store, p.id).map((r) => [r.name, r]));
    expect(rows.flaky).toMatchObject({ state: 'ok', error: '', pending: 0 });
    expect(rows.gone).toMatchObject({ state: 'failed', error: 'Received status code 404', pending: 0 });
  });

  it('gives up after the retry window and records why', async () => {
    const d2 = await startInProcess({ notify: { retryBaseMs: 20, retryMaxDelayMs: 40, giveUpAfterMs: 300 } });
    const p2 = await d2.createProject();
    rx.respondWith((r) => (r.url.startsWith('/down500/') ? { status: 500 } : undefined));
    const ch = await makeChannel(d2, p2, 'webhook', `${rx.url}/down500/$CODE`);
    const c = await createCheck(d2.url, p2.apiKey, { name: 'doomed', channels: ch.id });
    await goDown(d2.url, c.uuid);
    const { listChannelDeliveries } = await import('../../daemon/notify/listing.js');
    await waitFor(() => listChannelDeliveries(d2.daemon.store, p2.id)[0]!.state === 'failed', { timeout: 5000 });
    const row = listChannelDeliveries(d2.daemon.store, p2.id)[0]!;
    expect(row.error).toMatch(/^Received status code 500 \(gave up after \d+ attempts\)$/);
    expect(row.pending).toBe(0);
    expect(rx.on('/down500/').length).toBeGreaterThanOrEqual(3);
  });
});

describe('a ping body over 10,000 characters (with a larger --ping-body-limit)', () => {
  it('reaches $BODY and $BODY_JSON whole: only the e-mail is cut', async () => {
    const big = await startInProcess({ pingBodyLimit: 30_000, notify: { retryBaseMs: 50, retryMaxDelayMs: 200, timeoutMs: 5000 } });
    const bp = await big.createProject({ name: 'big' });
    const hook = await makeChannel(
      big,
      bp,
      'webhook',
      JSON.stringify({ method_down: 'PUT', url_down: `${rx.url}/bigbody`, body_down: '{"b": $BODY_JSON, "raw": "$BODY"}' }),
    );
    const check = await createCheck(big.url, bp.apiKey, { name: 'big body', channels: hook.id });
    const body = 'HEAD' + 'x'.repeat(11_992) + 'TAIL';
    await goDown(big.url, check.uuid, body);
    await rx.waitFor(() => rx.on('/bigbody').length === 1);
    const doc = JSON.parse(rx.on('/bigbody')[0]!.body);
    expect(doc.b).toBe(body);
    expect(doc.raw).toBe(body);
  });
});

describe('a daemon with --block-private-addresses', () => {
  it('refuses a loopback webhook once, as a permanent failure, and sends nothing', async () => {
    const guarded = await startInProcess({ notify: { retryBaseMs: 50, retryMaxDelayMs: 200, timeoutMs: 5000, blockPrivateAddresses: true } });
    const gp = await guarded.createProject({ name: 'guarded' });
    const hook = await makeChannel(guarded, gp, 'webhook', `${rx.url}/guarded`);
    const check = await createCheck(guarded.url, gp.apiKey, { name: 'guarded', channels: hook.id });
    await goDown(guarded.url, check.uuid);
    const notify = new NotifyStore(guarded.daemon.store);
    await waitFor(() => notify.channelStatus(hook.id)?.state === 'failed');
    expect(notify.channelStatus(hook.id)).toMatchObject({ error: 'Connections to private IP addresses are not allowed', event: 'down' });
    // Permanent: not queued for a retry.
    expect(notify.pendingCount(hook.id)).toBe(0);
    expect(rx.on('/guarded')).toHaveLength(0);
  });
});
