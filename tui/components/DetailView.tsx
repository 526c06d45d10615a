// One check in full: its settings and times, a status strip over the flips,
// the recent pings and the flips as a timeline. The list row (kept live by the
// Watch) supplies status and times; GetCheck supplies pings and flips.
import { Box, Text } from 'ink';
import { ago, dateTime, durationMs, durationSeconds, fit, periodOf, span, until } from '../format.js';
import { labelOf } from '../labels.js';
import type { Row } from '../row.js';
import { timeline } from '../timeline.js';
import type { CheckDetailMsg, FlipMsg, PingMsg } from '../wire.js';
import { PING_COLOR, statusColor } from './theme.js';

interface DetailProps {
  row: Row | null;
  detail: CheckDetailMsg | null;
  error: string | null;
  width: number;
  height: number;
  /** Server time. */
  now: number;
}

function PingLine({ ping, now, width }: { ping: PingMsg; now: number; width: number }) {
  const rest = [ping.method, ping.remote_addr, ping.rid ? `rid ${ping.rid}` : '', ping.ua].filter(Boolean).join(' ');
  return (
    <Text wrap="truncate">
      {`  ${dateTime(ping.date_ms)} ${fit(ago(ping.date_ms, now), 8, 'right')}  `}
      <Text color={PING_COLOR[ping.type] ?? 'white'}>{fit(ping.type, 7)}</Text>
      {` ${fit(durationSeconds(ping.duration_s), 7, 'right')}  ${fit(rest, Math.max(0, width - 45))}`}
    </Text>
  );
}

/** `lastedMs`: how long the new status held (until the next flip, or until now). */
function FlipLine({ flip, lastedMs, current }: { flip: FlipMsg; lastedMs: number; current: boolean }) {
  return (
    <Text wrap="truncate">
      {`  ${dateTime(flip.timestamp_ms)}  `}
      <Text color={statusColor(flip.old_status)}>{fit(flip.old_status, 6, 'right')}</Text>
      {' → '}
      <Text color={statusColor(flip.new_status)} bold>
        {fit(flip.new_status, 6)}
      </Text>
      {` ${fit(flip.reason, 7)} ${current ? 'for' : 'lasted'} ${span(lastedMs)}`}
    </Text>
  );
}

/** Bar height tells the status apart where colour is missing (monochrome terminals, pasted captures). */
const STRIP_GLYPH: Record<string, string> = { up: '█', grace: '▆', new: '▃', down: '▁', paused: '░' };

function Strip({ flips, now, width }: { flips: FlipMsg[]; now: number; width: number }) {
  const label = 'history ';
  const t = timeline(flips, now, Math.max(0, width - label.length - 12));
  return (
    <Text wrap="truncate">
      {label}
      {t.cells.map((s, i) => (
        <Text key={i} color={s ? statusColor(s) : 'gray'}>
          {s ? (STRIP_GLYPH[s] ?? '█') : '·'}
        </Text>
      ))}
      <Text dimColor>{` last ${span(t.spanMs)}`}</Text>
    </Text>
  );
}

export function DetailView({ row, detail, error, width, height, now }: DetailProps) {
  if (!row) {
    return (
      <Box height={height} flexShrink={0}>
        <Text color="yellow">This check no longer exists. esc goes back.</Text>
      </Box>
    );
  }
  const c = row.check;
  const label = labelOf(row);
  const schedule = c.kind === 'CHECK_KIND_SIMPLE' ? periodOf(c) : `${c.schedule} (${c.tz || 'UTC'})`;
  const pings = detail?.pings ?? [];
  const flips = detail?.flips ?? [];
  const info: string[] = [
    `id ${c.uuid || c.unique_key}${c.slug ? `  slug ${c.slug}` : ''}${c.tags.length ? `  tags ${c.tags.join(' ')}` : ''}`,
    `${schedule}, grace ${span(c.grace_s * 1000)}${c.manual_resume ? ', manual resume' : ''}`,
    `last ping ${ago(c.last_ping_ms, now)}${c.last_ping_ms ? ` (${dateTime(c.last_ping_ms)})` : ''}  next ${until(c.expected_ms, now)}` +
      `  last run ${durationMs(c.last_duration_ms)}  ${c.n_pings} pings` +
      (c.last_start_ms ? `  running for ${span(now - c.last_start_ms)}` : ''),
  ];
  if (c.desc) info.push(c.desc.split('\n')[0]!);
  // Title, info, strip, two section titles: the rest is shared 60/40 by pings and flips.
  const room = Math.max(0, height - (1 + info.length + 1 + 2));
  const flipRows = Math.min(flips.length, Math.max(1, Math.floor(room * 0.4)));
  const pingRows = Math.max(0, room - Math.max(flipRows, 1));
  return (
    <Box flexDirection="column" height={height} flexShrink={0}>
      <Text wrap="truncate">
        <Text bold>{c.name || '(unnamed)'}</Text>
        {'  '}
        <Text color={statusColor(label)} bold>
          {label}
        </Text>
        {error ? <Text color="red">{`  ${error}`}</Text> : detail ? null : <Text dimColor>{'  loading…'}</Text>}
      </Text>
      {info.map((line, i) => (
        <Text key={i} wrap="truncate">
          {line}
        </Text>
      ))}
      <Strip flips={flips} now={now} width={width} />
      <Text bold>{`Recent pings (${pings.length}${pings.length >= 100 ? '+' : ''}, newest first)`}</Text>
      {pings.length === 0 ? (
        <Text dimColor>  none</Text>
      ) : (
        pings.slice(0, pingRows).map((p) => <PingLine key={p.n} ping={p} now={now} width={width} />)
      )}
      <Text bold>Flips (newest first)</Text>
      {flips.length === 0 ? (
        <Text dimColor>  none</Text>
      ) : (
        flips
          .slice(0, flipRows)
          .map((f, i) => (
            <FlipLine
              key={`${f.revision}-${i}`}
              flip={f}
              current={i === 0}
              lastedMs={(i === 0 ? now : flips[i - 1]!.timestamp_ms) - f.timestamp_ms}
            />
          ))
      )}
    </Box>
  );
}
