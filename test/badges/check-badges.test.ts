// Per-check badges over HTTP (api-details §14.4): /b/<states>/<check_badge_key>.<fmt>,
// reached through the check's badge_url.
import { describe, expect, it } from 'vitest';
import { api, BASE_URL, createCheck, ping } from '../helpers/http.js';
import { badgeProject, expectBadgeHeaders, get, local, svgWidth, useBadgeDaemon } from './support.js';

const env = useBadgeDaemon();
const DAY = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The check's badge key, read from its badge_url. */
function badgeKeyOf(check: any): string {
  const m = new RegExp(`^${BASE_URL}/b/2/([^/]+)\\.svg$`).exec(check.badge_url);
  if (!m) throw new Error(`unexpected badge_url ${check.badge_url}`);
  return m[1]!;
}

const badge = (key: string, states: string | number, fmt: string, method = 'GET') =>
  get(`${env.url}/b/${states}/${key}.${fmt}`, method);

/** A check of a fresh project, in the given state at the current clock. */
async function checkIn(state: 'new' | 'up' | 'late' | 'down', body: Record<string, unknown> = {}) {
  env.clock.advance(DAY);
  const p = await badgeProject(env);
  const c = await createCheck(env.url, p.apiKey, { name: 'job', timeout: 60, grace: 60, ...body });
  if (state === 'up' || state === 'late') await ping(env.url, c.uuid);
  if (state === 'down') await ping(env.url, `${c.uuid}/fail`);
  if (state === 'late') env.clock.advance(90_000);
  const r = await api(env.url, `/api/v3/checks/${c.uuid}`, { key: p.apiKey });
  expect(r.json.status).toBe(state === 'late' ? 'grace' : state);
  return { p, c, key: badgeKeyOf(c) };
}

