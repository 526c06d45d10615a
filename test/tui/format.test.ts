import { describe, expect, it } from 'vitest';
import { ago, displayWidth, durationMs, durationSeconds, fit, periodOf, shortSpan, span, until } from '../../tui/format.js';

const NOW = Date.UTC(2026, 4, 1, 12, 0, 0);

describe('format', () => {
  it('spans use one or two units', () => {
    expect(span(0)).toBe('0s');
    expect(span(45_000)).toBe('45s');
    expect(span(180_000)).toBe('3m');
    expect(span(200_000)).toBe('3m 20s');
    expect(span(25 * 60_000 + 5000)).toBe('25m');
    expect(span(2 * 3600_000 + 5 * 60_000)).toBe('2h 5m');
    expect(span(4 * 86_400_000 + 3 * 3600_000)).toBe('4d 3h');
    expect(span(86_400_000)).toBe('1d');
    expect(shortSpan(2 * 3600_000 + 5 * 60_000)).toBe('2h');
  });

  it('ago: "3m ago", "just now", "never"', () => {
    expect(ago(NOW - 3 * 60_000, NOW)).toBe('3m ago');
    expect(ago(NOW - 3 * 60_000 - 59_000, NOW)).toBe('3m ago');
    expect(ago(NOW - 500, NOW)).toBe('just now');
    expect(ago(NOW + 1500, NOW)).toBe('just now');
    expect(ago(NOW - 30_000, NOW)).toBe('30s ago');
    expect(ago(NOW - 5 * 86_400_000, NOW)).toBe('5d ago');
    expect(ago(0, NOW)).toBe('never');
  });

  it('until: future, past and none', () => {
    expect(until(NOW + 12 * 60_000, NOW)).toBe('in 12m');
    expect(until(NOW - 2 * 60_000, NOW)).toBe('2m late');
    expect(until(NOW + 200, NOW)).toBe('now');
    expect(until(0, NOW)).toBe('-');
  });

  it('durations in seconds and milliseconds', () => {
    expect(durationSeconds(-1)).toBe('-');
    expect(durationSeconds(0.25)).toBe('250ms');
    expect(durationSeconds(3.21)).toBe('3.2s');
    expect(durationSeconds(42.4)).toBe('42s');
    expect(durationSeconds(125)).toBe('2m 5s');
    expect(durationMs(0)).toBe('-');
    expect(durationMs(3200)).toBe('3.2s');
  });

  it('period: every N for simple checks, the schedule otherwise', () => {
    expect(periodOf({ kind: 'CHECK_KIND_SIMPLE', timeout_s: 3600, schedule: '' })).toBe('every 1h');
    expect(periodOf({ kind: 'CHECK_KIND_SIMPLE', timeout_s: 90, schedule: '' })).toBe('every 1m 30s');
    expect(periodOf({ kind: 'CHECK_KIND_CRON', timeout_s: 0, schedule: '0 3 * * *' })).toBe('0 3 * * *');
  });

  it('fit pads, truncates with an ellipsis and flattens newlines', () => {
    expect(fit('abc', 5)).toBe('abc  ');
    expect(fit('abc', 5, 'right')).toBe('  abc');
    expect(fit('abcdef', 4)).toBe('abc…');
    expect(fit('a\nb', 3)).toBe('a b');
    expect(fit('abc', 0)).toBe('');
  });

  it('fit counts display width: wide characters take two columns, combining marks none', () => {
    const cases: [string, number][] = [
      ['備份データベース', 10],
      ['🚀 deploy', 8],
      ['cafe\u0301 crème', 12],
      ['ok', 6],
      ['日本', 3],
    ];
    for (const [text, width] of cases) {
      for (const align of ['left', 'right'] as const) expect(displayWidth(fit(text, width, align)), `${text} in ${width}`).toBe(width);
    }
    // A wide character that would straddle the edge is left out, and a space keeps the width.
    expect(fit('備份データベース', 10)).toBe('備份デー… ');
    expect(fit('日本', 3)).toBe('日…');
    expect(fit('cafe\u0301', 6)).toBe('cafe\u0301  ');
  });

  it('fit never passes control characters (an escape sequence in a name) to the terminal', () => {
    expect(fit('evil\x1b[2Jname', 12)).toBe('evil\ufffd[2Jname');
    expect(fit('a\x07b', 3)).toBe('a\ufffdb');
  });
});
