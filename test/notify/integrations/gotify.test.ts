// gotify: a Markdown message to the server's /message with the application
// token; a priority per event, 0 turning it off; the project's other checks
// that are down; which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { ping } from '../../helpers/http.js';
import { goDown, makeChannel } from '../support.js';
import { channel, checking, deliveryStatus, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, makeCheck, startHarness, type Harness, type ServiceRequest } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';

const TOKEN = 'AbC.d3f_tok';
let h: Harness;

function problems(req: ServiceRequest): string[] {
  if (req.query.get('token') !== TOKEN) return ['token'];
  if (req.method !== 'POST' || !/\/message$/.test(req.path)) return [`no route ${req.method} ${req.path}`];
  const p = jsonProblems(req, { title: 'string', message: 'string' });
  const prio = p.length === 0 ? jsonOf(req).priority : undefined;
  if (prio !== undefined && (!Number.isInteger(prio) || prio < 0 || prio > 10)) p.push('priority');
  return p;
}

setupSuite(async () => {
  const model = (req: ServiceRequest) =>
    problems(req)[0] === 'token'
      ? { status: 401, json: { error: 'Unauthorized', errorCode: 401, errorDescription: 'you need to provide a valid access token or user credentials to access this api' } }
      : checking(problems, { status: 200, json: { id: 1, appid: 1, message: 'x', date: '2024-01-01T00:00:00Z' } }, (p) => ({
          status: 400,
          json: { error: 'Bad Request', errorCode: 400, errorDescription: p.join('; ') },
        }))(req);
  h = await startHarness(model);
});

describe('gotify', () => {
  it('value: {"url", "token", "priority", "priority_up"}', () => {
    expect(validateChannel('gotify', JSON.stringify({ url: 'https://push.example', token: 't' }))).toMatchObject({ ok: true });
    expect(validateChannel('gotify', JSON.stringify({ url: 'https://push.example', token: 't', priority: 9, priority_up: 0 }))).toMatchObject({ ok: true });
    expect(validateChannel('gotify', JSON.stringify({ url: 'push.example', token: 't' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"url"/) });
    expect(validateChannel('gotify', JSON.stringify({ url: 'https://push.example', token: '' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"token"/) });
    expect(validateChannel('gotify', JSON.stringify({ url: 'https://push.example', token: 't', priority: 11 }))).toMatchObject({ ok: false, error: expect.stringMatching(/0 to 10/) });
    expect(validateChannel('gotify', JSON.stringify({ url: 'https://push.example', token: 't', priority: '5' }))).toMatchObject({ ok: false });
    expect(validateChannel('gotify', JSON.stringify({ url: 'https://push.example', token: 't', priority: 0, priority_up: 0 }))).toMatchObject({ ok: false, error: expect.stringMatching(/both 0/) });
    expect(validateChannel('gotify', 'https://push.example')).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
  });

  it('down and up: POST /message?token=…, title and Markdown, no priority unless configured', async () => {
    const c = await channel(h, 'gotify', JSON.stringify({ url: `${h.rx.url}/g1`, token: TOKEN }));
    const { down, up } = await downThenUp(h, c.id, '/g1/');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/g1/message');
    expect(down.query.get('token')).toBe(TOKEN);
    expect(down.headers['content-type']).toBe('application/json');
    const doc = jsonOf(down);
    expect(doc.title).toBe('backup "nightly" <db> & co is DOWN');
    expect(doc.message.split('\n\n')[0]).toBe('🔴 The check "backup "nightly" <db> & co" is **DOWN** (received a failure signal).');
    expect(doc).not.toHaveProperty('priority');
    expect(doc.extras).toEqual({ 'client::display': { contentType: 'text/markdown' } });
    const upDoc = jsonOf(up);
    expect(upDoc.title).toBe('backup "nightly" <db> & co is UP');
    expect(upDoc.message).toMatch(/^🟢 The check "backup "nightly" <db> & co" is now \*\*UP\*\*\.\n\nThe downtime lasted \d+ seconds?\./);
  });

  it('a server on a sub-path, with or without the final slash', async () => {
    for (const [i, url] of [`${h.rx.url}/sub1/gotify`, `${h.rx.url}/sub2/gotify/`].entries()) {
      const c = await channel(h, 'gotify', JSON.stringify({ url, token: TOKEN }));
      const { down } = await downThenUp(h, c.id, `/sub${i + 1}/`);
      expect(down.url).toBe(`/sub${i + 1}/gotify/message?token=AbC.d3f_tok`);
    }
  });

  it('configured priorities are sent; priority 0 makes that event a no-op', async () => {
    const c = await channel(h, 'gotify', JSON.stringify({ url: `${h.rx.url}/g2`, token: TOKEN, priority: 8, priority_up: 0 }));
    const check = await makeCheck(h, { name: 'prio', channels: c.id });
    await goDown(h.d.url, check.uuid);
    await h.rx.waitFor('/g2/', 1);
    expect(jsonOf(h.rx.on('/g2/')[0]!).priority).toBe(8);
    await ping(h.d.url, check.uuid);
    await h.d.daemon.notifier.idle();
    await new Promise((r) => setTimeout(r, 200));
    expect(h.rx.on('/g2/')).toHaveLength(1);
    expect(deliveryStatus(h, c.id)).toMatchObject({ state: 'ok', event: 'down' });
  });

  it('lists the other checks that are down, or says they are all up', async () => {
    const p2 = await h.d.createProject({ name: 'others' });
    const c = await makeChannel(h.d, p2, 'gotify', JSON.stringify({ url: `${h.rx.url}/g3`, token: TOKEN }));
    const quiet = await makeCheck(h, { name: 'quiet one', channels: '' }, p2);
    await ping(h.d.url, quiet.uuid);
    const main = await makeCheck(h, { name: 'main', channels: c.id }, p2);
    await goDown(h.d.url, main.uuid);
    await h.rx.waitFor('/g3/', 1);
    expect(jsonOf(h.rx.on('/g3/')[0]!).message).toMatch(/\n\nAll the other checks are up\.$/);
    const broken = await makeCheck(h, { name: 'Broken job', channels: '' }, p2);
    await goDown(h.d.url, broken.uuid);
    const never = await makeCheck(h, { name: 'another', channels: '' }, p2);
    await ping(h.d.url, `${never.uuid}/fail`);
    await ping(h.d.url, main.uuid);
    await h.rx.waitFor('/g3/', 2);
    expect(jsonOf(h.rx.on('/g3/')[1]!).message).toMatch(
      /\n\nThe following checks are still down:\n- another \(last ping: (just now|an? \w+ ago|\d+ \w+ ago)\)\n- Broken job \(last ping: .+\)$/,
    );
  });

  it('a wrong token (401) is final; a 5xx is retried', async () => {
    const c = await channel(h, 'gotify', JSON.stringify({ url: `${h.rx.url}/g4`, token: 'wrong' }));
    await expectPermanent(h, c.id, '/g4/', { status: 401, json: { error: 'Unauthorized', errorCode: 401, errorDescription: 'you need to provide a valid access token or user credentials to access this api' } }, 'Received status code 401 with a message: "you need to provide a valid access token or user credentials to access this api"');
    const ok = await channel(h, 'gotify', JSON.stringify({ url: `${h.rx.url}/g5`, token: TOKEN }));
    await expectTransient(h, ok.id, '/g5/', [{ status: 502, text: 'Bad Gateway' }], 'Received status code 502');
  });
});
