// The check table. Only the rows on screen are rendered (the caller passes the
// visible slice), so 10,000 checks cost no more per frame than twenty.
import { memo } from 'react';
import { Box, Text } from 'ink';
import { countdown, lastActivity } from '../countdown.js';
import { ago, displayWidth, durationMs, fit, periodOf, span } from '../format.js';
import { labelOf } from '../labels.js';
import type { Row } from '../row.js';
import type { Sort, SortKey } from '../sort.js';
import type { CheckMsg } from '../wire.js';
import { statusColor } from './theme.js';

/** Column widths; 0 hides a column. */
export interface Columns {
  status: number;
  name: number;
  tags: number;
  last: number;
  next: number;
  period: number;
  /** The wide layout's extra columns, and its schedules with their time zone. */
  grace: number;
  run: number;
  pings: number;
  wide: boolean;
}

const STATUS_W = 7; // "running"
const LAST_W = 10; // "▼LAST PING", "just now", "59m ago"
const NEXT_W = 16; // "down for 23h 59m", "running 9m 59s"
const GRACE_W = 6; // "1h 30m"
const RUN_W = 9; // "▼LAST RUN", "59m 59s"
const PINGS_W = 7; // "1234567"
/** From this width on, the table shows every column. */
export const WIDE = 120;

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(Math.max(n, lo), hi);
}

const NONE = { tags: 0, period: 0, grace: 0, run: 0, pings: 0, wide: false };

/**
 * Fit the columns to the terminal: wide terminals get grace, last run, pings
 * and schedules with their time zone, and room for whole tag lists; at 80
 * columns the essentials show; narrower terminals lose tags and period, then
 * the timer, never name and status.
 */
export function tableColumns(width: number, content?: ContentWidths): Columns {
  // The cursor column, and one space before every column after status.
  if (width >= WIDE) {
    const rest = width - (1 + STATUS_W + LAST_W + NEXT_W + GRACE_W + RUN_W + PINGS_W + 8);
    // As wide as the rows need, when known, within a share of the room that leaves the name most.
    const period = clamp(content ? content.period : Math.round(rest * 0.25), 10, Math.floor(rest * 0.3));
    const tags = clamp(content ? content.tags : Math.round(rest * 0.25), 8, Math.floor(rest * 0.4));
    return { status: STATUS_W, name: rest - period - tags, tags, last: LAST_W, next: NEXT_W, period, grace: GRACE_W, run: RUN_W, pings: PINGS_W, wide: true };
  }
  if (width >= 64) {
    const rest = width - (1 + STATUS_W + LAST_W + NEXT_W + 5);
    const period = clamp(Math.round(rest * 0.28), 10, 24);
    const tags = clamp(Math.round(rest * 0.26), 8, 30);
    return { ...NONE, status: STATUS_W, name: rest - period - tags, tags, last: LAST_W, next: NEXT_W, period };
  }
  if (width >= 46) return { ...NONE, status: STATUS_W, name: width - (1 + STATUS_W + LAST_W + NEXT_W + 3), last: LAST_W, next: NEXT_W };
  return { ...NONE, status: STATUS_W, name: Math.max(4, width - (1 + STATUS_W + LAST_W + 2)), last: LAST_W, next: 0 };
}

interface Cells {
  name: string;
  tags: string;
  last: string;
  next: string;
  period: string;
  grace: string;
  run: string;
  pings: string;
}

function cells(cols: Columns, values: Cells): string {
  let s = ' ' + fit(values.name, cols.name);
  if (cols.tags) s += ' ' + fit(values.tags, cols.tags);
  s += ' ' + fit(values.last, cols.last);
  if (cols.next) s += ' ' + fit(values.next, cols.next);
  if (cols.period) s += ' ' + fit(values.period, cols.period);
  if (cols.grace) s += ' ' + fit(values.grace, cols.grace, 'right');
  if (cols.run) s += ' ' + fit(values.run, cols.run, 'right');
  if (cols.pings) s += ' ' + fit(values.pings, cols.pings, 'right');
  return s;
}

