// Two lines on every screen: who and how connected (line 1), and how many
// checks are in which state (line 2).
import { Box, Text } from 'ink';
import { clockTime, displayWidth, fit } from '../format.js';
import { LABELS, type Counts } from '../labels.js';
import type { ConnectionInfo } from '../state.js';
import { LABEL_COLOR } from './theme.js';

interface HeaderProps {
  projectName: string | null;
  readOnly: boolean;
  connection: ConnectionInfo;
  counts: Counts;
  /** The table's order, right on line 2 while there is no reason for trouble to show there. */
  sortText: string;
  /** Local time: the clock shows the operator's wall time. */
  now: number;
  width: number;
}

/** The connection cell: short enough that the project name keeps most of the line. */
export function connectionText(c: ConnectionInfo, now: number): { text: string; color: string } {
  if (c.state === 'live') return { text: '● live', color: 'green' };
  const verb = c.state === 'connecting' ? 'connecting…' : 'reconnecting…';
  if (c.retryAt <= 0) return { text: verb, color: 'yellow' };
  const left = Math.ceil((c.retryAt - now) / 1000);
  return { text: left > 0 ? `${verb} retry in ${left}s` : verb, color: 'yellow' };
}

export function Header({ projectName, readOnly, connection, counts, sortText, now, width }: HeaderProps) {
  const conn = connectionText(connection, now);
  const right = `${conn.text}  ${clockTime(now)}`;
  const title = `checktop · ${projectName ?? '…'}${readOnly ? ' (read-only)' : ''}`;
  const titleWidth = Math.max(0, width - right.length - 1);
  // The reason the link is down goes where the counts' spare room is, if any.
  const reason = connection.state !== 'live' && connection.error ? connection.error : '';
  const countsText = `${counts.total} checks  ${LABELS.map((label) => `${counts[label]} ${label}`).join(' ')}`;
  const gap = width - displayWidth(countsText) - displayWidth(sortText);
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text wrap="truncate">
        <Text bold>{fit(title, titleWidth)}</Text> <Text color={conn.color}>{conn.text}</Text>
        {'  ' + clockTime(now)}
      </Text>
      <Text wrap="truncate">
        {`${counts.total} checks `}
        {LABELS.map((label) => (
          <Text key={label} color={counts[label] > 0 ? LABEL_COLOR[label] : 'gray'} bold={counts[label] > 0 && (label === 'down' || label === 'grace')}>
            {` ${counts[label]} ${label}`}
          </Text>
        ))}
        {reason ? <Text color="yellow">{'  ' + reason}</Text> : gap >= 2 ? <Text dimColor>{' '.repeat(gap) + sortText}</Text> : null}
      </Text>
    </Box>
  );
}
