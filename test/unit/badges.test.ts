import { describe, expect, it } from 'vitest';
import {
  aggregateBadgeStatus,
  badgeGeometry,
  badgeJson,
  badgeShields,
  badgeSignature,
  badgeSvg,
  badgeUrls,
  checkBadgeLabel,
  checkBadgeStatus,
  badgeSummaryOf,
  tallyBadgeStatus,
  type BadgeTally,
  decodeBadgeTag,
  encodeBadgeTag,
  parseBadgeRequest,
  parseCheckBadgeRequest,
  textWidth,
  verifyBadgeSignature,
} from '../../daemon/domain/badges.js';
import type { DisplayStatus } from '../../daemon/domain/types.js';

const SECRET = 'example-secret';
const KEY = 'alice';

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

// Deliberately strict, minimal XML 1.0 reader: enough to prove the badge is well-formed
// (balanced tags, quoted unique attributes, only known entities, no stray markup).
function parseXml(doc: string): XmlElement {
  const NAME = /^[A-Za-z_:][\w:.-]*/;
  const ENTITY = /^&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/;
  let i = 0;
  const fail = (msg: string): never => {
    throw new Error(`${msg} at ${i}: ${JSON.stringify(doc.slice(i, i + 30))}`);
  };
  const unescape = (raw: string): string => {
    let out = '';
    for (let j = 0; j < raw.length; ) {
      if (raw[j] === '&') {
        const m = ENTITY.exec(raw.slice(j));
        if (!m) fail('bad entity');
        const ent = m![0];
        const named: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
        out += named[ent] ?? String.fromCodePoint(Number(ent.startsWith('&#x') ? '0x' + ent.slice(3, -1) : ent.slice(2, -1)));
        j += ent.length;
      } else if (raw[j] === '<') {
        fail('raw < in content');
      } else {
        out += raw[j];
        j += 1;
      }
    }
    return out;
  };
  const skipWs = () => {
    while (i < doc.length && /\s/.test(doc[i]!)) i += 1;
  };
  const element = (): XmlElement => {
    if (doc[i] !== '<') fail('expected <');
    i += 1;
    const name = NAME.exec(doc.slice(i))?.[0] ?? fail('bad element name');
    i += name.length;
    const el: XmlElement = { name, attrs: {}, children: [], text: '' };
    for (;;) {
      const before = i;
      skipWs();
      if (doc.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (doc[i] === '>') {
        i += 1;
        break;
      }
      if (i === before) fail('expected whitespace before attribute');
      const attr = NAME.exec(doc.slice(i))?.[0] ?? fail('bad attribute name');
      i += attr.length;
      if (doc[i] !== '=') fail('expected =');
      i += 1;
      const q = doc[i];
      if (q !== '"' && q !== "'") fail('unquoted attribute');
      const end = doc.indexOf(q!, i + 1);
      if (end < 0) fail('unterminated attribute');
      if (attr in el.attrs) fail('duplicate attribute');
      el.attrs[attr] = unescape(doc.slice(i + 1, end));
      i = end + 1;
    }
    for (;;) {
      const lt = doc.indexOf('<', i);
      if (lt < 0) fail('unclosed element ' + name);
      el.text += unescape(doc.slice(i, lt));
      i = lt;
      if (doc.startsWith('</', i)) {
        i += 2;
        const close = NAME.exec(doc.slice(i))?.[0];
        if (close !== name) fail(`mismatched </${close}> for <${name}>`);
        i += name.length;
        skipWs();
        if (doc[i] !== '>') fail('expected >');
        i += 1;
        return el;
      }
      el.children.push(element());
    }
  };
  skipWs();
  const root = element();
  skipWs();
  if (i !== doc.length) fail('content after root');
  return root;
}

function descendants(el: XmlElement): XmlElement[] {
  return el.children.flatMap((c) => [c, ...descendants(c)]);
}

describe('badgeSignature', () => {
  it.each([
    ['foo', 'bpfZcuKR'],
    ['*', 'obXxTVwd'],
    ['db@dc1', 'oNO9z5NC'],
  ])('signs %s as %s', (tag, sig) => {
    expect(badgeSignature(KEY, SECRET, tag)).toBe(sig);
  });

  it('verifies on the first 8 characters only', () => {
    expect(verifyBadgeSignature(KEY, SECRET, 'foo', 'bpfZcuKR')).toBe(true);
    expect(verifyBadgeSignature(KEY, SECRET, 'foo', 'bpfZcuKR-2')).toBe(true);
    expect(verifyBadgeSignature(KEY, SECRET, '*', 'obXxTVwd-2')).toBe(true);
    expect(verifyBadgeSignature(KEY, SECRET, 'foo', 'bpfZcuKX')).toBe(false);
    expect(verifyBadgeSignature(KEY, SECRET, 'foo', 'bpfZcuK')).toBe(false);
    expect(verifyBadgeSignature(KEY, SECRET, 'foo', '')).toBe(false);
    expect(verifyBadgeSignature(KEY, SECRET, 'bar', 'bpfZcuKR')).toBe(false);
    expect(verifyBadgeSignature('bob', SECRET, 'foo', 'bpfZcuKR')).toBe(false);
    expect(verifyBadgeSignature(KEY, SECRET, 'foo', 'bpfZcuKé')).toBe(false);
  });
});

describe('tag encoding', () => {
  it.each([
    ['db@dc1', 'db%2540dc1'],
    ['c++', 'c%252B%252B'],
    ['foo', 'foo'],
    ['v1.2', 'v1.2'],
    ['a_b-c~d', 'a_b-c~d'],
    ['a/b', 'a%252Fb'],
    ["x!'()*", 'x%2521%2527%2528%2529%252A'],
    ['é', '%25C3%25A9'],
  ])('encodes %s as %s', (tag, encoded) => {
    expect(encodeBadgeTag(tag)).toBe(encoded);
  });

  it('decodes what the server has decoded once', () => {
    for (const tag of ['db@dc1', 'c++', 'foo', 'v1.2', 'a/b', 'é', '100%']) {
      const once = decodeURIComponent(encodeBadgeTag(tag));
      expect(decodeBadgeTag(once)).toBe(tag);
    }
  });

  it('rejects segments outside the route pattern and tolerates malformed escapes', () => {
    expect(decodeBadgeTag('')).toBeNull();
    expect(decodeBadgeTag('a b')).toBeNull();
    expect(decodeBadgeTag('a+b')).toBeNull();
    expect(decodeBadgeTag('a/b')).toBeNull();
    expect(decodeBadgeTag('café')).toBe('café');
    expect(decodeBadgeTag('100%')).toBe('100%');
    expect(decodeBadgeTag('%zz')).toBe('%zz');
    expect(decodeBadgeTag('%ff')).toBe('\uFFFD');
  });
});

describe('badgeUrls', () => {
  it('builds tag URLs', () => {
    expect(badgeUrls('https://hc.example', KEY, SECRET, 'foo')).toEqual({
      svg: 'https://hc.example/badge/alice/bpfZcuKR-2/foo.svg',
      svg3: 'https://hc.example/badge/alice/bpfZcuKR/foo.svg',
      json: 'https://hc.example/badge/alice/bpfZcuKR-2/foo.json',
      json3: 'https://hc.example/badge/alice/bpfZcuKR/foo.json',
      shields: 'https://hc.example/badge/alice/bpfZcuKR-2/foo.shields',
      shields3: 'https://hc.example/badge/alice/bpfZcuKR/foo.shields',
    });
  });

  it('drops the tag segment for *', () => {
    expect(badgeUrls('https://hc.example', KEY, SECRET, '*')).toEqual({
      svg: 'https://hc.example/badge/alice/obXxTVwd-2.svg',
      svg3: 'https://hc.example/badge/alice/obXxTVwd.svg',
      json: 'https://hc.example/badge/alice/obXxTVwd-2.json',
      json3: 'https://hc.example/badge/alice/obXxTVwd.json',
      shields: 'https://hc.example/badge/alice/obXxTVwd-2.shields',
      shields3: 'https://hc.example/badge/alice/obXxTVwd.shields',
    });
  });

  it('double-encodes special tags and tolerates a trailing slash on the base', () => {
    const urls = badgeUrls('http://localhost:8000/', KEY, SECRET, 'db@dc1');
    expect(urls.svg).toBe('http://localhost:8000/badge/alice/oNO9z5NC-2/db%2540dc1.svg');
  });
});

describe('parseBadgeRequest', () => {
  it('parses tag badges in both modes', () => {
    expect(parseBadgeRequest('bpfZcuKR-2', 'foo.svg')).toEqual({ mode: 2, tag: 'foo', fmt: 'svg', sig: 'bpfZcuKR-2' });
    expect(parseBadgeRequest('bpfZcuKR', 'foo.json')).toEqual({ mode: 3, tag: 'foo', fmt: 'json', sig: 'bpfZcuKR' });
    expect(parseBadgeRequest('bpfZcuKR', 'foo.shields')?.fmt).toBe('shields');
  });

  it('takes the format after the last dot', () => {
    expect(parseBadgeRequest('sig', 'v1.2.svg')).toMatchObject({ tag: 'v1.2', fmt: 'svg' });
  });

  it('decodes the tag a second time', () => {
    // As routed: the server already turned db%2540dc1 into db%40dc1.
    expect(parseBadgeRequest('oNO9z5NC-2', 'db%40dc1.svg')).toMatchObject({ tag: 'db@dc1', mode: 2 });
  });

  it('parses the * badge', () => {
    expect(parseBadgeRequest('obXxTVwd-2.svg')).toEqual({ mode: 2, tag: '*', fmt: 'svg', sig: 'obXxTVwd-2' });
    expect(parseBadgeRequest('obXxTVwd.json', null)).toEqual({ mode: 3, tag: '*', fmt: 'json', sig: 'obXxTVwd' });
  });

  it('is 2-state only for exactly 10 characters ending in -2', () => {
    expect(parseBadgeRequest('bpfZcuKR-2', 'foo.svg')?.mode).toBe(2);
    expect(parseBadgeRequest('bpfZcuKR-3', 'foo.svg')?.mode).toBe(3);
    expect(parseBadgeRequest('bpfZcuKRx-2', 'foo.svg')?.mode).toBe(3);
    expect(parseBadgeRequest('bpfZcu-2', 'foo.svg')?.mode).toBe(3);
  });

  it('rejects bad formats and bad tag segments', () => {
    expect(parseBadgeRequest('bpfZcuKR', 'foo.jsonfoo')).toBeNull();
    expect(parseBadgeRequest('bpfZcuKR', 'foo.png')).toBeNull();
    expect(parseBadgeRequest('bpfZcuKR', 'foo')).toBeNull();
    expect(parseBadgeRequest('bpfZcuKR', '.svg')).toBeNull();
    expect(parseBadgeRequest('bpfZcuKR', 'a b.svg')).toBeNull();
    expect(parseBadgeRequest('obXxTVwd.jsonfoo')).toBeNull();
    expect(parseBadgeRequest('obXxTVwd')).toBeNull();
    expect(parseBadgeRequest('.svg')).toBeNull();
  });
});

describe('parseCheckBadgeRequest', () => {
  const key = '0b5a1e3c-6a2f-4c42-9d0e-2f2c7e1f8a11';

  it('selects 3-state only for 3', () => {
    expect(parseCheckBadgeRequest('3', `${key}.svg`)).toEqual({ mode: 3, badgeKey: key, fmt: 'svg' });
    for (const states of ['2', '0', '7', '33']) expect(parseCheckBadgeRequest(states, `${key}.json`)?.mode).toBe(2);
  });

  it('rejects bad formats and non-integer states', () => {
    expect(parseCheckBadgeRequest('2', `${key}.jsonfoo`)).toBeNull();
    expect(parseCheckBadgeRequest('two', `${key}.svg`)).toBeNull();
    expect(parseCheckBadgeRequest('-3', `${key}.svg`)).toBeNull();
  });
});

describe('tag selection (tallyBadgeStatus)', () => {
  const tally = (checks: Array<[string, DisplayStatus]>) => {
    const tallies = new Map<string, BadgeTally>();
    for (const [tags, status] of checks) tallyBadgeStatus(tallies, tags, status);
    return Object.fromEntries(tallies);
  };

  it('counts whole tags only, each check once per tag, every check under *', () => {
    expect(tally([['foo bar', 'up'], ['foobar', 'down'], ['  bar   foo ', 'grace'], ['', 'new'], ['foo foo', 'down']])).toEqual({
      '*': { total: 5, grace: 1, down: 2 },
      foo: { total: 3, grace: 1, down: 1 },
      bar: { total: 2, grace: 1, down: 0 },
      foobar: { total: 1, grace: 0, down: 1 },
    });
  });

  it('does not count a check tagged "*" twice in the all-checks badge', () => {
    expect(tally([['*', 'down'], ['x', 'up']])['*']).toEqual({ total: 2, grace: 0, down: 1 });
  });

  it('answers like aggregateBadgeStatus in both modes', () => {
    const statuses: DisplayStatus[] = ['up', 'grace', 'new', 'paused'];
    const t = tally(statuses.map((s) => ['t', s]))['t']!;
    for (const mode of [2, 3] as const) expect(badgeSummaryOf(t, mode)).toEqual(aggregateBadgeStatus(statuses, mode));
  });
});

describe('aggregateBadgeStatus', () => {
  it('is up with zero counts for no checks', () => {
    expect(aggregateBadgeStatus([], 2)).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
    expect(aggregateBadgeStatus([], 3)).toEqual({ status: 'up', total: 0, grace: 0, down: 0 });
  });

  it('counts new, paused and up as up', () => {
    expect(aggregateBadgeStatus(['new'], 3)).toEqual({ status: 'up', total: 1, grace: 0, down: 0 });
    expect(aggregateBadgeStatus(['new', 'paused', 'up'], 2)).toEqual({ status: 'up', total: 3, grace: 0, down: 0 });
  });

  it('treats grace as up in 2-state and late in 3-state, with the same counts', () => {
    expect(aggregateBadgeStatus(['up', 'grace'], 2)).toEqual({ status: 'up', total: 2, grace: 1, down: 0 });
    expect(aggregateBadgeStatus(['up', 'grace'], 3)).toEqual({ status: 'late', total: 2, grace: 1, down: 0 });
  });

  it('lets down win regardless of order', () => {
    for (const mode of [2, 3] as const) {
      expect(aggregateBadgeStatus(['grace', 'down', 'up'], mode)).toEqual({ status: 'down', total: 3, grace: 1, down: 1 });
      expect(aggregateBadgeStatus(['down', 'grace', 'down'], mode)).toEqual({ status: 'down', total: 3, grace: 1, down: 2 });
    }
  });

  it('per-check status follows the same rules with total 1', () => {
    expect(checkBadgeStatus('grace', 3)).toEqual({ status: 'late', total: 1, grace: 1, down: 0 });
    expect(checkBadgeStatus('grace', 2)).toEqual({ status: 'up', total: 1, grace: 1, down: 0 });
    expect(checkBadgeStatus('down', 2)).toEqual({ status: 'down', total: 1, grace: 0, down: 1 });
    expect(checkBadgeStatus('paused', 3)).toEqual({ status: 'up', total: 1, grace: 0, down: 0 });
    expect(checkBadgeStatus('new', 3)).toEqual({ status: 'up', total: 1, grace: 0, down: 0 });
  });

  it('labels per-check badges with the name or the UUID', () => {
    expect(checkBadgeLabel({ name: 'foobar', uuid: 'u-1' })).toBe('foobar');
    expect(checkBadgeLabel({ name: '', uuid: 'u-1' })).toBe('u-1');
  });
});

describe('JSON documents', () => {
  it('serialises the summary in wire order', () => {
    const doc = badgeJson({ down: 0, grace: 0, total: 1, status: 'up' });
    expect(JSON.stringify(doc)).toBe('{"status":"up","total":1,"grace":0,"down":0}');
  });

  it('builds shields documents', () => {
    expect(JSON.stringify(badgeShields('foo', 'up'))).toBe(
      '{"schemaVersion":1,"label":"foo","message":"up","color":"success"}',
    );
    expect(badgeShields('foobar', 'late')).toEqual({ schemaVersion: 1, label: 'foobar', message: 'late', color: 'important' });
    expect(badgeShields('x', 'down')).toEqual({ schemaVersion: 1, label: 'x', message: 'down', color: 'critical' });
  });
});

describe('SVG', () => {
  it('measures text with the width table', () => {
    expect(textWidth('mm')).toBe(20);
    expect(textWidth('@')).toBe(7);
    expect(textWidth('foo')).toBe(18);
    expect(textWidth('up')).toBe(14);
    expect(textWidth('ijlI')).toBe(12);
    expect(textWidth('W')).toBe(11);
    expect(textWidth('é😀')).toBe(14);
    expect(textWidth('')).toBe(0);
  });

  it('computes the worked geometry', () => {
    expect(badgeGeometry('foo', 'up')).toEqual({ w1: 28, w2: 24, width: 52, labelX: '14.0', statusX: '40.0' });
    expect(badgeGeometry('a', 'up').labelX).toBe('8.5');
  });

  it('lays out the foo/up badge', () => {
    const svg = badgeSvg('foo', 'up');
    const root = parseXml(svg);
    expect(root.name).toBe('svg');
    expect(root.attrs).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', width: '52', height: '20' });
    const all = descendants(root);
    const rects = all.filter((e) => e.name === 'rect');
    expect(rects.map((r) => r.attrs)).toEqual([
      { width: '52', height: '20', rx: '3', fill: '#fff' },
      { width: '28', height: '20', fill: '#555' },
      { x: '28', width: '24', height: '20', fill: '#4c1' },
      expect.objectContaining({ width: '52', height: '20' }),
    ]);
    const texts = all.filter((e) => e.name === 'text');
    expect(texts.map((t) => [t.attrs.x, t.attrs.y, t.text])).toEqual([
      ['14.0', '15', 'foo'],
      ['14.0', '14', 'foo'],
      ['40.0', '15', 'up'],
      ['40.0', '14', 'up'],
    ]);
    const textGroup = all.find((e) => e.name === 'g' && e.attrs['font-size'] === '11');
    expect(textGroup?.attrs).toMatchObject({
      fill: '#fff',
      'text-anchor': 'middle',
      'font-family': 'Verdana,Geneva,DejaVu Sans,sans-serif',
      'text-rendering': 'geometricPrecision',
    });
    expect(texts[0]?.attrs).toMatchObject({ fill: '#010101', 'fill-opacity': '.3' });
  });

  it('uses a decimal dot for odd widths', () => {
    expect(badgeSvg('a', 'up')).toContain('x="8.5"');
  });

  it.each([
    ['up', '#4c1'],
    ['late', '#fe7d37'],
    ['down', '#e05d44'],
  ] as const)('colours %s as %s', (status, colour) => {
    const rects = descendants(parseXml(badgeSvg('foo', status))).filter((e) => e.name === 'rect');
    expect(rects[2]?.attrs.fill).toBe(colour);
  });

  it('escapes the label and stays well-formed', () => {
    const label = `<a href="x">&'b'</a>`;
    const svg = badgeSvg(label, 'down');
    expect(svg).not.toContain('<a ');
    const texts = descendants(parseXml(svg)).filter((e) => e.name === 'text');
    expect(texts[0]?.text).toBe(label);
    expect(texts[1]?.text).toBe(label);
    // The width is measured on the label, not on its escaped form.
    expect(parseXml(svg).attrs.width).toBe(String(textWidth(label) + 10 + textWidth('down') + 10));
  });

  it('replaces characters XML cannot carry', () => {
    const svg = badgeSvg('a\u0001b\uD800', 'up');
    const texts = descendants(parseXml(svg)).filter((e) => e.name === 'text');
    expect(texts[1]?.text).toBe('a\uFFFDb\uFFFD');
    expect(svg).not.toMatch(/[\u0000-\u0008]/);
  });

  it('parser self-check: rejects ill-formed documents', () => {
    expect(() => parseXml('<svg><g></svg>')).toThrow();
    expect(() => parseXml('<svg>a & b</svg>')).toThrow();
    expect(() => parseXml('<svg a=1/>')).toThrow();
    expect(() => parseXml('<svg/><svg/>')).toThrow();
    expect(() => parseXml('<svg><text>a<b</text></svg>')).toThrow();
  });
});
