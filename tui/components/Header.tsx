// Two lines on every screen: who and how connected (line 1: the project, or
// all projects with the one shown first in bold, the link and the time), and
// how many checks are in which state in what order (line 2), or since when
// the link is down and why.
import { Box, Text } from 'ink';
import { clockTime, displayWidth, fit, span } from '../format.js';
import { LABELS, type Counts } from '../labels.js';
import type { ConnectionInfo } from '../state.js';
import type { StorageAlarmMsg } from '../wire.js';
import { LABEL_COLOR } from './theme.js';

/** What the header shows of a project that is not on screen. */
export interface ProjectTab {
  name: string | null;
  down: number;
  live: boolean;
}

interface HeaderProps {
  projectName: string | null;
  readOnly: boolean;
  connection: ConnectionInfo;
  counts: Counts;
  /** The table's order, right on line 2 while the link is up. */
  sortText: string;
  /** Every project, when there are several, and which is on screen. */
  tabs: readonly ProjectTab[];
  active: number;
  /** Local time: the clock shows the operator's wall time. */
  now: number;
  width: number;
  /** The daemon's storage alarm: a red marker while it is on (pings and API writes are refused). */
  storageAlarm?: StorageAlarmMsg | null;
}

/** The connection cell: short enough that the project name keeps most of the line. */
export function connectionText(c: ConnectionInfo, now: number): { text: string; color: string } {
  if (c.state === 'live') return { text: '● live', color: 'green' };
  const verb = c.state === 'connecting' ? 'connecting…' : 'reconnecting…';
  if (c.retryAt <= 0) return { text: verb, color: 'yellow' };
  const left = Math.ceil((c.retryAt - now) / 1000);
  return { text: left > 0 ? `${verb} retry in ${left}s` : verb, color: 'yellow' };
}

/** "disconnected 20:33:45 (3m)": since when the link is down, when it was up before. */
export function disconnectedText(c: ConnectionInfo, now: number): string | null {
  if (c.state === 'live' || !c.since) return null;
  return `disconnected ${clockTime(c.since)} (${span(now - c.since)})`;
}

/** The marker of a storage alarm that is on ("DISK FULL", "QUOTA FULL"), or null. */
export function storageMarker(alarm: StorageAlarmMsg | null | undefined): string | null {
  if (!alarm?.active) return null;
  return alarm.cause === 'quota' ? 'QUOTA FULL' : 'DISK FULL';
}

const tabName = (tab: ProjectTab, i: number) => `${i + 1} ${tab.name ?? '…'}`;
const downSuffix = (tab: ProjectTab) => (tab.down > 0 ? ` (${tab.down} down)` : '');
const linkSuffix = (tab: ProjectTab) => (tab.live ? '' : ' (link down)');

/** The tabs as plain text, as wide as Tabs draws them: the title pads to it. */
function tabsText(tabs: readonly ProjectTab[], active: number): string {
  return tabs.map((t, i) => ` ${tabName(t, i)}${i === active ? '' : downSuffix(t) + linkSuffix(t)} `).join('');
}

/** The projects as tabs, each padded by a space: "1 acme-prod  2 staging (2 down)  3 lab (link down)". */
function Tabs({ tabs, active }: { tabs: readonly ProjectTab[]; active: number }) {
  return (
    <>
      {tabs.map((tab, i) => {
        if (i === active) {
          return (
            <Text key={i} bold inverse>
              {` ${tabName(tab, i)} `}
            </Text>
          );
        }
        return (
          <Text key={i}>
            {` ${tabName(tab, i)}`}
            {tab.down > 0 ? <Text color="red" bold>{downSuffix(tab)}</Text> : null}
            {tab.live ? null : <Text color="yellow">{linkSuffix(tab)}</Text>}
            {' '}
          </Text>
        );
      })}
    </>
  );
}

export function Header({ projectName, readOnly, connection, counts, sortText, tabs, active, now, width, storageAlarm }: HeaderProps) {
  const conn = connectionText(connection, now);
  const marker = storageMarker(storageAlarm);
  const markerText = marker ? ` ${marker} ` : '';
  const right = `${markerText ? markerText + ' ' : ''}${conn.text}  ${clockTime(now)}`;
  const titleWidth = Math.max(0, width - right.length - 1);
  const reason = connection.state !== 'live' && connection.error ? connection.error : '';
  const disconnected = disconnectedText(connection, now);
  const countsText = `${counts.total} checks  ${LABELS.map((label) => `${counts[label]} ${label}`).join(' ')}`;
  const gap = width - displayWidth(countsText) - displayWidth(sortText);
  let title;
  if (tabs.length > 1) {
    const plain = `checktop ·${tabsText(tabs, active)}${readOnly ? ' (read-only)' : ''}`;
    title = (
      <Box width={titleWidth} flexShrink={0}>
        <Text wrap="truncate">
          <Text bold>{'checktop ·'}</Text>
          <Tabs tabs={tabs} active={active} />
          {readOnly ? ' (read-only)' : ''}
          {' '.repeat(Math.max(0, titleWidth - displayWidth(plain)))}
        </Text>
      </Box>
    );
  } else {
    title = <Text bold>{fit(`checktop · ${projectName ?? '…'}${readOnly ? ' (read-only)' : ''}`, titleWidth)}</Text>;
  }
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Box>
        {title}
        <Text wrap="truncate">
          {' '}
          {markerText ? (
            <>
              <Text color="red" bold inverse>
                {markerText}
              </Text>{' '}
            </>
          ) : null}
          <Text color={conn.color}>{conn.text}</Text>
          {'  ' + clockTime(now)}
        </Text>
      </Box>
      {disconnected ? (
        <Text wrap="truncate" color="yellow">
          <Text bold>{disconnected}</Text>
          {reason ? `  ${reason}` : ''}
        </Text>
      ) : (
        <Text wrap="truncate">
          {`${counts.total} checks `}
          {LABELS.map((label) => (
            <Text key={label} color={counts[label] > 0 ? LABEL_COLOR[label] : 'gray'} bold={counts[label] > 0 && (label === 'down' || label === 'grace')}>
              {` ${counts[label]} ${label}`}
            </Text>
          ))}
          {/* The reason the link is down goes where the counts' spare room is; otherwise the order. */}
          {reason ? <Text color="yellow">{'  ' + reason}</Text> : gap >= 2 ? <Text dimColor>{' '.repeat(gap) + sortText}</Text> : null}
        </Text>
      )}
    </Box>
  );
}