/** The column each order sorts by, which its header marks. */
const SORTED_COLUMN: Record<SortKey, keyof Cells | 'status'> = {
  status: 'status',
  name: 'name',
  last: 'last',
  deadline: 'next',
  duration: 'run',
};

export function TableHeader({ cols, sort }: { cols: Columns; sort: Sort }) {
  const arrow = sort.reversed ? '▲' : '▼';
  const marked = SORTED_COLUMN[sort.key];
  const title = (column: keyof Cells | 'status', text: string) => (column === marked ? `${arrow}${text}` : text);
  return (
    <Text bold wrap="truncate">
      {' ' + fit(title('status', 'STATUS'), cols.status)}
      {cells(cols, {
        name: title('name', 'NAME'),
        tags: 'TAGS',
        last: title('last', 'LAST PING'),
        next: title('next', 'TIMER'),
        period: cols.wide ? 'SCHEDULE' : 'PERIOD',
        grace: 'GRACE',
        run: title('run', 'LAST RUN'),
        pings: 'PINGS',
      })}
    </Text>
  );
}

/** The widest tag list and schedule of some rows: what the wide layout makes room for. */
export interface ContentWidths {
  tags: number;
  period: number;
}

export function contentWidths(rows: readonly Row[], wide: boolean, atLeast: ContentWidths = { tags: 0, period: 0 }): ContentWidths {
  let { tags, period } = atLeast;
  for (const { check } of rows) {
    tags = Math.max(tags, displayWidth(check.tags.join(' ')));
    period = Math.max(period, displayWidth(scheduleOf(check, wide)));
  }
  return { tags, period };
}

/** The schedule, with its time zone in the wide layout (simple checks have none). */
function scheduleOf(c: CheckMsg, wide: boolean): string {
  const period = periodOf(c);
  return wide && c.kind !== 'CHECK_KIND_SIMPLE' && c.schedule ? `${period} ${c.tz || 'UTC'}` : period;
}

interface RowProps {
  row: Row;
  cols: Columns;
  selected: boolean;
  flashing: boolean;
  /** Server time, for "3m ago". */
  now: number;
  stale: boolean;
}

export const TableRow = memo(function TableRow({ row, cols, selected, flashing, now, stale }: RowProps) {
  const label = labelOf(row);
  const c = row.check;
  return (
    <Text inverse={selected} bold={flashing && !stale} dimColor={stale} wrap="truncate">
      {selected ? '›' : ' '}
      {/* A fresh flip: the status cell turns into a coloured block for a few seconds. */}
      <Text color={flashing ? 'black' : statusColor(label)} backgroundColor={flashing ? statusColor(label) : undefined}>
        {fit(label, cols.status)}
      </Text>
      {cells(cols, {
        name: c.name || '(unnamed)',
        tags: c.tags.join(' '),
        last: ago(lastActivity(c), now),
        next: countdown(c, label, now),
        period: scheduleOf(c, cols.wide),
        grace: span(c.grace_s * 1000),
        run: durationMs(c.last_duration_ms),
        pings: String(c.n_pings),
      })}
    </Text>
  );
});

interface TableProps {
  rows: readonly Row[];
  /** Index into `rows` of the cursor, -1 for none. */
  selected: number;
  cols: Columns;
  height: number;
  now: number;
  isFlashing: (id: string) => boolean;
  /** Shown instead of rows when there are none. */
  empty: string;
  sort: Sort;
  /** The link is down: what the rows say is as of then. */
  stale: boolean;
}

export function CheckTable({ rows, selected, cols, height, now, isFlashing, empty, sort, stale }: TableProps) {
  return (
    <Box flexDirection="column" height={height + 1} flexShrink={0}>
      <TableHeader cols={cols} sort={sort} />
      {rows.length === 0 ? (
        <Text dimColor>{'  ' + empty}</Text>
      ) : (
        rows.map((row, i) => (
          <TableRow key={row.id} row={row} cols={cols} selected={i === selected} flashing={isFlashing(row.id)} now={now} stale={stale} />
        ))
      )}
    </Box>
  );
}
