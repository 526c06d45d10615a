// The bottom line: key hints, or the prompt or message of the moment. One line
// only, so the table above never jumps. The hints come from the key table.
import { Text } from 'ink';
import { fit } from '../format.js';
import { footerHints, type HintLine } from '../keys.js';
import type { Filter } from '../views.js';

export function filterSummary(f: Filter): string {
  const parts: string[] = [];
  if (f.text.trim()) parts.push(`/${f.text.trim()}`);
  if (f.tag !== null) parts.push(`#${f.tag}`);
  if (f.status !== 'all') parts.push(`status:${f.status}`);
  return parts.join(' ');
}

const hints = (line: HintLine, readOnly = false) => footerHints(line, { readOnly }).join('  ');

interface HintsProps {
  line: Exclude<HintLine, 'filtered'>;
  summary: string;
  shown: number;
  total: number;
  width: number;
  /** A read-only key: no hints for what it cannot do. */
  readOnly: boolean;
}

export function HintsLine({ line, summary, shown, total, width, readOnly }: HintsProps) {
  if (line === 'list' && summary) {
    const [clear, ...rest] = footerHints('filtered', { readOnly });
    return (
      <Text wrap="truncate">
        <Text color="cyan">{summary}</Text>
        {`  ${shown} of ${total}  ·  ${clear}  ·  ${rest.join('  ')}`}
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate">
      {fit(hints(line, readOnly), width)}
    </Text>
  );
}

export function SearchPrompt({ text }: { text: string }) {
  return (
    <Text wrap="truncate">
      <Text color="cyan">/</Text>
      {text}
      <Text inverse> </Text>
      <Text dimColor>{`   ${hints('search')}`}</Text>
    </Text>
  );
}

export function ConfirmPrompt({ question }: { question: string }) {
  return (
    <Text wrap="truncate" color="yellow" bold>
      {question} <Text inverse>{`[${hints('confirm')}]`}</Text>
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
