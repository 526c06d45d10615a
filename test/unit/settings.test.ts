// The settings table of `checkd serve` (daemon/config/settings.ts) against
// the documentation that repeats it, both ways, and the parsers of switches
// and counts that every setting and admin argument goes through.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTEGRATION_SETTINGS, NOTIFY_SETTINGS, resolveSettings, SERVE_SETTINGS, SETTINGS, shownDefault } from '../../daemon/config/settings.js';
import { parseBool, parseCount, parseSize, sizeText } from '../../daemon/domain/text-values.js';

const REPO_ROOT = join(import.meta.dirname, '../..');

/** The rows of the first Markdown table after `heading`, each a list of cells without backticks. */
function markdownTable(file: string, heading: string): string[][] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const start = text.indexOf(heading);
  expect(start, `${heading} in ${file}`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table = lines.slice(first, first + lines.slice(first).findIndex((l) => !l.startsWith('|')));
  return table
    .slice(2) // header and |---| line
    .map((l) => l.split('|').slice(1, -1).map((cell) => cell.trim().replaceAll('`', '')));
}

describe('the settings table', () => {
  it("README's table of serve flags has exactly its rows with a flag: flag, env var, default", () => {
    const readme = markdownTable('README.md', '## Running the daemon').map(([flag, env, dflt]) => ({ flag, env, dflt }));
    const table = SETTINGS.filter((s) => s.flag !== null).map((s) => ({
      flag: s.arg === null ? s.flag! : `${s.flag} ${s.arg.toUpperCase()}`,
      env: s.env,
      dflt: shownDefault(s),
    }));
    const byFlag = (a: { flag?: string }, b: { flag?: string }) => (a.flag ?? '').localeCompare(b.flag ?? '');
    expect(readme.sort(byFlag)).toEqual(table.sort(byFlag));
  });

  it("docs/notifications.md's tables of delivery timings and service API addresses have exactly its env-only rows", () => {
    const docs = [...markdownTable('docs/notifications.md', 'Delivery timings'), ...markdownTable('docs/notifications.md', 'Service API addresses')].map(
      ([env, dflt]) => ({ env, dflt: dflt!.split(' ')[0] }),
    );
    const table = SETTINGS.filter((s) => s.flag === null).map((s) => ({ env: s.env, dflt: shownDefault(s) }));
    const byEnv = (a: { env?: string }, b: { env?: string }) => (a.env ?? '').localeCompare(b.env ?? '');
    expect(docs.sort(byEnv)).toEqual(table.sort(byEnv));
  });

  it('each row fills the field that commander names after its flag, and every flag and env var is unique', () => {
    const camel = (flag: string) => flag.replace(/^--/, '').replace(/-(.)/g, (_, c: string) => c.toUpperCase());
    for (const [field, s] of [...Object.entries(SERVE_SETTINGS), ...Object.entries(NOTIFY_SETTINGS), ...Object.entries(INTEGRATION_SETTINGS)]) {
      if (s.flag !== null) expect(camel(s.flag), field).toBe(field);
    }
    const flags = SETTINGS.flatMap((s) => (s.flag === null ? [] : [s.flag]));
    expect(new Set(flags).size).toBe(flags.length);
    expect(new Set(SETTINGS.map((s) => s.env)).size).toBe(SETTINGS.length);
  });

  it('a flag wins over its env var, the env var over the default; errors name the source', () => {
    const table = { apiRateLimit: SERVE_SETTINGS.apiRateLimit, timeoutMs: NOTIFY_SETTINGS.timeoutMs };
    expect(resolveSettings(table, {}, {})).toEqual({ apiRateLimit: 100, timeoutMs: 30_000 });
    expect(resolveSettings(table, {}, { CHECKD_API_RATE_LIMIT: '7', CHECKD_NOTIFY_TIMEOUT_MS: ' ' })).toEqual({ apiRateLimit: 7, timeoutMs: 30_000 });
    expect(resolveSettings(table, { apiRateLimit: '3' }, { CHECKD_API_RATE_LIMIT: 'x' })).toEqual({ apiRateLimit: 3, timeoutMs: 30_000 });
    // An env-only row takes no flag of its name.
    expect(resolveSettings(table, { timeoutMs: '5' }, {})).toEqual({ apiRateLimit: 100, timeoutMs: 30_000 });
    expect(() => resolveSettings(table, {}, { CHECKD_API_RATE_LIMIT: 'x' })).toThrow(
      'CHECKD_API_RATE_LIMIT (environment): expected a non-negative integer, got "x"',
    );
    expect(() => resolveSettings(table, { apiRateLimit: '-1' }, {})).toThrow('--api-rate-limit: expected a non-negative integer, got "-1"');
  });

  it('every default is valid', () => {
    expect(() => resolveSettings(SERVE_SETTINGS, {}, {})).not.toThrow();
    expect(() => resolveSettings(NOTIFY_SETTINGS, {}, {})).not.toThrow();
    expect(() => resolveSettings(INTEGRATION_SETTINGS, {}, {})).not.toThrow();
  });
});

