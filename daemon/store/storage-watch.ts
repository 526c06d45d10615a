// The storage alarm (domain/storage-alarm.ts) of a running daemon. It looks at
// the free space of the data dir's file system (statfs) and at the data the
// database holds (its quota): every few seconds, sooner when the writes let
// in since the last look may have crossed a limit, and at once when a write
// fails. While the alarm is on it refuses the writes that grow the database
// (it is the services' WriteGate); what must still be written (flips, the
// notifier's bookkeeping, the ping journal's moves) goes on from the reserve.
// It tells the log once when the alarm goes on and once when it goes off, and
// every project through the event log (Watch streams, notifications), with
// the state the log last told kept in the data so that a restart neither
// repeats nor forgets it.
import { performance } from 'node:perf_hooks';
import {
  afterWrites,
  ALARM_OFF,
  clearedReason,
  journalMoveBudget,
  mayHaveCrossed,
  nextAlarm,
  refusalText,
  storageReport,
  writeCost,
  type StorageAlarm,
  type StorageLimits,
  type StorageReading,
  type StorageReport,
} from '../domain/storage-alarm.js';
import { freeBytes, StorageAlarmError } from './write-failure.js';
import type { Store } from './store.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';

/** How often the disk is looked at while nothing asks sooner. */
export const STORAGE_POLL_MS = 2000;

/** The data the database holds is read at most this often for the looks writes ask for: it reads every database's page counts. */
const MIN_USED_GAP_MS = 100;

/** What the services ask before a write that grows the database. */
export interface WriteGate {
  /**
   * Run `write` unless the alarm is on (then it throws StorageAlarmError),
   * counting about `bodyBytes` of payload against the limits while it runs.
   */
  admit<T>(bodyBytes: number, write: () => Promise<T>): Promise<T>;
}

/** The gate of the admin commands and of anything run without a daemon: always open. */
export const OPEN_GATE: WriteGate = { admit: (_bodyBytes, write) => write() };

export class StorageWatch implements WriteGate {
  private alarm: StorageAlarm = ALARM_OFF;
  private reading: StorageReading = { freeBytes: null, usedBytes: null };
  /** Estimated bytes of the writes let in since the last look. */
  private admitted = 0;
  /** Estimated bytes of the writes let in and not finished: not yet on the disk a look sees. */
  private inFlight = 0;
  private lastLookAt = -Infinity;
  private lastUsedAt = -Infinity;
  /** The data the database held at the last read of it. */
  private usedOnDisk: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private announcing: Promise<void> | null = null;
  private announceAgain = false;
  private announceFailing = false;
  private stopped = false;
  /** The alarm is told to the projects once the daemon runs (start): the notifier's cursor exists by then. */
  private telling = false;
  private readonly unlisten: () => void;

  constructor(
    private readonly store: Store,
    private readonly limits: StorageLimits,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly pollMs = STORAGE_POLL_MS,
  ) {
    // A failed write may be a disk that filled between two looks: look now (after the failure is handled).
    this.unlisten = store.onWriteFailure(() => {
      if (performance.now() - this.lastLookAt >= MIN_USED_GAP_MS) setImmediate(() => this.look());
    });
  }

  /**
   * The first look, before the daemon writes anything: a daemon started on a
   * full disk starts with the alarm on (and says so) instead of failing.
   */
  begin(): StorageReport {
    const recorded = this.store.recordedStorageAlarm();
    this.look(recorded?.active ? (recorded.since ?? undefined) : undefined);
    return this.report();
  }

  /** Look every pollMs from now on, and tell the projects of the alarm whenever the log has not yet. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.telling = true;
    this.announce();
    this.timer = setInterval(() => this.look(), this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unlisten();
    await this.announcing;
  }

  get active(): boolean {
    return this.alarm.active;
  }

  /** The alarm now, with the reading it was decided on. */
  report(): StorageReport {
    return storageReport(this.alarm, this.reading, this.limits);
  }

  async admit<T>(bodyBytes: number, write: () => Promise<T>): Promise<T> {
    if (this.alarm.active) throw new StorageAlarmError(refusalText(this.alarm.cause!));
    const cost = writeCost(bodyBytes);
    this.admitted += cost;
    this.inFlight += cost;
    try {
      // Near a limit every write looks: a statfs, and the data at most every MIN_USED_GAP_MS.
      if (mayHaveCrossed(this.reading, this.admitted, this.limits)) {
        this.look();
        if (this.alarm.active) throw new StorageAlarmError(refusalText(this.alarm.cause!));
      }
      return await write();
    } finally {
      this.inFlight -= cost;
    }
  }

