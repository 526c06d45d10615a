// Tag badges and the all-checks badge over HTTP (api-details §14.2, §14.3, §16,
// Appendix B): every format in 2- and 3-state mode, up/late/down aggregation at
// the moment of serving, the badge map's URLs, signatures, double-encoded tags,
// OPTIONS/405/HEAD and the headers.
import { describe, expect, it } from 'vitest';
import { api, BASE_URL, createCheck, ping } from '../helpers/http.js';
import {
  badgeMap,
  badgeProject,
  type BadgeProject,
  encodeTwice,
  expectBadgeHeaders,
  get,
  local,
  signature,
  svgWidth,
  tagBadgePath,
  useBadgeDaemon,
} from './support.js';

const env = useBadgeDaemon();
const DAY = 86_400_000;

/** GET a hand-built tag badge path for project p. */
const tagBadge = (p: BadgeProject, tag: string, fmt: string, mode: 2 | 3 = 3) => {
  const sig = signature(p.badgeKey, env.secret, tag) + (mode === 2 ? '-2' : '');
  return get(env.url + tagBadgePath(p.badgeKey, sig, tag, fmt));
};

/**
 * One project with a check in each state, at a fresh point in time:
 *   up      pinged, long timeout                 tags: up-tag mix all
 *   late    pinged, 60 s timeout, now 90 s later  tags: late-tag mix all late-down
 *   down    failed                                tags: down-tag all late-down
 *   fresh   never pinged (new)                    tags: new-tag all
 *   paused  pinged then paused                    tags: paused-tag all
 *   running pinged, then started after the move  tags: running-tag all
 */
async function scenario() {
  env.clock.advance(DAY);
  const p = await badgeProject(env);
  const make = (name: string, tags: string, timeout = 3600) =>
    createCheck(env.url, p.apiKey, { name, tags, timeout, grace: 60 });
  const up = await make('up', 'up-tag mix all');
  const late = await make('late', 'late-tag mix all late-down', 60);
  const down = await make('down', 'down-tag all late-down');
  const fresh = await make('fresh', 'new-tag all');
  const paused = await make('paused', 'paused-tag all');
  const running = await make('running', 'running-tag all');
  await ping(env.url, up.uuid);
  await ping(env.url, late.uuid);
  await ping(env.url, `${down.uuid}/fail`);
  await ping(env.url, paused.uuid);
  await ping(env.url, running.uuid);
  const r = await api(env.url, `/api/v3/checks/${paused.uuid}/pause`, { method: 'POST', key: p.apiKey });
  expect(r.status).toBe(200);
  // Past late's next_ping (60 s) but before next_ping + grace (120 s).
  env.clock.advance(90_000);
  await ping(env.url, up.uuid);
  await ping(env.url, `${running.uuid}/start`);
  const status = async (c: any) => (await api(env.url, `/api/v3/checks/${c.uuid}`, { key: p.apiKey })).json.status;
  // The API agrees on the states the badges are built from.
  expect(await status(up)).toBe('up');
  expect(await status(late)).toBe('grace');
  expect(await status(down)).toBe('down');
  expect(await status(fresh)).toBe('new');
  expect(await status(paused)).toBe('paused');
  expect(await status(running)).toBe('up');
  return { p, up, late, down, fresh, paused, running };
}

