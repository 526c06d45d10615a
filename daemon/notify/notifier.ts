// The notifier: follows the event log from a durable cursor, turns each
// notifiable flip into one delivery job per assigned channel (written to the
// LMDB outbox in the same transaction that moves the cursor), and works the
// outbox: at most one delivery in flight per channel, channels concurrently,
// every attempt outside any transaction and under a timeout, failures retried
// with exponential backoff until a bounded time has passed.
import { performance } from 'node:perf_hooks';
import { displayStatus, notifyEvent } from '../domain/status.js';
import { isNoop, parseChannelValue } from '../domain/channel-values.js';
import { needsValue } from '../domain/channel-kinds.js';
import { groupMembers } from '../domain/integrations/group.js';
import { checkToJson } from '../domain/representation.js';
import { newCheck } from '../domain/check-input.js';
import { deliveryIdOf, newUuid } from '../domain/ids.js';
import type { StoredEvent } from '../store/events.js';
import { NotifyStore, type DeliveryJob } from '../store/notify.js';
import { decodeBody, displayName, type Notification, type OtherChecks } from './message.js';
import { policyJobs, tellsOfFlip } from './policy-jobs.js';
import { deliver, type DeliveryResult } from './transports.js';
import { listsOtherChecks } from './kinds/index.js';
import { isStorageAlarm, storageAlarmJobs, storageEventName } from './storage-alarm.js';
import type { Store } from '../store/store.js';
import type { ChannelRecord, CheckRecord, LastPingInfo } from '../domain/types.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { NotifyConfig } from '../config/notify.js';

const SCAN_BATCH = 500;
/** How far back (pings, newest first) the last ping at or before a flip is looked for. */
const LAST_PING_LOOKBACK = 200;
/** The cursor over events that make no jobs is saved this often (and at stop). */
const CURSOR_SAVE_MS = 30_000;
/** At shutdown, deliveries in flight get this long to finish before they are cut off. */
const STOP_GRACE_MS = 1000;

function isNotifiable(ev: StoredEvent): boolean {
  if (isStorageAlarm(ev)) return true;
  return tellsOfFlip(ev) && ev.flip !== undefined && ev.check !== undefined && notifyEvent(ev.flip) !== null;
}

/** The last ping at or before `at` (notifications.md §1), from the check's ping log. */
export function lastPingAt(store: Store, uuid: string, at: number): LastPingInfo | null {
  for (const p of store.listPings(uuid, LAST_PING_LOOKBACK)) {
    if (p.date <= at) {
      return { n: p.n, kind: p.kind, date: p.date, remoteAddr: p.remoteAddr, exitStatus: p.exitStatus, body: decodeBody(p.body) };
    }
  }
  return null;
}

/** For an up flip: how long the check was down, when the flip before it went down. */
function downtimeBefore(store: Store, uuid: string, rev: number, created: number): number | null {
  const previous = store.listFlips(uuid).find((f) => f.rev < rev);
  return previous && previous.newStatus === 'down' ? Math.max(0, created - previous.created) : null;
}

function checkJson(check: CheckRecord, now: number, baseUrl: string): string {
  return JSON.stringify(checkToJson(check, { now, version: 3, readOnly: false, baseUrl, withSubject: false }));
}

/**
 * The other checks of a check's project as they are at `now` (some messages
 * list those down), read a chunk at a time so that a large project does not
 * hold pings up.
 */
export async function otherChecksAt(store: Store, check: CheckRecord, now: number): Promise<OtherChecks> {
  let total = 0;
  const down: OtherChecks['down'] = [];
  for await (const chunk of store.checkChunks({ projectId: check.projectId })) {
    for (const c of chunk) {
      if (c.uuid === check.uuid) continue;
      total++;
      if (displayStatus(c, now, 3) === 'down') down.push({ name: displayName(c), lastPing: c.lastPing });
    }
  }
  down.sort((a, b) => a.name.localeCompare(b.name, 'en'));
  return { total, down };
}

/**
 * The notification a job stands for, with `$JSON` made now from the check as
 * stored now, and (for the kinds that list them) the project's other checks.
 */
