// `?`: every key on one screen, as the key table lists them, then what else
// there is to know, as room allows. Any key closes it.
import { Box, Text } from 'ink';
import { helpLines } from '../keys.js';

const LINES = helpLines().map((l) => ({ keys: l.keys.join(' '), text: l.text }));
const KEYS_WIDTH = Math.max(...LINES.map((l) => l.keys.length)) + 2;

const NOTES = ['By status: down, grace, running, new, up, paused; then by name.', 'A status that just changed is highlighted for 5 s.'];

export function HelpView({ height }: { height: number }) {
  const keyRows = Math.min(LINES.length, Math.max(0, height - 1));
  const room = height - 1 - keyRows;
  // A blank line before the notes when there is room for it and all of them.
  const notes = NOTES.slice(0, room);
  const gap = room > NOTES.length;
  return (
    <Box flexDirection="column" height={height} flexShrink={0} paddingLeft={1}>
      <Text bold>Keys</Text>
      {LINES.slice(0, keyRows).map(({ keys, text }) => (
        <Text key={keys} wrap="truncate">
          <Text color="cyan">{keys.padEnd(KEYS_WIDTH)}</Text>
          {text}
        </Text>
      ))}
      {gap ? <Text> </Text> : null}
      {notes.map((note) => (
        <Text key={note} dimColor wrap="truncate">
          {note}
        </Text>
      ))}
    </Box>
  );
}
