// Durability of notifications across a crash: flips happen while the
// receiver is down, the daemon (the built CLI) is killed with SIGKILL and
// started again; when the receiver is back every flip arrives exactly once,
// and what had been delivered (and acknowledged) before the kill is not sent
// again; a delivery cut off by the kill is repeated with the same
// Idempotency-Key, so that its receiver can drop the repeat. Needs `npm run build` first.
import { describe, expect, it } from 'vitest';
import { runCliJson, startChild, type ChildDaemon } from '../helpers/child.js';
import { api, ping } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { goDown, startHttpReceiver, type ReceivedRequest } from './support.js';

const ENV: NodeJS.ProcessEnv = {
  CHECKD_LOG_LEVEL: 'warn',
  CHECKD_NOTIFY_RETRY_BASE_MS: '50',
  CHECKD_NOTIFY_RETRY_MAX_MS: '200',
  CHECKD_NOTIFY_TIMEOUT_MS: '2000',
};

describe('notifications survive SIGKILL', () => {
  it('every flip arrives once; acknowledged deliveries are not repeated', async () => {
    const data = tempDir('checkd-notify-crash-');
    const cli = (args: string[]): Promise<any> => runCliJson([...args, '--data-dir', data]);
    const serve = (): Promise<ChildDaemon> => startChild(['--data-dir', data, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'], { env: ENV });
    let rx = await startHttpReceiver();
    const port = rx.port;
    const project = await cli(['project', 'create', '--name', 'crash']);
    const hook = await cli([
      'channel',
      'create',
      '--project',
      project.id,
      '--kind',
      'webhook',
      '--value',
      JSON.stringify({
        method_down: 'POST',
        url_down: `http://127.0.0.1:${port}/hook`,
        body_down: '$CODE $STATUS $NAME',
        method_up: 'POST',
        url_up: `http://127.0.0.1:${port}/hook`,
        body_up: '$CODE $STATUS $NAME',
      }),
    ]);
    const pending = async (): Promise<{ pending: number; status: string }> => {
      const { channels } = await cli(['channel', 'list', '--project', project.id]);
      return { pending: channels[0].pending, status: channels[0].last_status };
    };

    let child = await serve();
    const names = ['A', 'B', 'C', 'D', 'E'];
    const uuid: Record<string, string> = {};
    for (const name of names) {
      const r = await api(child.url, '/api/v3/checks/', { key: project.api_key, body: { name, channels: hook.id } });
      expect(r.status).toBe(201);
      uuid[r.json.uuid] = name;
      uuid[name] = r.json.uuid;
    }
    const all: ReceivedRequest[] = [];
    const label = (r: ReceivedRequest) => {
      const [code, status] = r.body.split(' ');
      return `${uuid[code!]}/${status}`;
    };

    // 1. Receiver up: A goes down, is delivered and acknowledged (gone from the outbox).
    await goDown(child.url, uuid.A!);
    await rx.waitFor((reqs) => reqs.length === 1);
    for (let i = 0; ; i++) {
      const s = await pending();
      if (s.pending === 0 && s.status === 'ok') break;
      if (i > 50) throw new Error(`not acknowledged: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // 2. Receiver down: more flips, all failing and queued for retry.
    all.push(...rx.requests);
    await rx.close();
    await ping(child.url, uuid.A!); // A up
    await goDown(child.url, uuid.B!); // B down
    await goDown(child.url, uuid.C!); // C down
    await ping(child.url, uuid.C!); // C up
    await goDown(child.url, uuid.D!); // D down
    for (let i = 0; ; i++) {
      const s = await pending();
      if (s.pending === 5 && s.status === 'retrying') break;
      if (i > 50) throw new Error(`not queued: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // A flip acknowledged to the pinger a moment before the kill, cursor moved or not.
    await goDown(child.url, uuid.E!);
    expect((await child.stop('SIGKILL')).code).toBe(null);

    // 3. Restart while the receiver is still down; one more flip.
    child = await serve();
    await ping(child.url, uuid.B!); // B up
    await new Promise((r) => setTimeout(r, 300));

    // 4. The receiver comes back on the same port: everything arrives.
    rx = await startHttpReceiver(port);
    const expected = ['A/down', 'A/up', 'B/down', 'B/up', 'C/down', 'C/up', 'D/down', 'E/down'];
    await rx.waitFor((reqs) => all.length + reqs.length >= expected.length, 15_000);
    for (let i = 0; ; i++) {
      const s = await pending();
      if (s.pending === 0) break;
      if (i > 50) throw new Error(`outbox not drained: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500)); // nothing more trickles in
    all.push(...rx.requests);
    const counts: Record<string, number> = {};
    for (const r of all) counts[label(r)] = (counts[label(r)] ?? 0) + 1;
    expect(counts).toEqual(Object.fromEntries(expected.map((e) => [e, 1])));
    // The one acknowledged before the kill was not sent again.
    expect(rx.requests.map(label)).not.toContain('A/down');
    // One channel: its deliveries keep the order of the flips.
    const order = rx.requests.map(label);
    expect(order.indexOf('C/down')).toBeLessThan(order.indexOf('C/up'));
    expect(order.indexOf('B/down')).toBeLessThan(order.indexOf('B/up'));
    expect(await pending()).toEqual({ pending: 0, status: 'ok' });
    await child.stop();
  });

  it('a delivery cut off by SIGKILL is sent again after the restart, with the same Idempotency-Key', async () => {
    const data = tempDir('checkd-notify-crash-');
    const cli = (args: string[]): Promise<any> => runCliJson([...args, '--data-dir', data]);
    const serve = (): Promise<ChildDaemon> => startChild(['--data-dir', data, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'], { env: ENV });
    const rx = await startHttpReceiver();
    // The first request is held unanswered: the daemon dies while it waits.
    rx.respondWith((req) => (rx.requests.indexOf(req) === 0 ? { status: 200, delayMs: 60_000 } : undefined));
    const project = await cli(['project', 'create', '--name', 'repeat']);
    const hook = await cli([
      'channel', 'create', '--project', project.id, '--kind', 'webhook',
      '--value', JSON.stringify({ method_down: 'POST', url_down: `${rx.url}/hook`, body_down: '$CODE $STATUS', method_up: 'POST', url_up: `${rx.url}/hook`, body_up: '$CODE $STATUS' }),
    ]);
    let child = await serve();
    const created = await api(child.url, '/api/v3/checks/', { key: project.api_key, body: { name: 'R', channels: hook.id } });
    expect(created.status).toBe(201);
    const uuid = created.json.uuid as string;
    await goDown(child.url, uuid);
    await rx.waitFor((reqs) => reqs.length === 1);
    expect((await child.stop('SIGKILL')).code).toBe(null);

    child = await serve();
    await rx.waitFor((reqs) => reqs.length === 2, 15_000);
    const [cut, repeat] = rx.requests as [ReceivedRequest, ReceivedRequest];
    expect(repeat.body).toBe(`${uuid} down`);
    expect(repeat.body).toBe(cut.body);
    const key = cut.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(repeat.headers['idempotency-key']).toBe(key);
    // Another flip is another delivery: another key.
    await ping(child.url, uuid);
    await rx.waitFor((reqs) => reqs.length === 3);
    expect(rx.requests[2]!.body).toBe(`${uuid} up`);
    expect(rx.requests[2]!.headers['idempotency-key']).not.toBe(key);
    await child.stop();
  }, 60_000);
});