  /**
   * How much of the ping journal may be written into the checks now (domain
   * journalMoveBudget): null for all of it, else a budget of bytes (0:
   * none). Looked at afresh: the journal writer asks about once a second.
   */
  journalBudget(): number | null {
    let journal: number;
    let slack: number;
    try {
      journal = this.store.journalBytes();
      slack = this.store.fileSlackBytes();
    } catch {
      return null;
    }
    const free = freeBytes(this.store.dataDir);
    return journalMoveBudget(free === null ? null : free + slack, journal);
  }

  /** Read the disk and the database, move the alarm, tell of a change. `since` keeps a recorded alarm's start. */
  private look(since?: number): void {
    if (this.stopped) return;
    this.lastLookAt = performance.now();
    this.admitted = 0;
    if (this.lastLookAt - this.lastUsedAt >= MIN_USED_GAP_MS) {
      this.usedOnDisk = usedBytesOf(this.store);
      this.lastUsedAt = this.lastLookAt;
    }
    // The writes under way are not on the disk yet: counted as if they were,
    // so that a burst is refused before it takes the reserve, not after.
    this.reading = afterWrites({ freeBytes: freeBytes(this.store.dataDir), usedBytes: this.usedOnDisk }, this.inFlight);
    const { alarm, change } = nextAlarm(this.alarm, this.reading, this.limits, since ?? this.clock.now());
    this.alarm = alarm;
    const fields = { ...this.reading, ...this.limits, dataDir: this.store.dataDir };
    // Both at error, so that a log filtered to errors shows when it ended too.
    if (change === 'raised') this.logger.error({ ...fields, cause: alarm.cause }, `storage alarm on: ${this.report().reason}`);
    if (change === 'cleared') this.logger.error(fields, `storage alarm off: ${clearedReason(this.reading)}`);
    this.announce();
  }

  /**
   * Tell every project when the alarm differs from what the log last told:
   * one write, from the reserve, tried again at each look until it succeeds.
   */
  private announce(): void {
    if (this.stopped || !this.telling) return;
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    let recorded: StorageReport | undefined;
    try {
      recorded = this.store.recordedStorageAlarm();
    } catch {
      return;
    }
    if ((recorded?.active ?? false) === this.alarm.active) return;
    const report = storageReport(this.alarm, this.reading, this.limits, !this.alarm.active);
    this.announcing = this.store
      .recordStorageAlarm(report, this.clock.now())
      .then(
        () => {
          if (this.announceFailing) this.logger.info('the storage alarm is told to the projects now');
          this.announceFailing = false;
        },
        (err: unknown) => {
          if (!this.announceFailing) this.logger.warn({ err }, 'telling the projects of the storage alarm failed; trying again');
          this.announceFailing = true;
        },
      )
      .finally(() => {
        this.announcing = null;
        if (this.announceAgain) {
          this.announceAgain = false;
          this.announce();
        }
      });
  }
}

/** The data the database holds, null when its page counts cannot be read. */
function usedBytesOf(store: Store): number | null {
  try {
    return store.usedBytes();
  } catch {
    return null;
  }
}

/**
 * The storage alarm for a command run beside the daemon (an admin write): as
 * the daemon last recorded it, if the disk still holds it on by the daemon's
 * own limits, recorded with it; null otherwise. So a daemon stopped during an
 * alarm does not keep commands refused once space is freed.
 */
export function standingAlarm(store: Store, now: number): StorageReport | null {
  const recorded = store.recordedStorageAlarm();
  if (!recorded?.active) return null;
  // An unknown figure (null) leaves the recorded cause standing.
  const reading: StorageReading = { freeBytes: freeBytes(store.dataDir), usedBytes: usedBytesOf(store) };
  const { alarm } = nextAlarm(recorded, reading, recorded, now);
  return alarm.active ? storageReport(alarm, reading, recorded) : null;
}

/** Refuse an admin command that grows the data while the daemon's storage alarm stands. */
export function refuseDuringStorageAlarm(store: Store, now: number): void {
  const alarm = standingAlarm(store, now);
  if (alarm) throw new StorageAlarmError(`storage unavailable: ${alarm.reason}`);
}
