// `?`: every key on one screen, as the key table lists them. Any key closes it.
import { Box, Text } from 'ink';
import { helpLines } from '../keys.js';

const LINES = helpLines().map((l) => ({ keys: l.keys.join(' '), text: l.text }));
const KEYS_WIDTH = Math.max(...LINES.map((l) => l.keys.length)) + 2;

export function HelpView({ height }: { height: number }) {
  return (
    <Box flexDirection="column" height={height} flexShrink={0} paddingLeft={1}>
      <Text bold>Keys</Text>
      {LINES.slice(0, Math.max(0, height - 4)).map(({ keys, text }) => (
        <Text key={keys} wrap="truncate">
          <Text color="cyan">{keys.padEnd(KEYS_WIDTH)}</Text>
          {text}
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
