// ping-protocol.md §6 (what kind a ping is) and §7.1 (ping-list durations) as tables.
// The URL forms (§1) are ping-url.test.ts's.
import { describe, expect, it } from 'vitest';
import {
  classifyByKeywords,
  classifyPing,
  KEYWORD_SCAN_BYTES,
  matchesKeywords,
  pingDuration,
  pingDurations,
  type ClassifyInput,
  type ClassifySettings,
  type DurationPing,
} from '../../daemon/domain/classify.js';
import { parsePingPath } from '../../daemon/domain/ping-url.js';
import type { PingKind } from '../../daemon/domain/types.js';

const defaults: ClassifySettings = {
  status: 'new',
  manualResume: false,
  methods: '',
  filterHttpBody: false,
  filterDefaultFail: false,
  startKw: '',
  successKw: '',
  failureKw: '',
};

const text = (s: string) => new TextEncoder().encode(s);

const UUID = '6bf5f1a0-8a3e-4d0b-9d5c-6f0d7d1c0a01';

/** A ping to /ping/<uuid>[/<suffix>], its URL read by the one URL parser. */
function ping(
  suffix: string | null,
  opts: { method?: string; body?: string | Uint8Array; check?: Partial<ClassifySettings> } = {},
): ClassifyInput {
  const parsed = parsePingPath(suffix === null ? [UUID] : [UUID, suffix]);
  if (parsed?.by !== 'uuid' || parsed.refusal !== undefined) throw new Error(`no accepted UUID ping for ${suffix}`);
  const body = opts.body === undefined ? null : typeof opts.body === 'string' ? text(opts.body) : opts.body;
  return { action: parsed.action, exitStatus: parsed.exitStatus, method: opts.method ?? 'GET', body, check: { ...defaults, ...opts.check } };
}