export function jobNotification(
  store: Store,
  job: DeliveryJob,
  current: CheckRecord,
  now: number,
  baseUrl: string,
  others?: OtherChecks,
): Notification {
  return {
    event: job.event,
    check: job.check,
    flip: job.flip,
    lastPing: job.lastPing,
    downtimeMs: job.downtimeMs,
    policy: job.policy,
    ...(job.storage ? { storage: job.storage } : {}),
    projectName: store.getProject(job.projectId)?.name ?? '',
    checkJson: job.storage ? JSON.stringify({ storage_alarm: job.storage }) : checkJson(current, now, baseUrl),
    test: false,
    deliveryId: deliveryIdOf(store.currentLogId(), job.flipRev, job.channelId),
    sentAt: now,
    ...(others ? { others } : {}),
  };
}

/**
 * What `checkd channel test` sends: a made-up check named TEST going down (or
 * up, for a channel that ignores down events).
 */
export function testNotification(channel: ChannelRecord, projectName: string, now: number, baseUrl: string): Notification {
  const check = newCheck({
    uuid: '00000000-0000-4000-8000-000000000000',
    badgeKey: '00000000-0000-4000-8000-000000000000',
    projectId: channel.projectId,
    createdAt: now,
  });
  check.name = 'TEST';
  check.slug = 'test';
  check.tags = 'test';
  check.desc = 'A test notification from checkd channel test.';
  const parsed = parseChannelValue(channel.kind, channel.value);
  const event = parsed.ok && isNoop(parsed.spec, 'down') ? 'up' : 'down';
  check.status = event;
  return {
    event,
    check,
    flip: { created: now, oldStatus: event === 'down' ? 'up' : 'down', newStatus: event, reason: event === 'down' ? 'fail' : '', processed: true },
    lastPing: null,
    downtimeMs: null,
    projectName,
    checkJson: checkJson(check, now, baseUrl),
    test: true,
    deliveryId: newUuid(),
    sentAt: now,
  };
}

