// A ping's body (a job's output) on the whole screen, scrolled like `less`:
// a title, the lines from `top`, and where in the body they are.
import { Box, Text } from 'ink';
import { fit } from '../format.js';
import type { BodyState } from '../hooks/usePingBody.js';

interface PagerProps {
  title: string;
  body: BodyState;
  /** The first line shown. */
  top: number;
  width: number;
  height: number;
}

/** Lines the pager shows at once: its height less the title and the position line. */
export function pagerRows(height: number): number {
  return Math.max(1, height - 2);
}

export function Pager({ title, body, top, width, height }: PagerProps) {
  const rows = pagerRows(height);
  let lines: string[] = [];
  let where: string;
  if (body.state === 'loaded') {
    lines = body.lines.slice(top, top + rows);
    const total = body.lines.length;
    where = total === 0 ? 'empty body' : `lines ${top + 1}–${Math.min(total, top + rows)} of ${total}${body.truncated ? ' (cut: the first MiB only)' : ''}`;
  } else if (body.state === 'error') where = body.error;
  else where = body.state === 'loading' ? 'loading…' : 'no output';
  return (
    <Box flexDirection="column" height={height} flexShrink={0}>
      <Text bold wrap="truncate">
        {fit(title, width)}
      </Text>
      <Box flexDirection="column" height={rows} flexShrink={0}>
        {lines.map((line, i) => (
          <Text key={top + i} wrap="truncate">
            {line === '' ? ' ' : fit(line, width)}
          </Text>
        ))}
      </Box>
      <Text dimColor={body.state !== 'error'} color={body.state === 'error' ? 'red' : undefined} wrap="truncate">
        {where}
      </Text>
    </Box>
  );
}