describe('classifyPing: the table of ping-protocol §6', () => {
  const cases: { name: string; input: ClassifyInput; want: PingKind }[] = [
    { name: 'defaults, GET /ping/<uuid>: success', input: ping(null), want: 'success' },
    { name: 'defaults, GET /fail', input: ping('fail'), want: 'fail' },
    { name: 'defaults, GET /start', input: ping('start'), want: 'start' },
    { name: 'defaults, POST /log body hello', input: ping('log', { method: 'POST', body: 'hello' }), want: 'log' },
    { name: 'defaults, GET /0: success', input: ping('0'), want: 'success' },
    { name: 'defaults, GET /1: fail', input: ping('1'), want: 'fail' },
    { name: 'defaults, GET /123: fail', input: ping('123'), want: 'fail' },
    { name: 'defaults, GET /255: fail', input: ping('255'), want: 'fail' },
    { name: 'methods=POST, GET: ign', input: ping(null, { check: { methods: 'POST' } }), want: 'ign' },
    { name: 'methods=POST, HEAD: ign', input: ping(null, { method: 'HEAD', check: { methods: 'POST' } }), want: 'ign' },
    { name: 'methods=POST, GET /fail: ign', input: ping('fail', { check: { methods: 'POST' } }), want: 'ign' },
    { name: 'methods=POST, GET /1: ign', input: ping('1', { check: { methods: 'POST' } }), want: 'ign' },
    { name: 'methods=POST, POST: success', input: ping(null, { method: 'POST', check: { methods: 'POST' } }), want: 'success' },
    { name: 'methods=POST, POST /start: start', input: ping('start', { method: 'POST', check: { methods: 'POST' } }), want: 'start' },
    {
      name: 'methods wins over keywords with filter_default_fail (GET, empty body)',
      input: ping(null, { check: { methods: 'POST', filterHttpBody: true, filterDefaultFail: true } }),
      want: 'ign',
    },
    {
      name: 'paused + manual_resume wins over a success keyword',
      input: ping(null, {
        method: 'POST',
        body: 'SUCCESS!',
        check: { status: 'paused', manualResume: true, filterHttpBody: true, successKw: 'SUCCESS' },
      }),
      want: 'ign',
    },
    {
      name: 'paused + manual_resume, GET: ign',
      input: ping(null, { check: { status: 'paused', manualResume: true } }),
      want: 'ign',
    },
    {
      name: 'paused + manual_resume, /fail: ign',
      input: ping('fail', { check: { status: 'paused', manualResume: true } }),
      want: 'ign',
    },
    {
      name: 'paused without manual_resume: the URL decides',
      input: ping('fail', { check: { status: 'paused' } }),
      want: 'fail',
    },
    {
      name: 'manual_resume on a check that is not paused: no effect',
      input: ping(null, { check: { status: 'up', manualResume: true } }),
      want: 'success',
    },
    {
      name: 'e-mail filters do not touch HTTP pings',
      input: ping(null, { check: { successKw: 'SUCCESS', filterDefaultFail: true } }),
      want: 'success',
    },
    // §6.1 keyword classification, replacing the URL's verdict.
    {
      name: 'success filter match',
      input: ping(null, { method: 'POST', body: 'SUCCESS!', check: { filterHttpBody: true, successKw: 'SUCCESS' } }),
      want: 'success',
    },
    {
      name: 'success filter miss: ign',
      input: ping(null, { method: 'POST', body: 'hello world', check: { filterHttpBody: true, successKw: 'SUCCESS' } }),
      want: 'ign',
    },
    {
      name: 'failure filter match',
      input: ping(null, { method: 'POST', body: 'FAIL!', check: { filterHttpBody: true, failureKw: 'FAIL' } }),
      want: 'fail',
    },
    {
      name: 'failure filter miss: ign',
      input: ping(null, { method: 'POST', body: '---', check: { filterHttpBody: true, failureKw: 'FAIL' } }),
      want: 'ign',
    },
    {
      name: 'start filter match',
      input: ping(null, { method: 'POST', body: 'STARTING', check: { filterHttpBody: true, startKw: 'START' } }),
      want: 'start',
    },
    {
      name: 'filter_default_fail with no keyword match',
      input: ping(null, {
        method: 'POST',
        body: 'no keywords',
        check: { filterHttpBody: true, filterDefaultFail: true, successKw: 'SUCCESS' },
      }),
      want: 'fail',
    },
    {
      name: 'filtering on, no keywords at all, no default fail: ign',
      input: ping(null, { method: 'POST', body: 'anything', check: { filterHttpBody: true } }),
      want: 'ign',
    },
    {
      name: 'failure keywords beat success keywords',
      input: ping(null, {
        method: 'POST',
        body: 'SUCCESS then FAIL',
        check: { filterHttpBody: true, successKw: 'SUCCESS', failureKw: 'FAIL' },
      }),
      want: 'fail',
    },
    {
      name: 'success keywords beat start keywords',
      input: ping(null, {
        method: 'POST',
        body: 'START ... SUCCESS',
        check: { filterHttpBody: true, successKw: 'SUCCESS', startKw: 'START' },
      }),
      want: 'success',
    },
    {
      name: 'keywords replace /log',
      input: ping('log', { method: 'POST', body: 'SUCCESS', check: { filterHttpBody: true, successKw: 'SUCCESS' } }),
      want: 'success',
    },
    {
      name: 'keywords replace /start',
      input: ping('start', { method: 'POST', body: 'FAIL', check: { filterHttpBody: true, failureKw: 'FAIL' } }),
      want: 'fail',
    },
    {
      name: 'keywords replace a non-zero exit status',
      input: ping('1', { method: 'POST', body: 'all SUCCESS', check: { filterHttpBody: true, successKw: 'SUCCESS' } }),
      want: 'success',
    },
    {
      name: 'keywords replace /fail with ign on a miss',
      input: ping('fail', { method: 'POST', body: 'meh', check: { filterHttpBody: true, successKw: 'SUCCESS' } }),
      want: 'ign',
    },
    // Seed rule 4: filter_http_body + filter_default_fail + only success_kw.
    {
      name: 'seed rule 4: success only when the body has a success keyword',
      input: ping(null, {
        method: 'POST',
        body: 'backup COMPLETED',
        check: { filterHttpBody: true, filterDefaultFail: true, successKw: 'SUCCESS, COMPLETED' },
      }),
      want: 'success',
    },
    {
      name: 'seed rule 4: a GET with an empty body is a failure',
      input: ping(null, { check: { filterHttpBody: true, filterDefaultFail: true, successKw: 'SUCCESS' } }),
      want: 'fail',
    },
    {
      name: 'seed rule 4: even a /start without a keyword is a failure',
      input: ping('start', { method: 'POST', body: 'go', check: { filterHttpBody: true, filterDefaultFail: true, successKw: 'SUCCESS' } }),
      want: 'fail',
    },
    {
      name: 'empty body without default fail: ign',
      input: ping(null, { check: { filterHttpBody: true, successKw: 'SUCCESS' } }),
      want: 'ign',
    },
    {
      name: 'matching is case-sensitive',
      input: ping(null, { method: 'POST', body: 'SUCCESS', check: { filterHttpBody: true, successKw: 'success' } }),
      want: 'ign',
    },
    {
      name: 'invalid UTF-8 decodes with replacement and still matches',
      input: ping(null, {
        method: 'POST',
        body: new Uint8Array([0x48, 0x69, 0x20, 0xe9, 0x20, 0x4f, 0x4b]),
        check: { filterHttpBody: true, successKw: 'OK' },
      }),
      want: 'success',
    },
  ];
  it.each(cases)('$name', ({ input, want }) => {
    expect(classifyPing(input)).toBe(want);
  });

  it('only scans the first 10 000 bytes of the body', () => {
    const check = { filterHttpBody: true, successKw: 'SUCCESS' };
    const inside = 'x'.repeat(KEYWORD_SCAN_BYTES - 7) + 'SUCCESS';
    const outside = 'x'.repeat(KEYWORD_SCAN_BYTES - 6) + 'SUCCESS';
    expect(KEYWORD_SCAN_BYTES).toBe(10_000);
    expect(classifyPing(ping(null, { method: 'POST', body: inside, check }))).toBe('success');
    expect(classifyPing(ping(null, { method: 'POST', body: outside, check }))).toBe('ign');
  });
});