describe('aggregation by status, 2- and 3-state (§14.3 items 5–7)', () => {
  it('json: status per mode; the counts are the same in both modes', async () => {
    const { p } = await scenario();
    const cases: Array<[string, string, string, object]> = [
      // tag, 3-state status, 2-state status, counts
      ['up-tag', 'up', 'up', { total: 1, grace: 0, down: 0 }],
      ['late-tag', 'late', 'up', { total: 1, grace: 1, down: 0 }],
      ['down-tag', 'down', 'down', { total: 1, grace: 0, down: 1 }],
      ['new-tag', 'up', 'up', { total: 1, grace: 0, down: 0 }],
      ['paused-tag', 'up', 'up', { total: 1, grace: 0, down: 0 }],
      ['running-tag', 'up', 'up', { total: 1, grace: 0, down: 0 }],
      ['mix', 'late', 'up', { total: 2, grace: 1, down: 0 }],
      ['late-down', 'down', 'down', { total: 2, grace: 1, down: 1 }],
      ['all', 'down', 'down', { total: 6, grace: 1, down: 1 }],
      ['*', 'down', 'down', { total: 6, grace: 1, down: 1 }],
    ];
    for (const [tag, s3, s2, counts] of cases) {
      const r3 = await tagBadge(p, tag, 'json', 3);
      const r2 = await tagBadge(p, tag, 'json', 2);
      expect(r3.status, tag).toBe(200);
      expect(r2.status, tag).toBe(200);
      expect(r3.headers.get('content-type'), tag).toMatch(/^application\/json\b/);
      // Member order as upstream: status, total, grace, down.
      expect(r3.text, tag).toBe(JSON.stringify({ status: s3, ...counts }));
      expect(r2.text, tag).toBe(JSON.stringify({ status: s2, ...counts }));
    }
  });

  it('shields: label is the tag (checkd for *), colour success / important / critical', async () => {
    const { p } = await scenario();
    const cases: Array<[string, number, string, string]> = [
      ['up-tag', 3, 'up', 'success'],
      ['late-tag', 3, 'late', 'important'],
      ['late-tag', 2, 'up', 'success'],
      ['down-tag', 3, 'down', 'critical'],
      ['down-tag', 2, 'down', 'critical'],
      ['mix', 3, 'late', 'important'],
    ];
    for (const [tag, mode, message, color] of cases) {
      const r = await tagBadge(p, tag, 'shields', mode as 2 | 3);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(r.text, `${tag} ${mode}`).toBe(JSON.stringify({ schemaVersion: 1, label: tag, message, color }));
    }
    const all = await tagBadge(p, '*', 'shields', 3);
    expect(all.json).toEqual({ schemaVersion: 1, label: 'checkd', message: 'down', color: 'critical' });
  });

  it('long and non-ASCII tags are served in every format (tags have no length limit)', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const tags = ['t'.repeat(300), '本番環境のバックアップ', `${'ü'.repeat(60)}/%`];
    await createCheck(env.url, p.apiKey, { name: 'long', tags: tags.join(' '), timeout: 3600 });
    const map = await badgeMap(env.url, p.apiKey);
    for (const tag of tags) {
      for (const [key, url] of Object.entries(map[tag]!)) {
        const r = await get(local(env, url));
        expect(r.status, `${key} of ${tag}`).toBe(200);
        expectBadgeHeaders(r.headers);
      }
      expect((await tagBadge(p, tag, 'shields')).json).toEqual({ schemaVersion: 1, label: tag, message: 'up', color: 'success' });
    }
  });

  it('svg: image/svg+xml, 20 px high, width from Appendix B, status colour and texts', async () => {
    const { p } = await scenario();
    const cases: Array<[string, 2 | 3, string, string]> = [
      ['up-tag', 3, 'up', '#4c1'],
      ['late-tag', 3, 'late', '#fe7d37'],
      ['late-tag', 2, 'up', '#4c1'],
      ['down-tag', 3, 'down', '#e05d44'],
      ['down-tag', 2, 'down', '#e05d44'],
    ];
    for (const [tag, mode, status, colour] of cases) {
      const r = await tagBadge(p, tag, 'svg', mode);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/svg+xml');
      expect(r.text.startsWith('<svg ')).toBe(true);
      expect(r.text).toMatch(/^<svg\b[^>]*\sheight="20"/);
      expect(r.text).toContain(`fill="${colour}"`);
      expect(r.text).toContain('fill="#555"');
      expect(r.text).toContain(`>${tag}</text>`);
      expect(r.text).toContain(`>${status}</text>`);
      for (const other of ['#4c1', '#fe7d37', '#e05d44'].filter((c) => c !== colour)) {
        expect(r.text).not.toContain(other);
      }
    }
  });

  it('svg geometry: label foo with status up is 52 wide, centres 14.0 and 40.0', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'foo' });
    const r = await tagBadge(p, 'foo', 'svg', 2);
    expect(svgWidth(r.text)).toBe(52);
    expect(r.text).toContain('x="14.0"');
    expect(r.text).toContain('x="40.0"');
    // The * badge label is "checkd": c6 h7 e6 c6 k7 d7 = 39 → w1 49; "up" → w2 24.
    const all = await tagBadge(p, '*', 'svg', 2);
    expect(svgWidth(all.text)).toBe(73);
    expect(all.text).toContain('>checkd</text>');
  });

  it('the badge reflects the status when served: the same URL goes late, then down, then up', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const c = await createCheck(env.url, p.apiKey, { name: 'job', tags: 'job', timeout: 60, grace: 60 });
    await ping(env.url, c.uuid);
    const url = (await badgeMap(env.url, p.apiKey)).job!.json3!;
    const at = async () => (await get(local(env, url))).json;
    expect(await at()).toEqual({ status: 'up', total: 1, grace: 0, down: 0 });
    env.clock.advance(61_000);
    expect(await at()).toEqual({ status: 'late', total: 1, grace: 1, down: 0 });
    env.clock.advance(60_000); // now past next_ping + grace, no monitor pass needed
    expect(await at()).toEqual({ status: 'down', total: 1, grace: 0, down: 1 });
    await ping(env.url, c.uuid);
    expect(await at()).toEqual({ status: 'up', total: 1, grace: 0, down: 0 });
  });

  it('the tag must match a whole tag exactly', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const c = await createCheck(env.url, p.apiKey, { name: 'x', tags: 'prod db' });
    await ping(env.url, `${c.uuid}/fail`);
    expect((await tagBadge(p, 'prod', 'json')).json).toMatchObject({ status: 'down', total: 1 });
    expect((await tagBadge(p, 'db', 'json')).json).toMatchObject({ status: 'down', total: 1 });
    for (const tag of ['pro', 'Prod', 'prod db', 'prod2']) {
      expect((await tagBadge(p, tag, 'json')).json, tag).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
    }
  });

  it('checks of other projects do not count', async () => {
    env.clock.advance(DAY);
    const a = await badgeProject(env);
    const b = await badgeProject(env);
    const c = await createCheck(env.url, b.apiKey, { name: 'b', tags: 'shared' });
    await ping(env.url, `${c.uuid}/fail`);
    expect((await tagBadge(a, 'shared', 'json')).json).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
    expect((await tagBadge(a, '*', 'json')).json).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
    expect((await tagBadge(b, 'shared', 'json')).json).toEqual({ status: 'down', total: 1, grace: 0, down: 1 });
  });
});

