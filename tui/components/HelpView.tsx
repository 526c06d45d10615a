// `?`: every key on one screen. Any key closes it.
import { Box, Text } from 'ink';

const KEYS: [string, string][] = [
  ['↑ ↓  j k', 'move the cursor'],
  ['PgUp PgDn', 'move a page'],
  ['Home End  g G', 'first / last check'],
  ['⏎', 'details: recent pings and flips'],
  ['esc', 'back from details; clear filters'],
  ['/', 'search name, slug and tags (live; ⏎ keeps, esc clears)'],
  ['t  T', 'filter by tag: next / previous tag'],
  ['s  S', 'filter by status: all, problems, down, grace, …'],
  ['p', 'pause the selected check (asks y/n)'],
  ['r', 'resume the selected check (asks y/n)'],
  ['?', 'this help'],
  ['q  Ctrl-C', 'quit'],
];

export function HelpView({ height }: { height: number }) {
  return (
    <Box flexDirection="column" height={height} flexShrink={0} paddingLeft={1}>
      <Text bold>Keys</Text>
      {KEYS.slice(0, Math.max(0, height - 5)).map(([key, what]) => (
        <Text key={key} wrap="truncate">
          <Text color="cyan">{key.padEnd(16)}</Text>
          {what}
        </Text>
      ))}
      <Text> </Text>
      <Text dimColor wrap="truncate">
        Order: down, grace, running, new, up, paused; then by name.
      </Text>
      <Text dimColor wrap="truncate">
        A status that just changed is highlighted for 5 s.
      </Text>
    </Box>
  );
}