describe('keyword lists (match_keywords)', () => {
  const cases: [string, string, boolean][] = [
    ['xxSUCCESSxx', 'SUCCESS, COMPLETED', true],
    ['job COMPLETED', 'SUCCESS, COMPLETED', true],
    ['SUCCESS', 'success', false],
    ['anything', '', false],
    ['anything', ' , ,', false],
    ['', 'SUCCESS', false],
    ['a b', '  b  ', true],
    // Inner spaces belong to the keyword.
    ['all done', 'all done', true],
    ['all  done', 'all done', false],
  ];
  it.each(cases)('%j against %j: %s', (body, keywords, want) => {
    expect(matchesKeywords(body, keywords)).toBe(want);
  });

  it('applies fail, success, start, then the default, in that order', () => {
    const kw = { failureKw: 'F', successKw: 'S', startKw: 'T', filterDefaultFail: false };
    expect(classifyByKeywords('F S T', kw)).toBe('fail');
    expect(classifyByKeywords('S T', kw)).toBe('success');
    expect(classifyByKeywords('T', kw)).toBe('start');
    expect(classifyByKeywords('-', kw)).toBe('ign');
    expect(classifyByKeywords('-', { ...kw, filterDefaultFail: true })).toBe('fail');
  });
});

// ---------------------------------------------------------------------------

describe('ping-list duration, §7.1', () => {
  const S = 1000;
  const H = 3600 * S;
  const A = '0a0a0a0a-0000-4000-8000-00000000000a';
  const B = '0b0b0b0b-0000-4000-8000-00000000000b';
  const p = (kind: PingKind, date: number, rid: string | null = null): DurationPing => ({ kind, date, rid });

  /** Both entry points must agree: one ping against its history, and the one-pass batch. */
  function durations(pings: DurationPing[]): (number | null)[] {
    const single = pings.map((ping, i) => pingDuration(ping, pings.slice(0, i).reverse()));
    expect(pingDurations(pings)).toEqual(single);
    return single;
  }

  const cases: { name: string; pings: DurationPing[]; want: (number | null)[] }[] = [
    { name: 'start then success', pings: [p('start', 0), p('success', 300 * S)], want: [null, 300] },
    { name: 'start then fail', pings: [p('start', 0), p('fail', 42 * S)], want: [null, 42] },
    {
      name: 'no adjacent start: the second success gets none',
      pings: [p('start', 0), p('success', 5 * S), p('success', 10 * S)],
      want: [null, 5, null],
    },
    {
      name: 'overlapping runs matched by rid',
      pings: [p('start', 0, A), p('start', 60 * S, B), p('success', 120 * S, A), p('success', 360 * S, B)],
      want: [null, null, 120, 300],
    },
    {
      name: 'ign and log are transparent',
      pings: [p('start', 0), p('ign', 1 * S), p('log', 2 * S), p('success', 3 * S)],
      want: [null, null, null, 3],
    },
    {
      name: 'a null-rid success does not match a rid-tagged start',
      pings: [p('start', 0, A), p('success', 5 * S)],
      want: [null, null],
    },
    {
      name: 'a rid-tagged success does not match a null-rid start',
      pings: [p('start', 0), p('success', 5 * S, A)],
      want: [null, null],
    },
    {
      name: 'a later start restarts the clock',
      pings: [p('start', 0), p('start', 10 * S), p('success', 15 * S)],
      want: [null, null, 5],
    },
    {
      name: 'just under 72 hours counts',
      pings: [p('start', 0), p('success', 72 * H - S)],
      want: [null, 72 * 3600 - 1],
    },
    { name: '72 hours or more gives none', pings: [p('start', 0), p('success', 72 * H)], want: [null, null] },
    { name: 'rounded to 2 decimals', pings: [p('start', 0), p('success', 1234)], want: [null, 1.23] },
    { name: 'rounding half up', pings: [p('start', 0), p('success', 1235)], want: [null, 1.24] },
    {
      name: 'the "disables duration calculation" page: many successes, no start, no durations',
      pings: Array.from({ length: 12 }, (_, i) => p('success', i * S)),
      want: Array.from({ length: 12 }, () => null),
    },
  ];
  it.each(cases)('$name', ({ pings, want }) => {
    expect(durations(pings)).toEqual(want);
  });

  it.each<PingKind>(['start', 'log', 'ign'])('a %s ping never has a duration', (kind) => {
    expect(pingDuration(p(kind, 10 * S), [p('start', 0)])).toBeNull();
  });

  it('stops at the first relevant earlier ping, so the store may stream its history', () => {
    let read = 0;
    function* history(): Generator<DurationPing> {
      const newestFirst = [p('start', 100 * S), p('success', 50 * S), p('start', 0)];
      for (const ping of newestFirst) {
        read += 1;
        yield ping;
      }
    }
    expect(pingDuration(p('success', 160 * S), history())).toBe(60);
    expect(read).toBe(1);
  });
});
