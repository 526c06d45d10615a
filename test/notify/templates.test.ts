// The pure parts of notifications: the placeholder algorithm of
// notifications.md §4.3, the escapers, value parsing and the renderings.
import { describe, expect, it } from 'vitest';
import { headerSafe, substitute, substituteShell, urlEncode } from '../../daemon/domain/templates.js';
import { isNoop, parseChannelValue } from '../../daemon/domain/channel-values.js';
import { validateChannel } from '../../daemon/domain/channel-kinds.js';
import { emailHtml, emailText, shellCommand, shellEnv, webhookValues, type Notification } from '../../daemon/notify/message.js';
import { discordSlackUrl, webhookCall } from '../../daemon/notify/transports.js';
import { newCheck } from '../../daemon/domain/check-input.js';
import { deliveryIdOf } from '../../daemon/domain/ids.js';

function notification(over: { name?: string; tags?: string; slug?: string; body?: string; exit?: number | null } = {}): Notification {
  const check = newCheck({ uuid: '11111111-2222-4333-8444-555555555555', badgeKey: 'b', projectId: 'p', createdAt: 0 });
  check.name = over.name ?? 'Hello World';
  check.tags = over.tags ?? 'foo bar';
  check.slug = over.slug ?? 'hello-world';
  return {
    event: 'down',
    check,
    flip: { created: Date.UTC(2024, 4, 1, 11, 10, 0), oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false },
    lastPing:
      over.body === undefined && over.exit === undefined
        ? null
        : { n: 1, kind: 'fail', date: 0, remoteAddr: null, exitStatus: over.exit ?? null, body: over.body ?? '' },
    downtimeMs: null,
    projectName: 'proj',
    checkJson: '{"name":"x"}',
    test: false,
    deliveryId: '5b0c5f5e-6f1a-4c2d-9e3b-7a8d9c0b1e2f',
  };
}

describe('substitute (hc/lib/string.py replace)', () => {
  const v: Array<[string, string]> = [
    ['$A', ''],
    ['$B', 'text'],
    ['$NAME', 'Alice'],
    ['$TAG1', 'one'],
  ];
  it('follows the upstream examples', () => {
    expect(substitute('Hello $NAME!', v)).toBe('Hello Alice!');
    expect(substitute('$3.50', v)).toBe('$3.50');
    expect(substitute('$NAMEX', v)).toBe('AliceX');
    expect(substitute('$$NAME', v)).toBe('$Alice');
    expect(substitute('$TAG10', v)).toBe('one0');
    expect(substitute('$FOO and $', v)).toBe('$FOO and $');
    expect(substitute('$$AB', v)).toBe('$B'); // overlapping placeholders
  });
  it('never rescans substituted values', () => {
    expect(substitute('$NAME', [['$NAME', '$TAG1'], ['$TAG1', 'no']])).toBe('$TAG1');
  });
});

describe('escapers', () => {
  it('URL-encodes all but letters, digits, _ . - ~ and /', () => {
    expect(urlEncode('Hello World')).toBe('Hello%20World');
    expect(urlEncode('2024-05-01T11:10:00+00:00')).toBe('2024-05-01T11%3A10%3A00%2B00%3A00');
    expect(urlEncode('"$a/b~_.-')).toBe('%22%24a/b~_.-');
    expect(urlEncode('ā')).toBe('%C4%81');
  });
  it('makes header values latin-1 on one line', () => {
    expect(headerSafe('bār ½')).toBe('b&#257;r ½');
    expect(headerSafe('a\r\nX-Evil: 1')).toBe('a  X-Evil: 1');
  });
});

