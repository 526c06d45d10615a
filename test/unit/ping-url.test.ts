// The ping URL grammar (ping-protocol.md §1, and §3's URL refusals) as tables:
// parsePingPath over the percent-decoded segments of the path after /ping/.
import { describe, expect, it } from 'vitest';
import { parsePingPath, type PingSuffix, type PingUrl } from '../../daemon/domain/ping-url.js';

const UUID = '6bf5f1a0-8a3e-4d0b-9d5c-6f0d7d1c0a01';
const KEY = 'iqrqfe6y8bnlub1hhuelh5';

const path = (p: string) => parsePingPath(p.split('/'));

describe('URL suffixes, ping-protocol §1', () => {
  // The suffix after `<uuid>` (null: none); after `<ping-key>/<slug>` the same
  // suffixes mean the same, but an empty one is a trailing slash (rule 5).
  const cases: [string | null, PingSuffix | null][] = [
    [null, { action: 'success', exitStatus: null }],
    ['', { action: 'success', exitStatus: null }],
    ['start', { action: 'start', exitStatus: null }],
    ['fail', { action: 'fail', exitStatus: null }],
    ['log', { action: 'log', exitStatus: null }],
    ['0', { action: 'success', exitStatus: 0 }],
    ['007', { action: 'success', exitStatus: 7 }],
    ['255', { action: 'success', exitStatus: 255 }],
    ['256', { action: 'success', exitStatus: 256 }],
    ['-1', null],
    ['Start', null],
    ['1.5', null],
    ['start/', null],
  ];
  it.each(cases)('%j → %j', (suffix, want) => {
    const parsed = parsePingPath(suffix === null ? [UUID] : [UUID, suffix]);
    // A UUID followed by no suffix of its family is a slug ping (rule 3), or no route.
    const uuidPing = parsed?.by === 'uuid' ? { action: parsed.action, exitStatus: parsed.exitStatus } : null;
    expect(uuidPing).toEqual(want);
    if (suffix === null || suffix === '') return;
    const bySlug = parsePingPath([KEY, 'backup', suffix]);
    expect(bySlug === null ? null : { action: bySlug.action, exitStatus: bySlug.exitStatus }).toEqual(want);
  });
});

describe('the forms U1–U5 and S1–S5', () => {
  const cases: [string, PingUrl][] = [
    [UUID, { by: 'uuid', key: UUID, action: 'success', exitStatus: null }],
    [`${UUID}/`, { by: 'uuid', key: UUID, action: 'success', exitStatus: null }],
    [`${UUID}/start`, { by: 'uuid', key: UUID, action: 'start', exitStatus: null }],
    [`${UUID}/fail`, { by: 'uuid', key: UUID, action: 'fail', exitStatus: null }],
    [`${UUID}/log`, { by: 'uuid', key: UUID, action: 'log', exitStatus: null }],
    [`${UUID}/3`, { by: 'uuid', key: UUID, action: 'success', exitStatus: 3 }],
    [`${KEY}/backup`, { by: 'slug', key: KEY, slug: 'backup', action: 'success', exitStatus: null }],
    [`${KEY}/backup/start`, { by: 'slug', key: KEY, slug: 'backup', action: 'start', exitStatus: null }],
    [`${KEY}/backup/fail`, { by: 'slug', key: KEY, slug: 'backup', action: 'fail', exitStatus: null }],
    [`${KEY}/backup/log`, { by: 'slug', key: KEY, slug: 'backup', action: 'log', exitStatus: null }],
    [`${KEY}/backup/007`, { by: 'slug', key: KEY, slug: 'backup', action: 'success', exitStatus: 7 }],
  ];
  it.each(cases)('%s', (p, want) => {
    expect(path(p)).toEqual(want);
  });

  it('the UUID family wins for its suffixes; any other second segment is a slug (rules 2, 3)', () => {
    expect(path(`${UUID}/backup`)).toEqual({ by: 'slug', key: UUID, slug: 'backup', action: 'success', exitStatus: null });
    expect(path(`${KEY}/start`)).toEqual({ by: 'slug', key: KEY, slug: 'start', action: 'success', exitStatus: null });
    expect(path('ABC/def')).toEqual({ by: 'slug', key: 'ABC', slug: 'def', action: 'success', exitStatus: null });
    // Not an exit status, so a slug: an unknown check's 404 `not found`, not a generic one.
    expect(path(`${UUID}/-1`)).toEqual({ by: 'slug', key: UUID, slug: '-1', action: 'success', exitStatus: null });
  });
});

describe('paths that match no route: null, a generic 404 (rules 1–5)', () => {
  const cases = [
    '',
    '/',
    'XYZ',
    UUID.toUpperCase(),
    `${UUID.toUpperCase()}/`,
    UUID.replace(/-/g, ''),
    `{${UUID}}`,
    `${UUID}/start/`,
    `${UUID}/0/`,
    `${UUID}//`,
    `${UUID}/+1`,
    `${UUID}/bogus/x`,
    `${UUID}/x/y/z`,
    `${KEY}/`,
    `${KEY}/backup/`,
    `${KEY}/backup//`,
    `${KEY}/backup/start/`,
    `${KEY}/backup/bogus`,
    `${KEY}/backup/-1`,
    `${KEY}/s.l`,
    `${KEY}/s l`,
    `x.y/backup`,
    `${KEY}//start`,
  ];
  it.each(cases)('%j', (p) => {
    expect(path(p)).toBeNull();
  });

  it('a segment decoded to hold a slash is one segment, and no key or slug', () => {
    expect(parsePingPath([`${UUID}/start`])).toBeNull();
    expect(parsePingPath([KEY, 'a/b'])).toBeNull();
    expect(parsePingPath([UUID, 'st/art'])).toBeNull();
  });
});

describe('URLs of a ping form that are refused: 400 `invalid url format` (§3)', () => {
  it('rejects an exit status above 255, in both families, before any check setting is read', () => {
    for (const code of ['256', '99999', '99999999999999999999']) {
      expect(path(`${UUID}/${code}`)).toMatchObject({ by: 'uuid', key: UUID, refusal: 'exit-status-out-of-range' });
      expect(path(`${KEY}/backup/${code}`)).toMatchObject({ by: 'slug', slug: 'backup', refusal: 'exit-status-out-of-range' });
    }
    expect(path(`${UUID}/256`)).toMatchObject({ action: 'success', exitStatus: 256 });
    expect(path(`${UUID}/255`)).not.toHaveProperty('refusal');
    expect(path(`${KEY}/backup/0255`)).not.toHaveProperty('refusal');
  });

  it('rejects a slug with an uppercase letter, which wins over the exit status', () => {
    expect(path(`${KEY}/Backup`)).toMatchObject({ by: 'slug', slug: 'Backup', refusal: 'uppercase-slug' });
    expect(path(`${UUID}/Start`)).toMatchObject({ by: 'slug', key: UUID, slug: 'Start', refusal: 'uppercase-slug' });
    expect(path(`${KEY}/SL/256`)).toMatchObject({ refusal: 'uppercase-slug' });
    // The ping key may have any case: it is matched exactly.
    expect(path(`ABC/def`)).not.toHaveProperty('refusal');
  });
});