export class Notifier {
  private readonly ns: NotifyStore;
  private memCursor = 0;
  private started = false;
  private stopped = false;
  private scanning: Promise<void> | null = null;
  private rescan = false;
  private readonly inflight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private cursorTimer: NodeJS.Timeout | null = null;
  private readonly abort = new AbortController();
  private warnedGap = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly config: NotifyConfig,
    private readonly baseUrl: string,
  ) {
    this.ns = new NotifyStore(store);
  }

  /** Make sure the cursor exists: call before anything can flip (the monitor's catch-up). */
  async init(): Promise<void> {
    this.memCursor = await this.ns.initCursor();
  }

  /** Catch up with the log from the durable cursor and work the outbox. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.cursorTimer = setInterval(() => {
      this.ns.saveCursor(this.memCursor).catch((err: unknown) => this.logger.error({ err }, 'saving the notifier cursor failed'));
    }, CURSOR_SAVE_MS);
    this.cursorTimer.unref();
    this.kick();
  }

  /** EventTail subscriber: new events may hold flips. */
  readonly onEvents = (events: StoredEvent[]): void => {
    if (!this.started || this.stopped) return;
    // The common case (pings that flip nothing): step over them without a scan.
    if (this.scanning === null && events.length > 0 && events[0]!.rev === this.memCursor + 1 && !events.some(isNotifiable)) {
      this.memCursor = events[events.length - 1]!.rev;
      return;
    }
    this.kick();
  };

  /** Told of every delivery attempt (metrics). */
  onAttempt: ((kind: string, result: 'ok' | 'failed') => void) | null = null;

  /** The newest revision the event log may be pruned up to without losing a flip for us. */
  pruneFloor(): number {
    return this.ns.cursor() ?? 0;
  }

  /** Deliveries waiting in the outbox (for tests and metrics). */
  pending(): number {
    return this.ns.totalPending();
  }

  /** Resolves when the log is read up to now and nothing is waiting or in flight (tests). */
  async idle(timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      if (this.scanning === null && this.inflight.size === 0 && this.ns.totalPending() === 0 && this.memCursor >= this.store.revision()) return;
      if (Date.now() > until) throw new Error('notifier not idle in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = (async () => {
      do {
        this.rescan = false;
        try {
          await this.scan();
        } catch (err) {
          this.logger.error({ err }, 'notifier: reading the event log failed');
        }
        this.pump();
      } while (this.rescan && !this.stopped);
    })().finally(() => {
      this.scanning = null;
    });
  }

  private async scan(): Promise<void> {
    const oldest = this.store.oldestRetainedRevision();
    if (oldest !== null && oldest > this.memCursor + 1 && !this.warnedGap) {
      this.warnedGap = true;
      this.logger.warn({ cursor: this.memCursor, oldest }, 'notifier: events were pruned before they were read; flips in between are not notified');
    }
    while (!this.stopped) {
      const batch = this.store.eventsAfter(this.memCursor, SCAN_BATCH);
      if (batch.length === 0) return;
      if (batch.some(isNotifiable)) {
        const made = await this.ns.advance(batch, (ev) => policyJobs(this.store, ev, this.select(ev)));
        if (made > 0) this.logger.debug({ jobs: made }, 'notifier: deliveries queued');
      }
      this.memCursor = batch[batch.length - 1]!.rev;
      if (batch.length < SCAN_BATCH) return;
    }
  }

  /**
   * The channels of a project that take the storage alarm's `event`: every one
   * with a value whose spec does not ignore it. A group's members are channels
   * of the project themselves, and get theirs as such.
   */
  private storageTakers(projectId: string, event: 'down' | 'up'): ChannelRecord[] {
    return this.store.listChannels(projectId).filter((channel) => {
      if (channel.kind === 'group' || needsValue(channel)) return false;
      const parsed = parseChannelValue(channel.kind, channel.value);
      return !(parsed.ok && isNoop(parsed.spec, event));
    });
  }

  /** The jobs of one event; runs inside the cursor's write transaction. */
  private select(ev: StoredEvent): DeliveryJob[] {
    // The storage alarm goes to every channel of the project, assigned to a check or not.
    if (isStorageAlarm(ev)) return storageAlarmJobs(ev, this.storageTakers(ev.projectId, storageEventName(ev)), this.clock.now());
    if (!isNotifiable(ev)) return [];
    const flip = ev.flip!;
    const check = ev.check!;
    const event = notifyEvent(flip)!;
    const channels = new Map<string, ChannelRecord>();
    const take = (channel: ChannelRecord) => {
      if (channels.has(channel.id) || needsValue(channel)) return;
      const parsed = parseChannelValue(channel.kind, channel.value);
      if (parsed.ok && isNoop(parsed.spec, event)) return;
      channels.set(channel.id, channel);
    };
    for (const id of new Set(check.channels)) {
      const channel = this.store.getChannel(id);
      if (!channel || channel.projectId !== check.projectId) continue;
      take(channel);
      // A group's members get deliveries of their own (one each, however they are assigned).
      if (channel.kind === 'group') for (const member of groupMembers(channel, (m) => this.store.getChannel(m))) take(member);
    }
    if (channels.size === 0) return [];
    const lastPing = lastPingAt(this.store, check.uuid, flip.created);
    const downtimeMs = event === 'up' ? downtimeBefore(this.store, check.uuid, ev.rev, flip.created) : null;
    const now = this.clock.now();
    return [...channels.values()].map((channel) => ({
      channelId: channel.id,
      flipRev: ev.rev,
      projectId: check.projectId,
      checkUuid: check.uuid,
      event,
      flip,
      check,
      lastPing,
      downtimeMs,
      enqueuedAt: now,
      attempts: 0,
      nextAttemptAt: now,
      lastError: '',
    }));
  }

  /** Start every due head-of-channel job whose channel is idle; arm a timer for the next. */
  private pump(): void {
    if (this.stopped || !this.started) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = this.clock.now();
    let next = Infinity;
    let heads: DeliveryJob[];
    try {
      heads = this.ns.heads();
    } catch (err) {
      this.logger.error({ err }, 'notifier: reading the outbox failed');
      return;
    }
    for (const job of heads) {
      if (this.inflight.has(job.channelId)) continue;
      if (job.nextAttemptAt > now) {
        next = Math.min(next, job.nextAttemptAt);
        continue;
      }
      if (this.inflight.size >= this.config.concurrency) break; // pumped again when one finishes
      this.run(job);
    }
    if (next !== Infinity) {
      this.timer = setTimeout(() => this.pump(), Math.min(Math.max(0, next - now), 2 ** 31 - 1));
      this.timer.unref();
    }
  }

  private run(job: DeliveryJob): void {
    const p = this.attempt(job)
      .catch((err: unknown) => this.logger.error({ err, check: job.checkUuid, channel: job.channelId }, 'notifier: delivery bookkeeping failed'))
      .finally(() => {
        this.inflight.delete(job.channelId);
        this.pump();
      });
    this.inflight.set(job.channelId, p);
  }

  private async attempt(job: DeliveryJob): Promise<void> {
    const log = { check: job.checkUuid, channel: job.channelId, event: job.event, attempt: job.attempts + 1 };
    const channel = this.store.getChannel(job.channelId);
    if (!channel) {
      await this.ns.drop(job);
      this.logger.info({ ...log, result: 'dropped' }, 'notification dropped: the channel does not exist any more');
      return;
    }
    const current = job.storage ? job.check : this.store.getCheck(job.checkUuid);
    if (!current) {
      // Deleted since it flipped: nothing to tell (upstream drops these too). The channel's status is left alone.
      await this.ns.drop(job);
      this.logger.info({ ...log, kind: channel.kind, result: 'dropped' }, 'notification dropped: the check does not exist any more');
      return;
    }
    const now = this.clock.now();
    const others = listsOtherChecks(channel.kind) && !job.storage ? await otherChecksAt(this.store, current, now) : undefined;
    const n = jobNotification(this.store, job, current, now, this.baseUrl, others);
    const t0 = performance.now();
    let result: DeliveryResult;
    try {
      result = await deliver(channel, n, this.config, this.abort.signal, { now });
    } catch {
      result = { ok: false, error: 'Delivery failed', permanent: false };
    }
    if (result.channelValue !== undefined) await this.moveChannel(channel, result.channelValue, log);
    const durationMs = Math.round(performance.now() - t0);
    const at = this.clock.now();
    const fields = { ...log, kind: channel.kind, durationMs };
    this.onAttempt?.(channel.kind, result.ok ? 'ok' : 'failed');
    if (result.ok) {
      await this.ns.succeed(job, at, durationMs);
      this.logger.info({ ...fields, result: result.noop ? 'noop' : 'delivered' }, 'notification delivered');
      return;
    }
    if (this.abort.signal.aborted) {
      // Shutting down: the job stays in the outbox and is tried again after the restart.
      this.logger.info({ ...fields, result: 'interrupted' }, 'notification interrupted by shutdown');
      return;
    }
    const attempts = job.attempts + 1;
    if (result.permanent || at - job.enqueuedAt >= this.config.giveUpAfterMs) {
      const error = result.permanent ? result.error : `${result.error} (gave up after ${attempts} attempts)`;
      await this.ns.giveUp(job, at, durationMs, error);
      this.logger.warn({ ...fields, result: 'failed', error }, 'notification failed, given up');
      return;
    }
    // A wait the service (or its stated rate limit) asked for replaces the backoff.
    const delay = result.retryAfterMs ?? Math.min(this.config.retryBaseMs * 2 ** Math.min(job.attempts, 40), this.config.retryMaxDelayMs);
    await this.ns.retryLater(job, at, durationMs, result.error, at + delay);
    this.logger.info({ ...fields, result: 'retrying', error: result.error, retryInMs: delay }, 'notification failed, will retry');
  }

  /** Store the value a service said the channel has now; a failure to store it only costs a detour next time. */
  private async moveChannel(channel: ChannelRecord, value: string, log: Record<string, unknown>): Promise<void> {
    try {
      await this.store.updateChannel(channel.id, { value }, this.clock.now());
      this.logger.info({ ...log, kind: channel.kind }, 'channel destination moved; its value is updated');
    } catch (err) {
      this.logger.error({ ...log, err }, 'storing the moved channel destination failed');
    }
  }

  /** Stop taking work, let deliveries in flight finish briefly, then cut them off. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.cursorTimer) clearInterval(this.cursorTimer);
    await this.scanning;
    const all = () => Promise.allSettled([...this.inflight.values()]);
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise((r) => (grace = setTimeout(r, STOP_GRACE_MS)))]);
    clearTimeout(grace);
    this.abort.abort();
    await all();
    try {
      if (this.started) await this.ns.saveCursor(this.memCursor);
    } catch (err) {
      this.logger.error({ err }, 'saving the notifier cursor failed');
    }
  }
}