describe('webhook templates', () => {
  it('fills the URL as in test_webhooks_support_variables', () => {
    const n = notification();
    const url = substitute('http://host/$CODE/$SLUG/$STATUS/$TAG1/$TAG2/?name=$NAME', webhookValues(n, 'url'));
    expect(url).toBe('http://host/11111111-2222-4333-8444-555555555555/hello-world/down/foo/bar/?name=Hello%20World');
  });
  it('escapes a name that is itself a placeholder', () => {
    expect(substitute('http://host/$NAME', webhookValues(notification({ name: '$TAG1' }), 'url'))).toBe('http://host/%24TAG1');
  });
  it('handles $$NAMETAG1 with an empty name', () => {
    expect(substitute('$$NAMETAG1', webhookValues(notification({ name: '' }), 'body'))).toBe('$TAG1');
  });
  it('$NOW: URL-encoded in URLs, as is in a text body', () => {
    const n = notification();
    expect(substitute('t=$NOW', webhookValues(n, 'url'))).toBe('t=2024-05-01T11%3A10%3A00%2B00%3A00');
    expect(substitute('The Time Is $NOW', webhookValues(n, 'body'))).toBe('The Time Is 2024-05-01T11:10:00+00:00');
  });
  it('$BODY and $BODY_JSON only in bodies; $EXITSTATUS -1 without a ping', () => {
    const n = notification({ body: 'line "one"\nline two', exit: 123 });
    expect(substitute('$BODY|$BODY_JSON|$EXITSTATUS', webhookValues(n, 'body'))).toBe('line "one"\nline two|"line \\"one\\"\\nline two"|123');
    expect(substitute('$BODY', webhookValues(n, 'url'))).toBe('$BODY');
    expect(substitute('$BODY', webhookValues(n, 'header'))).toBe('$BODY');
    expect(substitute('$EXITSTATUS', webhookValues(notification(), 'body'))).toBe('-1');
  });
  it('a JSON body gets JSON-escaped values; $NAME_JSON is a literal', () => {
    const n = notification({ name: 'He said "hi"\nbye ✓', tags: 'a"b c' });
    const half = {
      method: 'POST' as const,
      url: 'http://h/x',
      body: '{"name": "$NAME", "lit": $NAME_JSON, "tag": "$TAG1", "tags": "$TAGS", "exit": $EXITSTATUS}',
      headers: { 'Content-Type': 'application/json' },
    };
    const call = webhookCall(half, n);
    const doc = JSON.parse(String(call.body));
    expect(doc).toEqual({ name: 'He said "hi"\nbye ✓', lit: 'He said "hi"\nbye ✓', tag: 'a"b', tags: 'a"b c', exit: -1 });
    // Without a JSON content type and not looking like JSON: raw, as upstream.
    const text = webhookCall({ ...half, body: 'name=$NAME', headers: { 'Content-Type': 'text/plain' } }, n);
    expect(String(text.body)).toBe('name=He said "hi"\nbye ✓');
  });
  it('the upstream example of notifications.md §4.6', () => {
    const n = notification({ name: 'Backups', tags: 'prod db', slug: 'backups' });
    const call = webhookCall(
      {
        method: 'POST',
        url: 'https://hooks.example/hc?c=$CODE&s=$STATUS&t=$NOW&n=$NAME',
        body: '{"check": $NAME_JSON, "status": "$STATUS", "tag": "$TAG2", "exit": $EXITSTATUS}',
        headers: {},
      },
      n,
    );
    expect(call.url).toBe(`https://hooks.example/hc?c=${n.check.uuid}&s=down&t=2024-05-01T11%3A10%3A00%2B00%3A00&n=Backups`);
    expect(String(call.body)).toBe('{"check": "Backups", "status": "down", "tag": "db", "exit": -1}');
  });
});

describe('the idempotency key of a webhook delivery', () => {
  it('is the notification\'s delivery id, unless the channel sets the header itself', () => {
    const n = notification();
    const half = { method: 'POST' as const, url: 'http://h/x', body: 'x', headers: {} };
    expect(webhookCall(half, n).headers['Idempotency-Key']).toBe(n.deliveryId);
    expect(webhookCall({ ...half, method: 'GET' }, n).headers['Idempotency-Key']).toBe(n.deliveryId);
    const own = webhookCall({ ...half, headers: { 'idempotency-key': '$CODE' } }, n);
    expect(own.headers).toEqual({ 'idempotency-key': n.check.uuid });
  });
  it('names one flip to one channel of one event log: the same again, different for any other', () => {
    const log = '0d8a7c1e-3b2f-4a6d-8e9c-1f2a3b4c5d6e';
    const channel = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
    const id = deliveryIdOf(log, 42, channel);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(deliveryIdOf(log, 42, channel)).toBe(id);
    const others = [deliveryIdOf(log, 43, channel), deliveryIdOf(log, 42, log), deliveryIdOf(channel, 42, channel)];
    expect(new Set([id, ...others]).size).toBe(4);
  });
});

