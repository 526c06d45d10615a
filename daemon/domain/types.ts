// Shapes of the records checkd stores. Pure data: no methods, so they round-trip
// through LMDB (msgpack) unchanged. All instants are epoch milliseconds (UTC).

export type CheckKind = 'simple' | 'cron' | 'oncalendar';

/** Only these four are ever stored; `grace` and `started` are computed at read time. */
export type StoredStatus = 'new' | 'up' | 'down' | 'paused';

/** What the API `status` field shows (v1 adds `started`). */
export type DisplayStatus = StoredStatus | 'grace' | 'started';

/** The display status of API v2 and v3, which report a run in progress in `started` instead. */
export type DisplayStatusV2 = Exclude<DisplayStatus, 'started'>;

export type ApiVersion = 1 | 2 | 3;

export interface CheckRecord {
  uuid: string;
  projectId: string;
  /** Random UUID used in the per-check badge URL; not the check UUID. */
  badgeKey: string;
  createdAt: number;
  name: string;
  slug: string;
  tags: string;
  desc: string;
  kind: CheckKind;
  /** Seconds; kept (unused) while kind is cron/oncalendar. */
  timeout: number;
  /** Seconds. */
  grace: number;
  schedule: string;
  tz: string;
  manualResume: boolean;
  methods: '' | 'POST';
  startKw: string;
  successKw: string;
  failureKw: string;
  filterSubject: boolean;
  filterBody: boolean;
  filterHttpBody: boolean;
  filterDefaultFail: boolean;
  status: StoredStatus;
  /** Last success or fail signal. */
  lastPing: number | null;
  /** Set while a run is in progress (start signal seen). */
  lastStart: number | null;
  lastStartRid: string | null;
  /** Milliseconds of the last completed run, or null. */
  lastDuration: number | null;
  /** Internal deadline: when the status may next change by itself (going-down-after). */
  alertAfter: number | null;
  nPings: number;
  /**
   * Where the ping log holds the newest ping (store/ping-log.ts): the revision
   * in its key. Absent for 0, which also holds the pings of a check that has
   * none with a revision (imported ones, older layouts).
   */
  lastPingRev?: number;
  /** Assigned channel ids. */
  channels: string[];
  /**
   * False while no start ping was ever recorded for the check: a success or
   * fail then has no run to time, and its duration needs no look back at the
   * ping log. Absent on records stored before it existed, which counts as true.
   */
  everStarted?: boolean;
  // The alert-policy extensions (alert-policies.md): each is absent while at its
  // default, so a check that uses none is stored, and shown, as before them.
  /** Seconds a started run may take before the check goes down (§1); absent: grace bounds the run. */
  maxDuration?: number;
  /** Consecutive fail signals an up check takes without going down (§2). */
  failureTolerance?: number;
  /** Fail signals since the last success, counted while failureTolerance is set (§2). */
  consecutiveFailures?: number;
  /** Notifications are held until this instant (§4.1); absent: not muted. */
  mutedUntil?: number;
  /** The check of the same project this one depends on (§5). */
  dependsOn?: string;
  /** While notifications are held (§4, §5): what the channels were last told, and why. */
  hold?: NotificationHold;
  /** While down and its channels were told so (§3): the reminders' clock. */
  downAlert?: DownAlert;
}

/** A down notification that went out, which channels with repeat_every repeat (alert-policies §3). */
export interface DownAlert {
  /** When it went out: reminder n of a channel is due `n × repeat_every` after it. */
  at: number;
  /** The last reminder sent, per channel id (absent: none yet). */
  sent: Record<string, number>;
}

/** What holds a check's notifications (alert-policies §4, §5). */
export type HoldCause = 'mute' | 'maintenance' | 'dependency';

export interface NotificationHold {
  /** The status the check's channels were last told of (`up` stands for anything not down). */
  told: 'up' | 'down';
  /** What holds them now. */
  cause: HoldCause;
  /** The down check this one depends on, directly or through the chain: `suppressed_by`. */
  parent?: string;
}

export type PingKind = 'success' | 'start' | 'fail' | 'log' | 'ign';

/** A ping's `ua` is cut to this many characters (ping-protocol §5). */
export const PING_UA_MAX = 200;

export interface PingRecord {
  n: number;
  /** Epoch ms. */
  date: number;
  kind: PingKind;
  scheme: string;
  remoteAddr: string | null;
  method: string;
  ua: string;
  rid: string | null;
  exitStatus: number | null;
  /** Seconds between the matching start and this success/fail ping, if any. */
  duration: number | null;
  /** Stored bytes of the request body (up to the configured limit), or null. */
  body: Uint8Array | null;
}

/** The last ping at or before a flip, as its notification tells of it (notifications.md §1). */
export interface LastPingInfo {
  n: number;
  kind: PingKind;
  date: number;
  remoteAddr: string | null;
  exitStatus: number | null;
  /** The whole stored body, decoded as UTF-8 (with replacement): $BODY. */
  body: string;
}

export interface FlipRecord {
  /** Epoch ms: the ping time, request time, or the exact deadline for timeouts. */
  created: number;
  oldStatus: StoredStatus;
  newStatus: StoredStatus;
  /** `duration`: a run outlived the check's max_duration (alert-policies §1). */
  reason: '' | 'fail' | 'timeout' | 'duration';
  /** Pause/resume flips are stored as already processed: never notified. */
  processed: boolean;
  /** A fail flip of a check with a failure tolerance: the consecutive failures it took (alert-policies §2). */
  failures?: number;
  /** Recorded while the check's notifications were held (alert-policies §4, §5): not told now. */
  held?: HoldCause;
}

export interface ProjectRecord {
  id: string;
  name: string;
  checkLimit: number;
  pingLogLimit: number;
  /** 22 chars of [a-z0-9], used in slug ping URLs. */
  pingKey: string;
  /** Random key in project badge URLs. */
  badgeKey: string;
  createdAt: number;
}

export interface ChannelRecord {
  id: string;
  projectId: string;
  kind: string;
  name: string;
  value: string;
  createdAt: number;
  /** Seconds between reminders while a check stays down (alert-policies §3); absent: none. */
  repeatEvery?: number;
}

/**
 * A maintenance window of a project (alert-policies §4.2): one-off (`start`,
 * `end`) or recurring (`schedule` in `tz`, each opening lasting `duration`).
 * Checks with a matching tag are muted while it is open.
 */
export interface MaintenanceWindow {
  id: string;
  projectId: string;
  name: string;
  /** Space-separated; empty: every check of the project. */
  tags: string;
  createdAt: number;
  /** One-off: epoch ms. */
  start?: number;
  end?: number;
  /** Recurring: a cron or OnCalendar expression, its kind, and the zone it is read in. */
  schedule?: string;
  scheduleKind?: Exclude<CheckKind, 'simple'>;
  tz?: string;
  /** Recurring: seconds each opening lasts. */
  duration?: number;
}

