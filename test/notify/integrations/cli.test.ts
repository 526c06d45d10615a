// The built CLI with the service integrations: `checkd channel create` checks
// each kind's value (and a group's members), `checkd channel test` sends one
// test notification through every kind's real path to a local receiver and
// records it, a failure included. Needs `npm run build` first.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/child.js';
import { setupSuite } from '../../helpers/cleanup.js';
import { tempDir } from '../../helpers/temp.js';
import { formOf, jsonOf, startServiceReceiver, type ServiceReceiver, type ServiceRequest } from './receiver.js';

// Every test here runs the CLI several times: give them room on a busy machine.
const SLOW = 60_000;
let dir: string;
let rx: ServiceReceiver;
let project: { id: string };

/** The built CLI with none of the runner's CHECKD_* settings (runCli leaves them out), plus `env`. */
async function checkd(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { env });
}

async function create(kind: string, value: string, name?: string, env: NodeJS.ProcessEnv = {}) {
  const args = ['channel', 'create', '--project', project.id, '--kind', kind, '--value', value, '--data-dir', dir, '--json'];
  if (name) args.push('--name', name);
  return checkd(args, env);
}

async function createOk(kind: string, value: string, name?: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await create(kind, value, name, env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id;
}

async function test(id: string, env: NodeJS.ProcessEnv = {}) {
  const r = await checkd(['channel', 'test', id, '--data-dir', dir, '--json'], env);
  return { ...r, doc: r.stdout ? JSON.parse(r.stdout) : null };
}

async function listed(id: string): Promise<Record<string, unknown>> {
  const r = await checkd(['channel', 'list', '--project', project.id, '--data-dir', dir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).channels.find((c: { id: string }) => c.id === id);
}

setupSuite(async () => {
  dir = tempDir('checkd-integrations-cli-');
  rx = await startServiceReceiver();
  const r = await checkd(['project', 'create', '--name', 'cli', '--data-dir', dir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  project = JSON.parse(r.stdout);
});

describe('checkd channel create with a service kind', () => {
  it('refuses a bad value of every kind: exit 2 and a reason', async () => {
    const bad: Array<[string, string, RegExp]> = [
      ['mattermost', 'not a url', /http\(s\) URL/],
      ['msteamsw', 'x', /http\(s\) URL/],
      ['googlechat', 'x', /http\(s\) URL/],
      ['rocketchat', 'x', /http\(s\) URL/],
      ['victorops', 'x', /http\(s\) URL/],
      ['spike', 'x', /http\(s\) URL/],
      ['group', 'a,b', /channel ids separated by commas/],
      ['pd', 'x'.repeat(40), /integration key/],
      ['opsgenie', '{"key": "k", "region": "mars"}', /"us" or "eu"/],
      ['gotify', '{"url": "https://g.example"}', /"token"/],
      ['zulip', '{"bot_email": "b@z.example", "api_key": "k", "mtype": "stream", "to": "", "site": ""}', /"to" is required/],
      ['telegram', '{"id": "ops"}', /"id" must be a whole number/],
      ['po', 'key|5|0', /-3 \(off\) to 2/],
      ['matrix', 'room', /room ID like/],
    ];
    const results = await Promise.all(bad.map(([kind, value]) => create(kind, value)));
    for (const [i, [kind, value, re]] of bad.entries()) {
      expect(results[i]!.code, `${kind} ${value}`).toBe(2);
      expect(results[i]!.stderr, `${kind} ${value}`).toMatch(re);
    }
  }, SLOW);

  it('a group takes channels of its own project only, and no groups', async () => {
    const member = await createOk('spike', `${rx.url}/member`);
    const missing = await create('group', '44444444-4444-4444-8444-444444444444');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no channel 44444444-4444-4444-8444-444444444444 in this project/);
    const group = await createOk('group', member, 'team');
    const nested = await create('group', `${member},${group}`);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toMatch(/groups cannot contain groups/);
    const r = await checkd(['project', 'create', '--name', 'other', '--data-dir', dir, '--json']);
    const other = JSON.parse(r.stdout).id;
    const foreign = await checkd(['channel', 'create', '--project', other, '--kind', 'group', '--value', member, '--data-dir', dir]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/in this project/);
  }, SLOW);
});

describe('checkd channel create --kind matrix with a room alias', () => {
  it('joins the room as the daemon account and stores its ID, the alias as the name', async () => {
    rx.queue('/j/hs/_matrix/client/v3/join/', { status: 200, json: { room_id: '!joined:hs.example' } });
    const env = { CHECKD_MATRIX_HOMESERVER: `${rx.url}/j/hs`, CHECKD_MATRIX_ACCESS_TOKEN: 'syt_join' };
    const r = await create('matrix', '#ops:hs.example', undefined, env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'matrix', name: '#ops:hs.example' });
    const join = rx.on('/j/hs/')[0]!;
    expect(join.method).toBe('POST');
    expect(join.url).toBe('/j/hs/_matrix/client/v3/join/%23ops%3Ahs.example');
    expect(join.headers.authorization).toBe('Bearer syt_join');
    const exported = await checkd(['export', '--data-dir', dir]);
    expect(exported.stdout).toContain('"!joined:hs.example"');
  }, SLOW);

  it('a join refused, or no account configured: exit 2, nothing stored', async () => {
    rx.queue('/j2/hs/', { status: 403, json: { errcode: 'M_FORBIDDEN', error: 'You are not invited to this room.' } });
    const refused = await create('matrix', '#private:hs.example', undefined, { CHECKD_MATRIX_HOMESERVER: `${rx.url}/j2/hs`, CHECKD_MATRIX_ACCESS_TOKEN: 't' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/could not join #private:hs\.example .*Received status code 403 with a message: "M_FORBIDDEN: You are not invited to this room\."/);
    const none = await create('matrix', '#ops:hs.example');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/needs the Matrix account: --matrix-homeserver and --matrix-access-token/);
  }, SLOW);
});

describe('checkd channel test with a service kind', () => {
  const TEST_CAUSE = 'a test notification sent by checkd channel test';
  // kind, its value (given the receiver's URL), where it sends, the environment it needs, what to check.
  const kinds: Array<[string, (url: string) => string, string, (url: string) => NodeJS.ProcessEnv, (req: ServiceRequest) => void]> = [
    ['mattermost', (u) => `${u}/t/mattermost`, '/t/mattermost', () => ({}), (r) => expect(jsonOf(r).attachments[0].title).toBe('“TEST” is DOWN.')],
    ['msteamsw', (u) => `${u}/t/msteamsw`, '/t/msteamsw', () => ({}), (r) => expect(jsonOf(r).attachments[0].content.body[0].text).toBe(`🔴 “TEST” is DOWN (${TEST_CAUSE}).`)],
    ['googlechat', (u) => `${u}/t/googlechat`, '/t/googlechat', () => ({}), (r) => expect(jsonOf(r).cardsV2[0].card.sections[0].widgets[0].textParagraph.text).toContain('<b>TEST</b> is <b>DOWN</b>')],
    ['rocketchat', (u) => `${u}/t/rocketchat`, '/t/rocketchat', () => ({}), (r) => expect(jsonOf(r).text).toBe(`TEST is DOWN (${TEST_CAUSE}).`)],
    ['victorops', (u) => `${u}/t/victorops`, '/t/victorops', () => ({}), (r) => expect(jsonOf(r)).toMatchObject({ message_type: 'CRITICAL', entity_display_name: 'TEST' })],
    ['spike', (u) => `${u}/t/spike`, '/t/spike', () => ({}), (r) => expect(jsonOf(r)).toMatchObject({ status: 'down', title: `TEST is DOWN (${TEST_CAUSE})` })],
    [
      'pd',
      () => 'R0ut1ngKeyR0ut1ngKeyR0ut1ngKey32',
      '/t/pd/v2/enqueue',
      (u) => ({ CHECKD_PAGERDUTY_API_URL: `${u}/t/pd`, CHECKD_SITE_NAME: 'Acme' }),
      (r) => expect(jsonOf(r)).toMatchObject({ event_action: 'trigger', client: 'Acme', payload: { summary: `TEST is DOWN (${TEST_CAUSE}).` } }),
    ],
    [
      'opsgenie',
      () => '{"key": "gk", "region": "eu"}',
      '/t/og-eu/v2/alerts',
      (u) => ({ CHECKD_OPSGENIE_EU_API_URL: `${u}/t/og-eu` }),
      (r) => expect(jsonOf(r).message).toBe(`The check &quot;TEST&quot; is DOWN (${TEST_CAUSE}).`),
    ],
    ['gotify', (u) => JSON.stringify({ url: `${u}/t/gotify`, token: 'tk' }), '/t/gotify/message', () => ({}), (r) => expect(jsonOf(r).title).toBe('TEST is DOWN')],
    [
      'zulip',
      (u) => JSON.stringify({ bot_email: 'bot@z.example', api_key: 'k', mtype: 'stream', to: 'ops', site: `${u}/t/zulip`, topic: '' }),
      '/t/zulip/api/v1/messages',
      () => ({}),
      (r) => expect(formOf(r).get('topic')).toBe('TEST is DOWN'),
    ],
    [
      'telegram',
      () => '{"id": -100777}',
      '/t/tg/bot123:T-ok/sendMessage',
      (u) => ({ CHECKD_TELEGRAM_BOT_TOKEN: '123:T-ok', CHECKD_TELEGRAM_API_URL: `${u}/t/tg` }),
      (r) => expect(jsonOf(r)).toMatchObject({ chat_id: -100777, text: expect.stringMatching(new RegExp(`^🔴 The check “TEST” is <b>DOWN</b> \\(${TEST_CAUSE}\\)\\.\n`)) }),
    ],
    [
      'po',
      () => 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG|1|0',
      '/t/po/1/messages.json',
      (u) => ({ CHECKD_PUSHOVER_APP_TOKEN: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', CHECKD_PUSHOVER_API_URL: `${u}/t/po` }),
      (r) => expect(Object.fromEntries(formOf(r))).toMatchObject({ token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', title: '🔴 TEST is DOWN', priority: '1' }),
    ],
    [
      'matrix',
      () => '!cli:hs.example',
      '/t/hs/_matrix/client/v3/rooms/!cli%3Ahs.example/send/m.room.message/',
      (u) => ({ CHECKD_MATRIX_HOMESERVER: `${u}/t/hs`, CHECKD_MATRIX_ACCESS_TOKEN: 'syt_cli' }),
      (r) => {
        expect(r.method).toBe('PUT');
        expect(r.headers.authorization).toBe('Bearer syt_cli');
        expect(jsonOf(r).body).toBe(`TEST is DOWN (${TEST_CAUSE}).`);
      },
    ],
  ];

  for (const [kind, value, path, env, check] of kinds) {
    it(`${kind}: sends the test notification and records it`, async () => {
      const id = await createOk(kind, value(rx.url));
      const r = await test(id, env(rx.url));
      expect(r.code, r.stderr).toBe(0);
      expect(r.doc).toMatchObject({ id, kind, event: 'down', ok: true, error: '' });
      const sent = rx.requests.filter((q) => q.url.startsWith(path));
      expect(sent).toHaveLength(1);
      if (kind !== 'matrix') expect(sent[0]!.method).toBe('POST');
      check(sent[0]!);
      expect(await listed(id)).toMatchObject({ kind, last_status: 'ok', last_error: '' });
    }, SLOW);
  }

  it('the daemon secrets: without them not enabled (exit 1); a bad one is a usage error that does not repeat it', async () => {
    const tg = await createOk('telegram', '{"id": 5}');
    const off = await test(tg);
    expect(off.code).toBe(1);
    expect(off.doc).toMatchObject({ ok: false, error: 'Telegram notifications are not enabled.' });
    const po = await createOk('po', 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG|0|0');
    expect((await test(po)).doc).toMatchObject({ ok: false, error: 'Pushover notifications are not enabled.' });
    const bad = await checkd(['channel', 'test', tg, '--data-dir', dir, '--telegram-bot-token', 'secret token-xyz']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--telegram-bot-token: a token is one word/);
    expect(bad.stderr).not.toContain('token-xyz');
    const half = await checkd(['channel', 'test', tg, '--data-dir', dir], { CHECKD_MATRIX_HOMESERVER: 'https://hs.example' });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/Matrix needs both --matrix-homeserver and --matrix-access-token/);
  }, SLOW);

  it('a failure: exit 1 with the error, recorded', async () => {
    const id = await createOk('victorops', `${rx.url}/t/vo-gone`);
    rx.queue('/t/vo-gone', { status: 404, json: { result: 'failure', message: 'Not found' } });
    const r = await test(id);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, error: 'Received status code 404 with a message: "Not found"' });
    expect(await listed(id)).toMatchObject({ last_status: 'failed', last_error: 'Received status code 404 with a message: "Not found"' });
  }, SLOW);

  it('group: tests each member (recorded on the member) and counts the failures', async () => {
    const good = await createOk('spike', `${rx.url}/t/g-good`);
    const bad = await createOk('spike', `${rx.url}/t/g-bad`);
    rx.queue('/t/g-bad', { status: 500 });
    const group = await createOk('group', `${good},${bad}`);
    const r = await test(group);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ kind: 'group', ok: false, error: '1 out of 2 notifications failed' });
    expect(rx.on('/t/g-good')).toHaveLength(1);
    expect(rx.on('/t/g-bad')).toHaveLength(1);
    expect(await listed(good)).toMatchObject({ last_status: 'ok' });
    expect(await listed(bad)).toMatchObject({ last_status: 'failed', last_error: 'Received status code 500' });
    expect(await listed(group)).toMatchObject({ last_status: 'failed', last_error: '1 out of 2 notifications failed' });
    const again = await test(group);
    expect(again.code, again.stderr).toBe(0);
    expect(await listed(group)).toMatchObject({ last_status: 'ok' });
  }, SLOW);
});