describe('the badge map URLs resolve (§14.1, §14.2)', () => {
  it('every URL of every tag and of * answers 200 with the right document', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const tags = ['foo', 'db@dc1', 'c++', 'v1.2', 'café', '日本', 'a/b', '100%', 'x?y#z'];
    await createCheck(env.url, p.apiKey, { name: 'one', tags: tags.slice(0, 5).join(' ') });
    await createCheck(env.url, p.apiKey, { name: 'two', tags: ['foo', ...tags.slice(5)].join(' ') });
    const map = await badgeMap(env.url, p.apiKey);
    expect(Object.keys(map).sort()).toEqual(['*', ...tags].sort());
    for (const [tag, urls] of Object.entries(map)) {
      expect(Object.keys(urls)).toEqual(['svg', 'svg3', 'json', 'json3', 'shields', 'shields3']);
      const total = tag === '*' ? 2 : tag === 'foo' ? 2 : 1;
      const label = tag === '*' ? 'checkd' : tag;
      for (const [k, u] of Object.entries(urls)) {
        const r = await get(local(env, u));
        expect(r.status, `${tag} ${k} ${u}`).toBe(200);
        expectBadgeHeaders(r.headers);
        if (k.startsWith('svg')) {
          expect(r.headers.get('content-type')).toBe('image/svg+xml');
          expect(r.text.startsWith('<svg ')).toBe(true);
        } else if (k.startsWith('json')) {
          expect(r.json, `${tag} ${k}`).toEqual({ status: 'up', total, grace: 0, down: 0 });
        } else {
          expect(r.json, `${tag} ${k}`).toEqual({ schemaVersion: 1, label, message: 'up', color: 'success' });
        }
      }
    }
  });

  it('the map URLs carry the independently computed signature and encoding', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'one', tags: 'db@dc1 c++ v1.2 café' });
    const map = await badgeMap(env.url, p.apiKey);
    const K = p.badgeKey;
    expect(map['db@dc1']!.svg).toBe(`${BASE_URL}/badge/${K}/${signature(K, env.secret, 'db@dc1')}-2/db%2540dc1.svg`);
    expect(map['c++']!.json3).toBe(`${BASE_URL}/badge/${K}/${signature(K, env.secret, 'c++')}/c%252B%252B.json`);
    expect(map['v1.2']!.shields).toBe(`${BASE_URL}/badge/${K}/${signature(K, env.secret, 'v1.2')}-2/v1.2.shields`);
    expect(map['café']!.svg3).toBe(`${BASE_URL}/badge/${K}/${signature(K, env.secret, 'café')}/caf%25C3%25A9.svg`);
    expect(map['*']!.json).toBe(`${BASE_URL}/badge/${K}/${signature(K, env.secret, '*')}-2.json`);
  });
});

