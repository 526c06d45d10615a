// Wire-shaped checks and events for the checktop tests (not a test file).
import type { CheckMsg, WatchEventMsg } from '../../tui/wire.js';

export const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);

let seq = 0;

/** An up check pinged a minute before T0, every hour, grace 5 minutes. */
export function check(overrides: Partial<CheckMsg> = {}): CheckMsg {
  seq++;
  const uuid = overrides.uuid ?? `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
  return {
    uuid,
    unique_key: `uk${seq}`,
    name: `check-${seq}`,
    slug: '',
    tags: [],
    desc: '',
    status: 'up',
    stored_status: 'up',
    started: false,
    last_ping_ms: T0 - 60_000,
    next_ping_ms: T0 - 60_000 + 3600_000,
    expected_ms: T0 - 60_000 + 3600_000,
    last_start_ms: 0,
    last_duration_ms: 0,
    n_pings: 1,
    kind: 'CHECK_KIND_SIMPLE',
    timeout_s: 3600,
    grace_s: 300,
    schedule: '',
    tz: 'UTC',
    manual_resume: false,
    created_ms: T0 - 86_400_000,
    down_since_ms: 0,
    ...overrides,
  };
}

export function snapshot(checks: CheckMsg[], revision = 10, at = T0): WatchEventMsg {
  return { revision, type: 'EVENT_TYPE_SNAPSHOT', at_ms: at, checks, check_id: '', ping: null, flip: null, snapshot_continues: false };
}

export function event(type: string, revision: number, c: CheckMsg | null, extra: Partial<WatchEventMsg> = {}): WatchEventMsg {
  return {
    revision,
    type,
    at_ms: T0,
    checks: c ? [c] : [],
    check_id: c ? c.uuid || c.unique_key : '',
    ping: null,
    flip: null,
    snapshot_continues: false,
    ...extra,
  };
}

export const down = (o: Partial<CheckMsg> = {}) => check({ status: 'down', stored_status: 'down', expected_ms: 0, next_ping_ms: 0, ...o });
export const paused = (o: Partial<CheckMsg> = {}) =>
  check({ status: 'paused', stored_status: 'paused', expected_ms: 0, next_ping_ms: 0, ...o });
export const fresh = (o: Partial<CheckMsg> = {}) =>
  check({ status: 'new', stored_status: 'new', expected_ms: 0, next_ping_ms: 0, last_ping_ms: 0, n_pings: 0, ...o });