describe('shell templates', () => {
  it('refers $NAME and tags to the environment, leaves $CODE/$STATUS/$NOW raw', () => {
    const n = notification({ name: "Data'base; rm -rf /", tags: 'foo bar' });
    expect(shellCommand('logger $NAME is $STATUS ($TAG1) $CODE $NOW', n)).toBe(
      `logger "$CHECKD_NAME" is down ("$CHECKD_TAG1") ${n.check.uuid} 2024-05-01T11:10:00+00:00`,
    );
    expect(shellEnv(n)).toMatchObject({ CHECKD_NAME: "Data'base; rm -rf /", CHECKD_TAG1: 'foo', CHECKD_TAG2: 'bar' });
  });
});

describe('channel values', () => {
  it('accepts the documented forms', () => {
    const ok: Array<[string, string]> = [
      ['email', 'ops@example.com'],
      ['email', '{"value":"ops@example.com","up":false}'],
      ['webhook', 'https://example.com/hook'],
      ['webhook', '{"url_down":"https://example.com/d","method_down":"post","body_down":"{}","headers_down":{"Content-Type":"application/json"}}'],
      ['webhook', '{"url_up":"https://example.com/u"}'],
      ['shell', 'logger "$NAME is $STATUS"'],
      ['shell', '{ echo grouped; }'],
      ['shell', '{"cmd_down":"echo down"}'],
      ['slack', 'https://hooks.slack.com/services/T0/B0/XX'],
      ['discord', 'https://discord.com/api/webhooks/1/abc'],
      ['ntfy', 'https://ntfy.sh/my-topic'],
      ['ntfy', '{"topic":"t1","url":"https://ntfy.example/","priority":4,"priority_up":0,"token":"tk"}'],
    ];
    for (const [kind, value] of ok) expect(validateChannel(kind, value), `${kind} ${value}`).toMatchObject({ ok: true });
  });

  it('refuses bad values with a reason', () => {
    const bad: Array<[string, string, RegExp]> = [
      ['email', '{"value":"nope"}', /email address/],
      ['email', '{"value":"a@b.example","up":false,"down":false}', /at least one/],
      ['email', '{"value":"a@b.example","sms":true}', /unknown member "sms"/],
      ['webhook', '{"url_down":"ftp://x.example"}', /http\(s\) URL/],
      ['webhook', '{"url_down":"","url_up":""}', /at least one/],
      ['webhook', '{"url_down":"https://x.example","method_down":"DELETE"}', /GET, POST or PUT/],
      ['webhook', '{"url_down":"https://x.example","body_down":"x"}', /only sent with POST or PUT/],
      ['webhook', '{"url_down":"https://x.example","headers_down":{"Bad Name":"v"}}', /header name/],
      ['webhook', '{"url_down":"https://x.example","headers_down":{"X":"a\\nb"}}', /one line/],
      ['webhook', '{"url_down": ', /not valid JSON/],
      ['webhook', '{"url":"https://x.example"}', /unknown member "url"/],
      ['shell', '{"cmd_down":"","cmd_up":" "}', /at least one/],
      ['shell', '{"cmd_down": 1}', /must be a string/],
      ['ntfy', 'https://ntfy.sh/', /end with the topic/],
      ['ntfy', '{"topic":"bad topic"}', /topic/],
      ['ntfy', '{"topic":"t","priority":9}', /0 to 5/],
      ['ntfy', '{"topic":"t","priority":0,"priority_up":0}', /both 0/],
      ['slack', '{"url":"https://x.example"}', /http\(s\) URL/],
    ];
    for (const [kind, value, re] of bad) {
      const r = validateChannel(kind, value);
      expect(r.ok, `${kind} ${value}`).toBe(false);
      if (!r.ok) expect(r.error, `${kind} ${value}`).toMatch(re);
    }
  });

  it('parses into delivery specs; no-op directions', () => {
    const hook = parseChannelValue('webhook', 'https://example.com/h');
    expect(hook).toMatchObject({ ok: true, spec: { kind: 'webhook', down: { method: 'GET', url: 'https://example.com/h' }, up: { method: 'GET' } } });
    const upOnly = parseChannelValue('webhook', '{"url_up":"https://example.com/u"}');
    expect(upOnly.ok && isNoop(upOnly.spec, 'down')).toBe(true);
    expect(upOnly.ok && isNoop(upOnly.spec, 'up')).toBe(false);
    const ntfy = parseChannelValue('ntfy', 'https://ntfy.example/sub/alerts');
    expect(ntfy).toMatchObject({ ok: true, spec: { url: 'https://ntfy.example/sub/', topic: 'alerts', priority: 5, priorityUp: 3 } });
    const mail = parseChannelValue('email', '{"value":"a@b.example","up":false}');
    expect(mail.ok && isNoop(mail.spec, 'up')).toBe(true);
    const shell = parseChannelValue('shell', '{"cmd_up":"echo up"}');
    expect(shell.ok && isNoop(shell.spec, 'down')).toBe(true);
  });

  it('Discord gets the Slack-compatible endpoint', () => {
    expect(discordSlackUrl('https://discord.com/api/webhooks/1/abc')).toBe('https://discord.com/api/webhooks/1/abc/slack');
    expect(discordSlackUrl('https://discord.com/api/webhooks/1/abc/slack?wait=true')).toBe('https://discord.com/api/webhooks/1/abc/slack?wait=true');
  });
});

