// The bottom line: key hints, or the prompt or message of the moment. One line
// only, so the table above never jumps.
import { Text } from 'ink';
import { fit } from '../format.js';
import type { Filter } from '../views.js';

export function filterSummary(f: Filter): string {
  const parts: string[] = [];
  if (f.text.trim()) parts.push(`/${f.text.trim()}`);
  if (f.tag !== null) parts.push(`#${f.tag}`);
  if (f.status !== 'all') parts.push(`status:${f.status}`);
  return parts.join(' ');
}

const LIST_HINTS = '↑↓ move  ⏎ details  / search  t tag  s status  p pause  r resume  ? help  q quit';
const DETAIL_HINTS = 'esc back  ↑↓ prev/next check  p pause  r resume  ? help  q quit';

export function HintsLine({ view, summary, shown, total, width }: { view: 'list' | 'detail'; summary: string; shown: number; total: number; width: number }) {
  if (view === 'list' && summary) {
    return (
      <Text wrap="truncate">
        <Text color="cyan">{summary}</Text>
        {`  ${shown} of ${total}  ·  esc clears  ·  ? help  q quit`}
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate">
      {fit(view === 'list' ? LIST_HINTS : DETAIL_HINTS, width)}
    </Text>
  );
}

export function SearchPrompt({ text }: { text: string }) {
  return (
    <Text wrap="truncate">
      <Text color="cyan">/</Text>
      {text}
      <Text inverse> </Text>
      <Text dimColor>{'   ⏎ keep  esc clear'}</Text>
    </Text>
  );
}

export function ConfirmPrompt({ question }: { question: string }) {
  return (
    <Text wrap="truncate" color="yellow" bold>
      {question} <Text inverse>[y/n]</Text>
    </Text>
  );
}

export function MessageLine({ text, tone }: { text: string; tone: 'info' | 'error' }) {
  return (
    <Text wrap="truncate" color={tone === 'error' ? 'red' : 'green'}>
      {text}
    </Text>
  );
}
