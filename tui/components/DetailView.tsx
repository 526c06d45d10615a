// One check in full: its settings and times, a status strip over the flips
// and a sparkline of its runs, the output of its last failure (or last ping
// with a body), the recent pings and the flips as a timeline. The list row
// (kept live by the Watch) supplies status and times; GetCheck and its older
// pages supply pings and flips; GetPingBody the output.
import { Box, Text } from 'ink';
import { countdown, lastActivity } from '../countdown.js';
import { ago, bytes, dateTime, durationMs, durationSeconds, exitText, fit, periodOf, span } from '../format.js';
import { runDurations } from '../history.js';
import type { BodyState } from '../hooks/usePingBody.js';
import { labelOf } from '../labels.js';
import type { Row } from '../row.js';
import { sparkline, timeline, type Cell } from '../timeline.js';
import type { FlipMsg, PingMsg } from '../wire.js';
import { PING_COLOR, statusColor } from './theme.js';

/** Which part of the details the keys move in. */
export type Focus = 'check' | 'pings' | 'flips';

export interface DetailData {
  pings: PingMsg[];
  flips: FlipMsg[];
  /** GetCheck has answered at least once. */
  loaded: boolean;
  /** Older pings or flips remain on the daemon. */
  pingsMore: boolean;
  flipsMore: boolean;
  error: string | null;
}

interface DetailProps {
  row: Row | null;
  data: DetailData;
  /** The ping whose output is shown, and its body. */
  output: { ping: PingMsg; body: BodyState } | null;
  focus: Focus;
  /** The selected ping (an index into data.pings) and the first ping and flip shown. */
  pingIndex: number;
  pingTop: number;
  flipTop: number;
  /** The history strip's span; 0: stretched to the flips. */
  windowMs: number;
  width: number;
  height: number;
  /** Server time. */
  now: number;
}

/** Lines of output shown in the details at most; the pager shows it all. */
const OUTPUT_PREVIEW = 4;

export interface DetailLayout {
  info: string[];
  /** Lines of output shown (its last ones), 0 when there is no output. */
  outputRows: number;
  pingRows: number;
  flipRows: number;
}

function infoLines(row: Row, now: number): string[] {
  const c = row.check;
  const schedule = c.kind === 'CHECK_KIND_SIMPLE' ? periodOf(c) : `${c.schedule} (${c.tz || 'UTC'})`;
  const last = lastActivity(c);
  const info = [
    `id ${c.uuid || c.unique_key}${c.slug ? `  slug ${c.slug}` : ''}${c.tags.length ? `  tags ${c.tags.join(' ')}` : ''}`,
    `${schedule}, grace ${span(c.grace_s * 1000)}${c.manual_resume ? ', manual resume' : ''}`,
    `last ping ${ago(last, now)}${last ? ` (${dateTime(last)})` : ''}  ${countdown(c, labelOf(row), now)}` +
      `  last run ${durationMs(c.last_duration_ms)}  ${c.n_pings} pings`,
  ];
  if (c.desc) info.push(c.desc.split('\n')[0]!);
  return info;
}

/** How the details share `height` lines: fixed lines first, then output, then pings and flips 60/40. */
export function detailLayout(row: Row | null, data: DetailData, output: { body: BodyState } | null, height: number, now: number): DetailLayout {
  if (!row) return { info: [], outputRows: 0, pingRows: 0, flipRows: 0 };
  const info = infoLines(row, now);
  const runs = runDurations(data.pings).length > 0 ? 1 : 0;
  const bodyLines = output?.body.state === 'loaded' ? output.body.lines.length : 1;
  // Title, info, strip, runs, the two section titles, and the output's title.
  let room = Math.max(0, height - (1 + info.length + 1 + runs + 2 + (output ? 1 : 0)));
  const outputRows = output ? Math.min(bodyLines, OUTPUT_PREVIEW, Math.max(1, Math.floor(room / 4))) : 0;
  room = Math.max(0, room - outputRows);
  const flipRows = Math.min(Math.max(data.flips.length, 1), Math.max(1, Math.floor(room * 0.4)));
  const pingRows = Math.max(0, room - flipRows);
  return { info, outputRows, pingRows, flipRows };
}