describe('URL-encoded tags (§14.2, §14.3 item 1)', () => {
  const tags = ['db@dc1', 'c++', 'v1.2', 'v1.2.svg', 'café', '日本', '🚀', 'a/b', '100%', 'x?y#z', 'under_score~tilde-dash'];

  it('the double encoding round-trips: the shields label is the original tag', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: tags.join(' ') });
    for (const tag of tags) {
      const r = await tagBadge(p, tag, 'shields', 2);
      expect(r.status, `${tag} → ${encodeTwice(tag)}`).toBe(200);
      expect(r.json.label).toBe(tag);
      const j = await tagBadge(p, tag, 'json');
      expect(j.json, tag).toEqual({ status: 'up', total: 1, grace: 0, down: 0 });
    }
  });

  it('the spec examples: db%2540dc1 and c%252B%252B; plain v1.2 keeps its dot', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const c = await createCheck(env.url, p.apiKey, { name: 'x', tags: 'db@dc1 c++ v1.2' });
    await ping(env.url, `${c.uuid}/fail`);
    const K = p.badgeKey;
    const s = (tag: string) => signature(K, env.secret, tag);
    for (const [tag, seg] of [
      ['db@dc1', 'db%2540dc1'],
      ['c++', 'c%252B%252B'],
      ['v1.2', 'v1.2'],
    ]) {
      const r = await get(`${env.url}/badge/${K}/${s(tag!)}/${seg}.shields`);
      expect(r.status, tag).toBe(200);
      expect(r.json).toEqual({ schemaVersion: 1, label: tag, message: 'down', color: 'critical' });
    }
  });

  it('lowercase hex in the inner encoding decodes too', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'café' });
    const r = await get(`${env.url}/badge/${p.badgeKey}/${signature(p.badgeKey, env.secret, 'café')}/caf%25c3%25a9.json`);
    expect(r.status).toBe(200);
    expect(r.json.total).toBe(1);
  });

  it('a single encoding of a character outside [\\w%~_.-] does not route: 404', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'db@dc1 c++' });
    const s = (tag: string) => signature(p.badgeKey, env.secret, tag);
    expect((await get(`${env.url}/badge/${p.badgeKey}/${s('db@dc1')}/db%40dc1.json`)).status).toBe(404);
    expect((await get(`${env.url}/badge/${p.badgeKey}/${s('c++')}/c%2B%2B.json`)).status).toBe(404);
    expect((await get(`${env.url}/badge/${p.badgeKey}/${s('db@dc1')}/db@dc1.json`)).status).toBe(404);
  });

  it('a unicode letter matches \\w, so a singly encoded café is the tag café (as upstream)', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'café' });
    const r = await get(`${env.url}/badge/${p.badgeKey}/${signature(p.badgeKey, env.secret, 'café')}/caf%C3%A9.shields`);
    expect(r.status).toBe(200);
    expect(r.json.label).toBe('café');
  });
});

