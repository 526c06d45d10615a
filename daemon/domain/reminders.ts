// Repeated alerts (alert-policies §3): while a check stays down after its
// down notification went out, each of its channels with a repeat_every gets
// reminder n at `n × repeat_every` after it. After a pause in the cadence (the
// daemon stopped, a mute, a maintenance window) only the latest reminder due
// is sent, once, and the cadence goes on from there. Pure.
import type { ChannelRecord, CheckRecord } from './types.js';

const SECOND = 1000;

export interface DueReminder {
  channelId: string;
  /** 1 for the first reminder. */
  number: number;
}

/** The check's channels that repeat: assigned to it, of its project, with a repeat_every. */
export function repeatingChannels(check: CheckRecord, channelOf: (id: string) => ChannelRecord | undefined): ChannelRecord[] {
  const out: ChannelRecord[] = [];
  for (const id of new Set(check.channels)) {
    const c = channelOf(id);
    if (c && c.projectId === check.projectId && c.repeatEvery) out.push(c);
  }
  return out;
}

/** The reminders due at `now`, one per channel at most (its latest number due); none unless down and told so. */
export function dueReminders(check: CheckRecord, channels: readonly ChannelRecord[], now: number): DueReminder[] {
  const alert = check.downAlert;
  if (check.status !== 'down' || !alert) return [];
  const due: DueReminder[] = [];
  for (const c of channels) {
    const number = Math.floor((now - alert.at) / (c.repeatEvery! * SECOND));
    if (number > (alert.sent[c.id] ?? 0)) due.push({ channelId: c.id, number });
  }
  return due;
}

/** The check after sending `due`: each channel's count moves to the number sent. */
export function markReminded(check: CheckRecord, due: readonly DueReminder[]): CheckRecord {
  const sent = { ...check.downAlert!.sent };
  for (const r of due) sent[r.channelId] = r.number;
  return { ...check, downAlert: { ...check.downAlert!, sent } };
}

/** When the next reminder of the check falls due; null for none. */
export function nextReminderAt(check: CheckRecord, channels: readonly ChannelRecord[]): number | null {
  const alert = check.downAlert;
  if (check.status !== 'down' || !alert) return null;
  let next: number | null = null;
  for (const c of channels) {
    const at = alert.at + ((alert.sent[c.id] ?? 0) + 1) * c.repeatEvery! * SECOND;
    if (next === null || at < next) next = at;
  }
  return next;
}
