// The storage alarm told to a project's channels: one notification when it
// goes on and one when it goes off, made from the storage.alarm event of the
// project and sent through the same outbox, transports and retries as a
// check's flips. It stands as a check named "checkd storage" that goes down
// (the alarm is on) and comes up again (it is off), so that every channel
// kind and every template reads it without a form of its own; the sentence
// under the headline says why.
import { newCheck } from '../domain/check-input.js';
import { isoSeconds } from '../domain/format.js';
import { sizeText } from '../domain/text-values.js';
import type { StorageReport } from '../domain/storage-alarm.js';
import type { ChannelRecord, CheckRecord } from '../domain/types.js';
import type { StoredEvent } from '../store/events.js';
import type { DeliveryJob } from '../store/notify.js';
import type { Notification } from './notification.js';

export const STORAGE_CHECK_NAME = 'checkd storage';

/** The made-up check the alarm's notifications speak of: never stored. */
const STORAGE_CHECK_UUID = '00000000-0000-4000-8000-000000000000';

function storageCheck(projectId: string, at: number, active: boolean): CheckRecord {
  const check = newCheck({ uuid: STORAGE_CHECK_UUID, badgeKey: STORAGE_CHECK_UUID, projectId, createdAt: at });
  check.name = STORAGE_CHECK_NAME;
  check.slug = 'checkd-storage';
  check.status = active ? 'down' : 'up';
  return check;
}

/** Whether the event tells of the storage alarm. */
export function isStorageAlarm(ev: StoredEvent): ev is StoredEvent & { storage: StorageReport } {
  return ev.type === 'storage.alarm' && ev.storage !== undefined;
}

/** "down" when the alarm went on, "up" when it went off. */
export function storageEventName(ev: StoredEvent & { storage: StorageReport }): 'down' | 'up' {
  return ev.storage.active ? 'down' : 'up';
}

/** One job per channel of the project that takes the event (`channels`, already chosen). */
export function storageAlarmJobs(ev: StoredEvent & { storage: StorageReport }, channels: ChannelRecord[], now: number): DeliveryJob[] {
  const event = storageEventName(ev);
  const check = storageCheck(ev.projectId, ev.at, ev.storage.active);
  const flip = { created: ev.at, oldStatus: event === 'down' ? 'up' : 'down', newStatus: event, reason: '', processed: true } as const;
  return channels.map((channel) => ({
    channelId: channel.id,
    flipRev: ev.rev,
    projectId: ev.projectId,
    checkUuid: check.uuid,
    event,
    flip,
    check,
    lastPing: null,
    downtimeMs: event === 'up' && ev.storage.since !== null ? Math.max(0, ev.at - ev.storage.since) : null,
    storage: ev.storage,
    enqueuedAt: now,
    attempts: 0,
    nextAttemptAt: now,
    lastError: '',
  }));
}

/** The rows under the alarm's headline (e-mail, chat, ntfy), in place of a check's. */
export function storageRows(n: Notification, storage: StorageReport): Array<[string, string]> {
  const rows: Array<[string, string]> = [['Project', n.projectName]];
  if (storage.freeBytes !== null) rows.push(['Free Space', `${sizeText(storage.freeBytes)} (reserve ${sizeText(storage.reserveBytes)})`]);
  if (storage.usedBytes !== null) {
    rows.push(['Data', `${sizeText(storage.usedBytes)}${storage.quotaBytes === null ? '' : ` (quota ${sizeText(storage.quotaBytes)})`}`]);
  }
  rows.push(['Status Changed', isoSeconds(n.flip.created)]);
  return rows;
}