describe('signatures (§14.2, §14.3 items 3–4)', () => {
  it('the independent signature matches the spec test vectors', () => {
    expect(signature('alice', 'example-secret', 'foo')).toBe('bpfZcuKR');
    expect(signature('alice', 'example-secret', '*')).toBe('obXxTVwd');
    expect(signature('alice', 'example-secret', 'db@dc1')).toBe('oNO9z5NC');
  });

  it('unknown tag with a valid signature: up with zero counts, in every format', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const c = await createCheck(env.url, p.apiKey, { name: 'x', tags: 'known' });
    await ping(env.url, `${c.uuid}/fail`);
    for (const mode of [2, 3] as const) {
      expect((await tagBadge(p, 'never-used', 'json', mode)).json).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
      expect((await tagBadge(p, 'never-used', 'shields', mode)).json).toEqual({
        schemaVersion: 1,
        label: 'never-used',
        message: 'up',
        color: 'success',
      });
      const svg = await tagBadge(p, 'never-used', 'svg', mode);
      expect(svg.status).toBe(200);
      expect(svg.text).toContain('fill="#4c1"');
    }
  });

  it('a project with no checks: * is up with zero counts', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const map = await badgeMap(env.url, p.apiKey);
    expect((await get(local(env, map['*']!.json3!))).json).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
  });

  it('bad signatures give 404 with an empty body (and still the CORS and cache headers)', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const q = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'foo bar' });
    const K = p.badgeKey;
    const good = signature(K, env.secret, 'foo');
    const flipped = (good[0] === 'A' ? 'B' : 'A') + good.slice(1);
    const bad = [
      `/badge/${K}/${flipped}/foo.svg`,
      `/badge/${K}/${flipped}-2/foo.json`,
      `/badge/${K}/${signature(K, env.secret, 'bar')}/foo.json`, // another tag's signature
      `/badge/${K}/${signature(q.badgeKey, env.secret, 'foo')}/foo.json`, // another project's
      `/badge/${K}/${signature(K, 'not-the-secret', 'foo')}/foo.json`, // another secret
      `/badge/${K}/${good.slice(0, 7)}/foo.json`, // too short
      `/badge/${K}/${good.toLowerCase() === good ? good.toUpperCase() : good.toLowerCase()}/foo.json`,
      `/badge/${K}/${good}/foo.json`.replace(`/${K}/`, `/${q.badgeKey}/`), // signed for K, sent with q's key
      `/badge/${K}/${signature(K, env.secret, 'foo')}.json`, // foo's signature on the * badge
      `/badge/${K}/${signature(K, env.secret, '*')}/foo.json`, // *'s signature on a tag
      `/badge/${K}/${good}/fo.json`,
      `/badge/${K}/${good}/foo%2520.json`,
      `/badge/${K}/${good}.x/foo.json`, // not a slug
      `/badge/${K}/${signature(K, env.secret, '*')}.x.json`,
    ];
    for (const path of bad) {
      const r = await get(env.url + path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).toBe('');
      expectBadgeHeaders(r.headers);
    }
    // Sanity: the good one works.
    expect((await get(`${env.url}/badge/${K}/${good}/foo.json`)).status).toBe(200);
  });

  it('an unknown badge key gives 404 even with a signature valid for it', async () => {
    const K = '00000000-0000-4000-8000-00000000abcd';
    for (const path of [
      `/badge/${K}/${signature(K, env.secret, 'foo')}/foo.svg`,
      `/badge/${K}/${signature(K, env.secret, '*')}.json`,
      `/badge/${K}/${signature(K, env.secret, '*')}-2.shields`,
    ]) {
      const r = await get(env.url + path);
      expect(r.status, path).toBe(404);
      expect(r.text).toBe('');
    }
  });

  it('mode: only a 10-character signature ending in -2 is 2-state; other suffixes are 3-state', async () => {
    const { p } = await scenario();
    const K = p.badgeKey;
    const s = signature(K, env.secret, 'late-tag');
    const status = async (sig: string) => (await get(`${env.url}/badge/${K}/${sig}/late-tag.json`)).json?.status;
    expect(await status(s)).toBe('late');
    expect(await status(`${s}-2`)).toBe('up');
    expect(await status(`${s}-3`)).toBe('late');
    expect(await status(`${s}-22`)).toBe('late');
    expect(await status(`${s}x-2`)).toBe('late');
    expect(await status(`${s}_2`)).toBe('late');
  });
});