describe('a ping body longer than the e-mail carries', () => {
  const long = 'HEAD' + 'x'.repeat(11_992) + 'TAIL'; // 12,000 characters
  const value = (n: Notification, name: string) => webhookValues(n, 'body').find(([k]) => k === name)?.[1];

  it('$BODY is the whole body (spec §4.2: no cut outside the e-mail)', () => {
    const n = notification({ body: long });
    expect(value(n, '$BODY')).toBe(long);
    expect(substitute('$BODY', webhookValues(n, 'body'))).toHaveLength(12_000);
  });

  it('the e-mail carries its last 10,000 characters and says so (§6)', () => {
    const n = notification({ body: long });
    for (const text of [emailText(n), emailHtml(n)]) {
      expect(text).toContain('Last ping body (its last 10000 characters):');
      expect(text).toContain('x'.repeat(9_996) + 'TAIL');
      expect(text).not.toContain('HEAD');
    }
    const short = notification({ body: 'short body' });
    expect(emailText(short)).toContain('Last ping body:\nshort body');
  });
});

describe('substituteShell: text others wrote goes by reference, written for its quoting', () => {
  const values: Array<[string, string]> = [['$CODE', 'u-1']];
  const refs: Array<[string, string]> = [
    ['$NAME', 'CHECKD_NAME'],
    ['$TAG1', 'CHECKD_TAG1'],
  ];
  it.each([
    ['echo $NAME', 'echo "$CHECKD_NAME"'],
    ['echo "dq $NAME!"', 'echo "dq ${CHECKD_NAME}!"'],
    ["echo 'sq $NAME.'", `echo 'sq '"$CHECKD_NAME"'.'`],
    [`echo "a 'b' $NAME" $TAG1 '$TAG1'`, `echo "a 'b' \${CHECKD_NAME}" "$CHECKD_TAG1" ''"$CHECKD_TAG1"''`],
    // An escaped double quote opens no quoting: $NAME is outside.
    ['echo \\"$NAME', 'echo \\""$CHECKD_NAME"'],
    ['echo $CODE $TAG10 $$NAME', 'echo u-1 "$CHECKD_TAG1"0 $"$CHECKD_NAME"'],
  ])('%s', (template, expected) => {
    expect(substituteShell(template, values, refs)).toBe(expected);
  });
});

