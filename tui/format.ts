// Text formatting for checktop: relative times, durations, fixed-width cells.
// Pure functions of their arguments (`now` is always passed in), so the table
// renders the same in tests as on a terminal.
import stringWidth from 'string-width';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A span in the largest one or two units that matter: "45s", "3m", "3m 20s",
 * "2h 5m", "4d 3h". Seconds are dropped from 10 minutes up: at that scale they
 * only make the column flicker.
 */
export function span(ms: number): string {
  const abs = Math.max(0, Math.round(ms));
  if (abs < MINUTE) return `${Math.floor(abs / SECOND)}s`;
  if (abs < 10 * MINUTE) {
    const m = Math.floor(abs / MINUTE);
    const s = Math.floor((abs % MINUTE) / SECOND);
    return s === 0 ? `${m}m` : `${m}m ${s}s`;
  }
  if (abs < HOUR) return `${Math.floor(abs / MINUTE)}m`;
  if (abs < DAY) {
    const h = Math.floor(abs / HOUR);
    const m = Math.floor((abs % HOUR) / MINUTE);
    return m === 0 ? `${h}h` : `${h}h ${m}m`;
  }
  const d = Math.floor(abs / DAY);
  const h = Math.floor((abs % DAY) / HOUR);
  return h === 0 ? `${d}d` : `${d}d ${h}h`;
}

/** A compact span, one unit only ("3m", "2h", "4d"), for narrow table cells. */
export function shortSpan(ms: number): string {
  const abs = Math.max(0, Math.round(ms));
  if (abs < MINUTE) return `${Math.floor(abs / SECOND)}s`;
  if (abs < HOUR) return `${Math.floor(abs / MINUTE)}m`;
  if (abs < DAY) return `${Math.floor(abs / HOUR)}h`;
  return `${Math.floor(abs / DAY)}d`;
}

/** "3m ago", "just now", or "never" for 0 (the wire's "none"). */
export function ago(ms: number, now: number): string {
  if (!ms) return 'never';
  const diff = now - ms;
  // A timestamp a little in the future is clock skew, not news: call it now.
  if (diff < 2 * SECOND) return 'just now';
  return `${shortSpan(diff)} ago`;
}

/** "in 12m" for a future instant, "12m late" once it has passed, "-" for none. */
export function until(ms: number, now: number): string {
  if (!ms) return '-';
  const diff = ms - now;
  if (Math.abs(diff) < SECOND) return 'now';
  return diff > 0 ? `in ${shortSpan(diff)}` : `${shortSpan(-diff)} late`;
}

/** A run duration given in seconds; negative means unknown (wire convention). */
export function durationSeconds(s: number): string {
  if (!(s >= 0)) return '-';
  if (s < 1) return `${Math.round(s * 1000)}ms`;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)}s`;
  return span(s * SECOND);
}

/** A run duration given in milliseconds; 0 means none. */
export function durationMs(ms: number): string {
  return ms > 0 ? durationSeconds(ms / SECOND) : '-';
}

/** What the period column shows: "every 1h" for simple checks, else the schedule. */
export function periodOf(check: { kind: string; timeout_s: number; schedule: string }): string {
  if (check.kind === 'CHECK_KIND_SIMPLE' || check.schedule === '') return `every ${span(check.timeout_s * SECOND)}`;
  return check.schedule;
}

/** "exit 3" for a ping that reported an exit status, "" for one that did not. */
export function exitText(ping: { exit_status?: number }): string {
  return ping.exit_status === undefined ? '' : `exit ${ping.exit_status}`;
}

/** "52 B", "3.1 KB", "1.0 MB": a body's size. */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** Local wall-clock time, HH:MM:SS. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** Local date and time, "MM-DD HH:MM:SS": enough for a detail view. */
export function dateTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getMonth() + 1)}-${two(d.getDate())} ${clockTime(ms)}`;
}

/** Printable ASCII only: its display width is its length. */
const PLAIN = /^[\x20-\x7e]*$/;
/** Control characters (a name could carry an escape sequence): shown as U+FFFD, never sent to the terminal. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns `text` takes on a terminal: CJK and most emoji take two, combining marks none. */
export function displayWidth(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text);
}

/**
 * Cut or pad to exactly `width` terminal columns, by display width: names are
 * user input and may hold wide characters (CJK, emoji) or combining marks,
 * and a row must keep every column where the header puts it. A cut ends in
 * "…"; a wide character that would straddle the edge is left out.
 */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const clean = text.replace(/[\r\n\t]/g, ' ').replace(CONTROL, '\ufffd');
  let w = displayWidth(clean);
  let out = clean;
  if (w > width) {
    if (PLAIN.test(clean)) {
      out = width === 1 ? '…' : clean.slice(0, width - 1) + '…';
      w = width;
    } else {
      out = '';
      w = 0;
      for (const { segment } of graphemes.segment(clean)) {
        const sw = stringWidth(segment);
        if (w + sw > width - 1) break;
        out += segment;
        w += sw;
      }
      out += '…';
      w += 1;
    }
  }
  const pad = ' '.repeat(width - w);
  return align === 'left' ? out + pad : pad + out;
}