describe('formats (§14.3 item 2)', () => {
  it('a format other than svg, json, shields gives 404 with an empty body', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'foo' });
    const K = p.badgeKey;
    const sf = signature(K, env.secret, 'foo');
    const sa = signature(K, env.secret, '*');
    for (const path of [
      `/badge/${K}/${sf}/foo.jsonfoo`,
      `/badge/${K}/${sf}/foo.png`,
      `/badge/${K}/${sf}/foo.SVG`,
      `/badge/${K}/${sf}/foo.`,
      `/badge/${K}/${sf}/foo`,
      `/badge/${K}/${sf}-2/foo.svg.gz`,
      `/badge/${K}/${sa}.jsonfoo`,
      `/badge/${K}/${sa}-2.txt`,
      `/badge/${K}/${sa}`,
      `/badge/${K}/${sa}-2/`,
    ]) {
      const r = await get(env.url + path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).toBe('');
    }
  });
});

describe('methods and headers (§1.4, §14.3 item 8, §16)', () => {
  it('GET answers carry the never-cache and CORS headers', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    const map = await badgeMap(env.url, p.apiKey);
    for (const u of Object.values(map['*']!)) {
      const r = await get(local(env, u));
      expect(r.status).toBe(200);
      expectBadgeHeaders(r.headers);
      const cc = r.headers.get('cache-control')!;
      for (const d of ['no-cache', 'no-store', 'must-revalidate', 'max-age=0']) expect(cc).toContain(d);
    }
  });

  it('OPTIONS gives 204, empty, with the CORS set; other methods 405; HEAD is GET without a body', async () => {
    env.clock.advance(DAY);
    const p = await badgeProject(env);
    await createCheck(env.url, p.apiKey, { name: 'x', tags: 'foo' });
    const map = await badgeMap(env.url, p.apiKey);
    for (const u of [map.foo!.svg, map.foo!.json3, map['*']!.shields]) {
      const opt = await get(local(env, u!), 'OPTIONS');
      expect(opt.status, u).toBe(204);
      expect(opt.text).toBe('');
      expectBadgeHeaders(opt.headers);
      for (const m of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const r = await get(local(env, u!), m);
        expect(r.status, `${m} ${u}`).toBe(405);
        expect(r.text).toBe('');
        expectBadgeHeaders(r.headers);
      }
      const head = await get(local(env, u!), 'HEAD');
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('access-control-allow-origin')).toBe('*');
    }
    // OPTIONS needs no valid signature: it is answered before the view.
    const r = await get(`${env.url}/badge/${p.badgeKey}/AAAAAAAA/foo.svg`, 'OPTIONS');
    expect(r.status).toBe(204);
  });
});