describe('per-check badge', () => {
  it('badge_url resolves to a 2-state SVG labelled with the check name', async () => {
    const { c, key } = await checkIn('up', { name: 'nightly backup' });
    expect(key).toMatch(UUID);
    expect(key).not.toBe(c.uuid);
    const r = await get(local(env, c.badge_url));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/svg+xml');
    expectBadgeHeaders(r.headers);
    expect(r.text).toMatch(/^<svg\b[^>]*\sheight="20"/);
    expect(r.text).toContain('>nightly backup</text>');
    expect(r.text).toContain('>up</text>');
    expect(r.text).toContain('fill="#4c1"');
  });

  it('up, late and down in every format and both modes', async () => {
    const cases = [
      { state: 'up', s3: 'up', s2: 'up', grace: 0, down: 0 },
      { state: 'late', s3: 'late', s2: 'up', grace: 1, down: 0 },
      { state: 'down', s3: 'down', s2: 'down', grace: 0, down: 1 },
      { state: 'new', s3: 'up', s2: 'up', grace: 0, down: 0 },
    ] as const;
    const colourOf = { up: '#4c1', late: '#fe7d37', down: '#e05d44' } as const;
    const shieldsOf = { up: 'success', late: 'important', down: 'critical' } as const;
    for (const t of cases) {
      const { key } = await checkIn(t.state, { name: 'foobar' });
      for (const [states, s] of [
        [3, t.s3],
        [2, t.s2],
      ] as const) {
        const j = await badge(key, states, 'json');
        expect(j.status).toBe(200);
        expect(j.headers.get('content-type')).toMatch(/^application\/json\b/);
        expectBadgeHeaders(j.headers);
        expect(j.text, `${t.state} ${states}`).toBe(JSON.stringify({ status: s, total: 1, grace: t.grace, down: t.down }));
        const sh = await badge(key, states, 'shields');
        expect(sh.text).toBe(JSON.stringify({ schemaVersion: 1, label: 'foobar', message: s, color: shieldsOf[s] }));
        const svg = await badge(key, states, 'svg');
        expect(svg.headers.get('content-type')).toBe('image/svg+xml');
        expect(svg.text).toContain(`fill="${colourOf[s]}"`);
        expect(svg.text).toContain(`>${s}</text>`);
      }
    }
  });

  it('states: only 3 is 3-state; any other integer is 2-state; a non-integer does not route', async () => {
    const { key } = await checkIn('late');
    const status = async (states: string) => (await badge(key, states, 'json')).json?.status;
    expect(await status('3')).toBe('late');
    expect(await status('03')).toBe('late');
    for (const s of ['2', '0', '1', '4', '7', '33', '99999999999']) expect(await status(s), s).toBe('up');
    for (const s of ['x', '-3', '3a', '3.0', '']) {
      const r = await badge(key, s, 'json');
      expect(r.status, s).toBe(404);
    }
  });

  it('the badge follows the clock: late, then down without any ping', async () => {
    const { key } = await checkIn('late');
    expect((await badge(key, 3, 'json')).json.status).toBe('late');
    env.clock.advance(60_000);
    expect((await badge(key, 3, 'json')).json).toEqual({ status: 'down', total: 1, grace: 0, down: 1 });
  });

  it('label: the name, or the check UUID when the name is empty; XML-escaped in SVG', async () => {
    const { c, key } = await checkIn('up', { name: '' });
    expect((await badge(key, 2, 'shields')).json.label).toBe(c.uuid);
    expect((await badge(key, 2, 'svg')).text).toContain(`>${c.uuid}</text>`);
    const named = await checkIn('up', { name: 'a<b & "c"' });
    expect((await badge(named.key, 2, 'shields')).json.label).toBe('a<b & "c"');
    const svg = (await badge(named.key, 2, 'svg')).text;
    expect(svg).toContain('>a&lt;b &amp; &quot;c&quot;</text>');
    expect(svg).not.toContain('a<b');
    // Width from Appendix B over the unescaped text: a7 <7 b7 space7 &7 space7 "7 c6 "7 = 62.
    expect(svgWidth(svg)).toBe(62 + 10 + 24);
  });

  it('unknown key, the check UUID instead of the badge key, and a deleted check give 404', async () => {
    const { p, c, key } = await checkIn('up');
    for (const path of [
      `/b/2/00000000-0000-4000-8000-000000000000.svg`,
      `/b/2/${c.uuid}.svg`,
      `/b/3/not-a-key.json`,
      `/b/2/.svg`,
    ]) {
      const r = await get(env.url + path);
      expect(r.status, path).toBe(404);
      expect(r.text).toBe('');
      expectBadgeHeaders(r.headers);
    }
    expect((await badge(key, 2, 'svg')).status).toBe(200);
    const del = await api(env.url, `/api/v3/checks/${c.uuid}`, { method: 'DELETE', key: p.apiKey });
    expect(del.status).toBe(200);
    expect((await badge(key, 2, 'svg')).status).toBe(404);
  });

  it('a bad format gives 404 with an empty body', async () => {
    const { key } = await checkIn('up');
    for (const fmt of ['jsonfoo', 'png', 'SVG', '', 'svg.json.x']) {
      const r = await badge(key, 2, fmt);
      expect(r.status, fmt).toBe(404);
      expect(r.text).toBe('');
    }
    const noDot = await get(`${env.url}/b/2/${key}`);
    expect(noDot.status).toBe(404);
  });

  it('OPTIONS 204 with the CORS set, other methods 405, HEAD without a body', async () => {
    const { key } = await checkIn('up');
    const opt = await badge(key, 2, 'svg', 'OPTIONS');
    expect(opt.status).toBe(204);
    expect(opt.text).toBe('');
    expectBadgeHeaders(opt.headers);
    for (const m of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await badge(key, 2, 'svg', m);
      expect(r.status, m).toBe(405);
      expectBadgeHeaders(r.headers);
    }
    const head = await badge(key, 2, 'svg', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe('image/svg+xml');
  });
});