describe('parseBool', () => {
  it('takes the usual words in any case, blank is off, anything else is refused', () => {
    for (const on of ['1', 'true', 'YES', ' on ']) expect(parseBool(on), on).toBe(true);
    for (const off of ['0', 'False', 'no', 'off', '', '  ']) expect(parseBool(off), off).toBe(false);
    for (const bad of ['maybe', '2', 'y']) expect(parseBool(bad), bad).toBeUndefined();
  });
});

describe('parseCount', () => {
  it('digits only, within the bounds; out of bounds says what it got', () => {
    expect(parseCount('0')).toEqual({ ok: true, value: 0 });
    expect(parseCount('007')).toEqual({ ok: true, value: 7 });
    for (const bad of ['', ' 1', '-1', '+1', '1.5', '1e3', '0x10', 'ten']) expect(parseCount(bad), bad).toEqual({ ok: false, problem: 'not-a-count' });
    expect(parseCount('0', 1, 10)).toEqual({ ok: false, problem: 'out-of-range', value: 0 });
    expect(parseCount('11', 1, 10)).toEqual({ ok: false, problem: 'out-of-range', value: 11 });
    expect(parseCount(String(Number.MAX_SAFE_INTEGER))).toEqual({ ok: true, value: Number.MAX_SAFE_INTEGER });
    expect(parseCount('9007199254740993')).toMatchObject({ ok: false, problem: 'out-of-range' });
  });
});

describe('sizes', () => {
  it('parseSize: a number and a unit, decimal (MB, GB) or binary (MiB, G), any case, a blank allowed', () => {
    const cases: Array<[string, number]> = [
      ['4096', 4096],
      ['500MB', 500e6],
      ['2GB', 2e9],
      ['2 gb', 2e9],
      ['1.5GiB', 1.5 * 1024 ** 3],
      ['64m', 64 * 1024 ** 2],
      ['10kB', 10_000],
      ['1TB', 1e12],
      [' 7b ', 7],
    ];
    for (const [text, bytes] of cases) expect(parseSize(text), text).toBe(bytes);
    for (const bad of ['', 'MB', '-1MB', '1 2MB', '1XB', '1e3', 'off', '1.MB']) expect(parseSize(bad), bad).toBeUndefined();
  });

  it('sizeText: decimal units, one decimal below ten', () => {
    expect([512, 1500, 64e6, 1.25e9, 20e9].map(sizeText)).toEqual(['512 B', '1.5 kB', '64 MB', '1.3 GB', '20 GB']);
  });

  it('--storage-quota is off unless given (blank, off or 0), at least 1MiB; --storage-reserve is a size, 0 allowed', () => {
    const table = { storageQuota: SERVE_SETTINGS.storageQuota, storageReserve: SERVE_SETTINGS.storageReserve };
    expect(resolveSettings(table, {}, {})).toEqual({ storageQuota: null, storageReserve: 64e6 });
    expect(resolveSettings(table, {}, { CHECKD_STORAGE_QUOTA: '2GB', CHECKD_STORAGE_RESERVE: '0' })).toEqual({ storageQuota: 2e9, storageReserve: 0 });
    expect(resolveSettings(table, { storageQuota: 'off' }, { CHECKD_STORAGE_QUOTA: '2GB' })).toEqual({ storageQuota: null, storageReserve: 64e6 });
    expect(() => resolveSettings(table, { storageQuota: '100kB' }, {})).toThrow('--storage-quota: at least 1MiB, got "100kB"');
    expect(() => resolveSettings(table, {}, { CHECKD_STORAGE_RESERVE: 'lots' })).toThrow(
      'CHECKD_STORAGE_RESERVE (environment): expected a size such as 500MB, 2GB, 1.5GiB or a number of bytes, got "lots"',
    );
  });
});
