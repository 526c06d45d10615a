// The check table. Only the rows on screen are rendered (the caller passes the
// visible slice), so 10,000 checks cost no more per frame than twenty.
import { memo } from 'react';
import { Box, Text } from 'ink';
import { countdown, lastActivity } from '../countdown.js';
import { ago, fit, periodOf } from '../format.js';
import { labelOf } from '../labels.js';
import type { Row } from '../row.js';
import { statusColor } from './theme.js';

/** Column widths; 0 hides a column. */
export interface Columns {
  status: number;
  name: number;
  tags: number;
  last: number;
  next: number;
  period: number;
}

const STATUS_W = 7; // "running"
const LAST_W = 9; // "LAST PING", "just now", "59m ago"
const NEXT_W = 16; // "down for 23h 59m", "running 9m 59s"

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(Math.max(n, lo), hi);
}

/**
 * Fit the columns to the terminal: at 80 columns everything shows; narrower
 * terminals lose tags first, then next and period, never name and status.
 */
export function tableColumns(width: number): Columns {
  // The cursor column and one space before every column after status.
  if (width >= 64) {
    const rest = width - (1 + STATUS_W + LAST_W + NEXT_W + 5);
    const period = clamp(Math.round(rest * 0.28), 10, 24);
    const tags = clamp(Math.round(rest * 0.26), 8, 30);
    return { status: STATUS_W, name: rest - period - tags, tags, last: LAST_W, next: NEXT_W, period };
  }
  if (width >= 50) {
    const rest = width - (1 + STATUS_W + LAST_W + NEXT_W + 4);
    return { status: STATUS_W, name: rest - 10, tags: 0, last: LAST_W, next: NEXT_W, period: 10 };
  }
  return { status: STATUS_W, name: Math.max(4, width - (1 + STATUS_W + LAST_W + 2)), tags: 0, last: LAST_W, next: 0, period: 0 };
}

function cells(cols: Columns, values: { name: string; tags: string; last: string; next: string; period: string }): string {
  let s = ' ' + fit(values.name, cols.name);
  if (cols.tags) s += ' ' + fit(values.tags, cols.tags);
  s += ' ' + fit(values.last, cols.last);
  if (cols.next) s += ' ' + fit(values.next, cols.next);
  if (cols.period) s += ' ' + fit(values.period, cols.period);
  return s;
}

export function TableHeader({ cols }: { cols: Columns }) {
  return (
    <Text bold wrap="truncate">
      {' ' + fit('STATUS', cols.status)}
      {cells(cols, { name: 'NAME', tags: 'TAGS', last: 'LAST PING', next: 'TIMER', period: 'PERIOD' })}
    </Text>
  );
}

interface RowProps {
  row: Row;
  cols: Columns;
  selected: boolean;
  flashing: boolean;
  /** Server time, for "3m ago". */
  now: number;
}

export const TableRow = memo(function TableRow({ row, cols, selected, flashing, now }: RowProps) {
  const label = labelOf(row);
  const c = row.check;
  return (
    <Text inverse={selected} bold={flashing} wrap="truncate">
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
        period: periodOf(c),
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
}

export function CheckTable({ rows, selected, cols, height, now, isFlashing, empty }: TableProps) {
  return (
    <Box flexDirection="column" height={height + 1} flexShrink={0}>
      <TableHeader cols={cols} />
      {rows.length === 0 ? (
        <Text dimColor>{'  ' + empty}</Text>
      ) : (
        rows.map((row, i) => (
          <TableRow key={row.id} row={row} cols={cols} selected={i === selected} flashing={isFlashing(row.id)} now={now} />
        ))
      )}
    </Box>
  );
}
