// Stored records → checkd.v1 messages (the shapes of proto/messages.ts).
import { displayStatus, expectedNext, graceStart, isMuted, isStarted } from '../domain/status.js';
import { tagList, uniqueKeyOf } from '../domain/ids.js';
import type { CheckRecord, FlipRecord, PingRecord } from '../domain/types.js';
import type { PingSummary, StoredEvent } from '../store/events.js';
import type { CheckMsg, FlipMsg, PingMsg, StorageAlarmMsg, WatchEventMsg } from '../../proto/messages.js';
import type { StorageReport } from '../domain/storage-alarm.js';

const KIND = { simple: 'CHECK_KIND_SIMPLE', cron: 'CHECK_KIND_CRON', oncalendar: 'CHECK_KIND_ONCALENDAR' } as const;

export function checkId(check: CheckRecord, readOnly: boolean): string {
  return readOnly ? uniqueKeyOf(check.uuid) : check.uuid;
}

/** When a check stored as down went down (Store.downSince); 0 when unknown or not down. */
export type DownSince = (check: CheckRecord) => number;

export function checkMsg(check: CheckRecord, now: number, readOnly: boolean, downSinceMs = 0): CheckMsg {
  return {
    uuid: readOnly ? '' : check.uuid,
    unique_key: uniqueKeyOf(check.uuid),
    name: check.name,
    slug: check.slug,
    tags: tagList(check.tags),
    desc: check.desc,
    status: displayStatus(check, now, 3),
    stored_status: check.status,
    started: isStarted(check),
    last_ping_ms: check.lastPing ?? 0,
    next_ping_ms: graceStart(check) ?? 0,
    expected_ms: expectedNext(check) ?? 0,
    last_start_ms: check.lastStart ?? 0,
    last_duration_ms: check.lastDuration ?? 0,
    n_pings: check.nPings,
    kind: KIND[check.kind],
    timeout_s: check.timeout,
    grace_s: check.grace,
    schedule: check.kind === 'simple' ? '' : check.schedule,
    tz: check.tz,
    manual_resume: check.manualResume,
    created_ms: check.createdAt,
    down_since_ms: check.status === 'down' ? downSinceMs : 0,
    ...policyFields(check, now, readOnly),
  };
}

/** The alert-policy fields of a check (alert-policies.md), which gRPC always carries. */
function policyFields(check: CheckRecord, now: number, readOnly: boolean) {
  const ref = (uuid: string | undefined) => (uuid === undefined ? '' : readOnly ? uniqueKeyOf(uuid) : uuid);
  return {
    max_duration_s: check.maxDuration ?? 0,
    failure_tolerance: check.failureTolerance ?? 0,
    consecutive_failures: check.consecutiveFailures ?? 0,
    muted_until_ms: isMuted(check, now) ? check.mutedUntil! : 0,
    depends_on: ref(check.dependsOn),
    suppressed_by: ref(check.hold?.parent),
  };
}

export function pingMsg(p: PingRecord | PingSummary): PingMsg {
  const msg: PingMsg = {
    n: p.n,
    type: p.kind,
    date_ms: p.date,
    rid: p.rid ?? '',
    duration_s: p.duration ?? -1,
    method: p.method,
    remote_addr: p.remoteAddr ?? '',
    ua: p.ua ?? '',
    // A summary (in an event) has the size only, absent from events older than it.
    body_size: 'body' in p ? (p.body?.length ?? 0) : (p.bodySize ?? 0),
  };
  if (p.exitStatus !== undefined && p.exitStatus !== null) msg.exit_status = p.exitStatus;
  return msg;
}

export function flipMsg(f: FlipRecord, revision: number): FlipMsg {
  return {
    timestamp_ms: f.created,
    old_status: f.oldStatus,
    new_status: f.newStatus,
    reason: f.reason,
    revision,
    held: f.held ?? '',
    failures: f.failures ?? 0,
  };
}

const EVENT_TYPE: Record<string, string> = {
  'check.created': 'EVENT_TYPE_CHECK_CREATED',
  'check.updated': 'EVENT_TYPE_CHECK_UPDATED',
  'check.deleted': 'EVENT_TYPE_CHECK_DELETED',
  'check.paused': 'EVENT_TYPE_CHECK_PAUSED',
  'check.resumed': 'EVENT_TYPE_CHECK_RESUMED',
  'status.changed': 'EVENT_TYPE_STATUS_CHANGED',
  'ping.received': 'EVENT_TYPE_PING_RECEIVED',
  flip: 'EVENT_TYPE_FLIP',
  'check.muted': 'EVENT_TYPE_CHECK_MUTED',
  'check.unmuted': 'EVENT_TYPE_CHECK_UNMUTED',
  'hold.changed': 'EVENT_TYPE_HOLD_CHANGED',
  'notification.released': 'EVENT_TYPE_NOTIFICATION_RELEASED',
  'reminder.due': 'EVENT_TYPE_REMINDER_DUE',
};

export function storageAlarmMsg(r: StorageReport): StorageAlarmMsg {
  return {
    active: r.active,
    cause: r.cause ?? '',
    reason: r.reason,
    since_ms: r.since ?? 0,
    free_bytes: r.freeBytes ?? 0,
    used_bytes: r.usedBytes ?? 0,
    reserve_bytes: r.reserveBytes,
    quota_bytes: r.quotaBytes ?? 0,
  };
}

/** The wire form of a stored event, or null for events watchers do not see. */
export function eventMsg(e: StoredEvent, now: number, readOnly: boolean, downSince: DownSince): WatchEventMsg | null {
  if (e.type === 'storage.alarm' && e.storage) {
    return { ...heartbeatMsg(e.rev, e.at, e.storage), type: 'EVENT_TYPE_STORAGE_ALARM' };
  }
  const type = EVENT_TYPE[e.type];
  if (!type || !e.checkUuid) return null;
  // The event's own flip says when its check went down; otherwise the flip log does.
  const since = (c: CheckRecord) => (e.flip?.newStatus === 'down' ? e.flip.created : downSince(c));
  return {
    revision: e.rev,
    type,
    at_ms: e.at,
    checks: e.check ? [checkMsg(e.check, now, readOnly, since(e.check))] : [],
    check_id: readOnly ? uniqueKeyOf(e.checkUuid) : e.checkUuid,
    ping: e.ping ? pingMsg(e.ping) : null,
    flip: e.flip ? flipMsg(e.flip, e.rev) : null,
    snapshot_continues: false,
  };
}

/** A heartbeat, with the storage alarm as it is now when given. */
export function heartbeatMsg(revision: number, now: number, storage?: StorageReport): WatchEventMsg {
  return {
    revision,
    type: 'EVENT_TYPE_HEARTBEAT',
    at_ms: now,
    checks: [],
    check_id: '',
    ping: null,
    flip: null,
    snapshot_continues: false,
    storage_alarm: storage ? storageAlarmMsg(storage) : null,
  };
}

/** A part of a snapshot (the whole of a small one, where `continues` is false). */
export function snapshotMsg(
  checks: CheckRecord[],
  revision: number,
  now: number,
  readOnly: boolean,
  downSince: DownSince,
  continues = false,
): WatchEventMsg {
  return {
    revision,
    type: 'EVENT_TYPE_SNAPSHOT',
    at_ms: now,
    checks: checks.map((c) => checkMsg(c, now, readOnly, downSince(c))),
    check_id: '',
    ping: null,
    flip: null,
    snapshot_continues: continues,
  };
}