function PingLine({ ping, now, width, selected }: { ping: PingMsg; now: number; width: number; selected: boolean }) {
  const rest = [ping.method, ping.remote_addr, ping.rid ? `rid ${ping.rid}` : '', ping.ua].filter(Boolean).join(' ');
  const body = ping.body_size > 0 ? ` [${bytes(ping.body_size)}]` : '';
  return (
    <Text wrap="truncate" inverse={selected}>
      {`${selected ? '›' : ' '} ${dateTime(ping.date_ms)} ${fit(ago(ping.date_ms, now), 8, 'right')}  `}
      <Text color={PING_COLOR[ping.type] ?? 'white'}>{fit(ping.type, 7)}</Text>
      <Text color="red">{` ${fit(exitText(ping), 7)}`}</Text>
      {` ${fit(durationSeconds(ping.duration_s), 7, 'right')}  ${fit(rest, Math.max(0, width - 53 - body.length))}`}
      <Text color="cyan">{body}</Text>
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

function cellGlyph(cell: Cell): string {
  if (cell === 'none') return ' ';
  return cell ? (STRIP_GLYPH[cell] ?? '█') : '·';
}

function Strip({ flips, now, width, windowMs, createdMs }: { flips: FlipMsg[]; now: number; width: number; windowMs: number; createdMs: number }) {
  const label = 'history ';
  const t = timeline(flips, now, Math.max(0, width - label.length - 12), { spanMs: windowMs, createdMs: createdMs || undefined });
  return (
    <Text wrap="truncate">
      {label}
      {t.cells.map((s, i) => (
        <Text key={i} color={s && s !== 'none' ? statusColor(s) : 'gray'}>
          {cellGlyph(s)}
        </Text>
      ))}
      <Text dimColor>{` last ${span(t.spanMs)}`}</Text>
    </Text>
  );
}

/** The recent runs' durations as bars (failed runs red), with the last and the longest. */
function Runs({ pings, width }: { pings: PingMsg[]; width: number }) {
  const label = 'runs    ';
  const runs = runDurations(pings);
  const shown = runs.slice(-Math.max(1, width - label.length - 34));
  const bars = sparkline(shown.map((r) => r.seconds));
  const longest = Math.max(...shown.map((r) => r.seconds));
  return (
    <Text wrap="truncate">
      {label}
      {Array.from(bars, (bar, i) => (
        <Text key={i} color={shown[i]!.failed ? 'red' : 'green'}>
          {bar}
        </Text>
      ))}
      <Text dimColor>{` last ${durationSeconds(shown.at(-1)!.seconds)}, longest ${durationSeconds(longest)} (${shown.length} runs)`}</Text>
    </Text>
  );
}

function Output({ ping, body, rows, width, now }: { ping: PingMsg; body: BodyState; rows: number; width: number; now: number }) {
  const what = [ping.type, exitText(ping), ago(ping.date_ms, now)].filter(Boolean).join(', ');
  let lines: string[] = [];
  let note = '';
  if (body.state === 'loaded') {
    lines = body.lines.slice(-rows);
    const above = body.lines.length - lines.length;
    note = above > 0 ? `  (last ${lines.length} of ${body.lines.length} lines; ⏎ all)` : '  (⏎ pager)';
  } else if (body.state === 'error') note = `  ${body.error}`;
  else note = '  loading…';
  return (
    <>
      <Text wrap="truncate">
        <Text bold>{`Output of ping #${ping.n}`}</Text>
        <Text color={PING_COLOR[ping.type] ?? 'white'}>{` (${what})`}</Text>
        <Text dimColor>{note}</Text>
      </Text>
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate" color={ping.type === 'fail' ? 'yellow' : undefined}>
          {fit(`  ${line}`, width)}
        </Text>
      ))}
      {Array.from({ length: Math.max(0, rows - lines.length) }, (_, i) => (
        <Text key={`pad${i}`}> </Text>
      ))}
    </>
  );
}

function SectionTitle({ text, focused }: { text: string; focused: boolean }) {
  return (
    <Text bold color={focused ? 'cyan' : undefined} wrap="truncate">
      {focused ? `▸ ${text}` : text}
    </Text>
  );
}

export function DetailView({ row, data, output, focus, pingIndex, pingTop, flipTop, windowMs, width, height, now }: DetailProps) {
  if (!row) {
    return (
      <Box height={height} flexShrink={0}>
        <Text color="yellow">This check no longer exists. esc goes back.</Text>
      </Box>
    );
  }
  const c = row.check;
  const label = labelOf(row);
  const { pings, flips } = data;
  const layout = detailLayout(row, data, output, height, now);
  const shownPings = pings.slice(pingTop, pingTop + layout.pingRows);
  const shownFlips = flips.slice(flipTop, flipTop + layout.flipRows);
  // Before the first answer an empty list is not yet known to be empty.
  const emptyNote = data.loaded || data.error ? '  none' : '  loading…';
  const more = (shown: number, total: number, remote: boolean) => (total > shown || remote ? `, ${remote ? 'more' : total - shown} older` : '');
  return (
    <Box flexDirection="column" height={height} flexShrink={0}>
      <Text wrap="truncate">
        <Text bold>{c.name || '(unnamed)'}</Text>
        {'  '}
        <Text color={statusColor(label)} bold>
          {label}
        </Text>
        {data.error ? <Text color="red">{`  ${data.error}`}</Text> : data.loaded ? null : <Text dimColor>{'  loading…'}</Text>}
      </Text>
      {layout.info.map((line, i) => (
        <Text key={i} wrap="truncate">
          {line}
        </Text>
      ))}
      <Strip flips={flips} now={now} width={width} windowMs={windowMs} createdMs={c.created_ms} />
      {runDurations(pings).length > 0 ? <Runs pings={pings} width={width} /> : null}
      {output ? <Output ping={output.ping} body={output.body} rows={layout.outputRows} width={width} now={now} /> : null}
      <SectionTitle
        focused={focus === 'pings'}
        text={`Recent pings (${pings.length}${data.pingsMore ? '+' : ''}, newest first${focus === 'pings' && pings.length > 0 ? `; ${pingIndex + 1} of ${pings.length}` : ''})`}
      />
      {pings.length === 0 ? (
        <Text dimColor>{emptyNote}</Text>
      ) : (
        shownPings.map((p, i) => (
          <PingLine key={p.n} ping={p} now={now} width={width} selected={focus === 'pings' && pingTop + i === pingIndex} />
        ))
      )}
      <SectionTitle
        focused={focus === 'flips'}
        text={`Flips (newest first${focus === 'flips' ? more(flipTop + shownFlips.length, flips.length, data.flipsMore) : ''})`}
      />
      {flips.length === 0 ? (
        <Text dimColor>{emptyNote}</Text>
      ) : (
        shownFlips.map((f, i) => (
          <FlipLine
            key={`${f.revision}-${flipTop + i}`}
            flip={f}
            current={flipTop + i === 0}
            lastedMs={(flipTop + i === 0 ? now : flips[flipTop + i - 1]!.timestamp_ms) - f.timestamp_ms}
          />
        ))
      )}
    </Box>
  );
}
