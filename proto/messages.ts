// The checkd.v1 messages as JavaScript objects, shaped by proto/checkd.ts's
// loader options (field names as in the proto, 64-bit numbers as Number, enums
// as their names, every field present with its default). Types only: the
// daemon builds them (daemon/grpc/messages.ts), checktop reads them.

export interface CheckMsg {
  uuid: string;
  unique_key: string;
  name: string;
  slug: string;
  tags: string[];
  desc: string;
  status: string;
  stored_status: string;
  started: boolean;
  last_ping_ms: number;
  next_ping_ms: number;
  expected_ms: number;
  last_start_ms: number;
  last_duration_ms: number;
  n_pings: number;
  kind: string;
  timeout_s: number;
  grace_s: number;
  schedule: string;
  tz: string;
  manual_resume: boolean;
  created_ms: number;
  /** For a check stored as down: when it went down; 0 otherwise. */
  down_since_ms: number;
  // The alert policies: always on the wire; optional here for messages made
  // by hand (tests), which stand for a check that uses none.
  max_duration_s?: number;
  failure_tolerance?: number;
  consecutive_failures?: number;
  muted_until_ms?: number;
  depends_on?: string;
  suppressed_by?: string;
}

export interface PingMsg {
  n: number;
  type: string;
  date_ms: number;
  rid: string;
  duration_s: number;
  method: string;
  remote_addr: string;
  ua: string;
  body_size: number;
  /** Absent when the ping reported no exit status. */
  exit_status?: number;
}

export interface FlipMsg {
  timestamp_ms: number;
  old_status: string;
  new_status: string;
  reason: string;
  revision: number;
  /** Recorded while notifications were held: "mute", "maintenance", "dependency"; "" when told at once. */
  held?: string;
  /** A fail flip of a check with a failure tolerance: the failures in a row. */
  failures?: number;
}

export interface ProjectMsg {
  id: string;
  name: string;
  read_only: boolean;
  revision: number;
  log_id: string;
  check_limit: number;
  n_checks: number;
  /** The daemon's storage alarm now; null (or absent, in hand-made messages) from daemons that predate it. */
  storage_alarm?: StorageAlarmMsg | null;
}

/** The daemon's storage alarm: while active, pings and API writes are refused. */
export interface StorageAlarmMsg {
  active: boolean;
  /** "free_space" or "quota"; "" when off. */
  cause: string;
  reason: string;
  since_ms: number;
  free_bytes: number;
  used_bytes: number;
  reserve_bytes: number;
  /** 0: no quota. */
  quota_bytes: number;
}

export interface CheckDetailMsg {
  /** Null only if the server left it unset; GetCheck always sets it. */
  check: CheckMsg | null;
  /** Newest first. */
  pings: PingMsg[];
  /** Newest first. */
  flips: FlipMsg[];
}

export interface WatchEventMsg {
  revision: number;
  type: string;
  at_ms: number;
  checks: CheckMsg[];
  check_id: string;
  ping: PingMsg | null;
  flip: FlipMsg | null;
  /** On a SNAPSHOT part: more parts of the same snapshot follow. */
  snapshot_continues: boolean;
  /** On STORAGE_ALARM events, and on heartbeats (the alarm now); null or absent otherwise. */
  storage_alarm?: StorageAlarmMsg | null;
}

export interface ListPingsResponseMsg {
  /** Newest first. */
  pings: PingMsg[];
  more: boolean;
}

export interface ListFlipsResponseMsg {
  /** Newest first. */
  flips: FlipMsg[];
  more: boolean;
}

export interface PingBodyMsg {
  ping: PingMsg | null;
  body: Buffer;
  truncated: boolean;
}
