// Recording a ping: classify it, apply it to the check, store the ping (and a
// flip if the status changed) in one durable transaction. Answering 200 only
// after `transact` resolves is what makes an acknowledged ping durable.
import { classifyPing, pingDuration } from '../domain/classify.js';
import { classifyEmailPing, type EmailContent } from '../domain/email-ping.js';
import { applySignal } from '../domain/status.js';
import { newCheck, validateCheckInput } from '../domain/check-input.js';
import { newUuid } from '../domain/ids.js';
import { decideFlip } from './holds.js';
import type { Clock } from '../shared/clock.js';
import type { CheckRecord, PingKind, PingRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { StoredEvent } from '../store/events.js';
import { OPEN_GATE, type WriteGate } from '../store/storage-watch.js';
import type { UrlAction } from '../domain/ping-url.js';

/** What the HTTP or SMTP layer learned from the request. */
export interface PingFacts {
  method: string;
  scheme: string;
  remoteAddr: string | null;
  ua: string;
  /** Already cut to the configured body limit. */
  body: Uint8Array;
  rid: string | null;
}

export type SlugResolution =
  | { kind: 'found' | 'created'; uuid: string }
  | { kind: 'missing' }
  | { kind: 'ambiguous' }
  /** With create: a check of that name and slug is one the API would refuse (too long). */
  | { kind: 'refused' };

/** How far back the ping-list duration looks for the matching start. */
const DURATION_LOOKBACK = 1000;

/** Brings a check up to date before a ping applies to it, inside the ping's transaction (the monitor's catch-up). */
export type BeforePing = (check: CheckRecord, now: number) => CheckRecord;

export class PingService {
  /** Set once the deadline monitor exists; until then a check is taken as stored. */
  beforePing: BeforePing = (check) => check;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Refuses pings while the storage alarm is on. */
    private readonly gate: WriteGate = OPEN_GATE,
  ) {}

  exists(uuid: string): boolean {
    return this.store.getCheck(uuid) !== undefined;
  }

  /** `exitStatus` is one the URL grammar accepted (parsePingPath refuses those above 255). */
  record(uuid: string, action: UrlAction, exitStatus: number | null, facts: PingFacts): Promise<'ok' | 'missing'> {
    return this.recordAs(uuid, exitStatus, facts, (check) => classifyPing({ action, exitStatus, method: facts.method, body: facts.body, check }));
  }

  /** An e-mail ping (ping-protocol §12): classified by the check's subject and body filters. */
  async recordEmail(uuid: string, content: EmailContent, facts: PingFacts): Promise<'ok' | 'missing'> {
    // The body's text (HTML turned into text) is made before the transaction, not while it holds the write lock.
    if (this.store.getCheck(uuid)?.filterBody) content.bodyText();
    return this.recordAs(uuid, null, facts, (check) => classifyEmailPing(content, check));
  }

  /** `classify` reads the check inside the ping's transaction, as it stands when the ping applies. */
  private recordAs(
    uuid: string,
    exitStatus: number | null,
    facts: PingFacts,
    classify: (check: CheckRecord) => PingKind,
  ): Promise<'ok' | 'missing'> {
    const now = this.clock.now();
    return this.gate.admit(facts.body.length, () => this.store.transactPing(() => {
      const stored = this.store.getCheck(uuid);
      if (!stored) return 'missing';
      const check = this.beforePing(stored, now);
      const kind = classify(check);
      const n = check.nPings + 1;
      // Read lazily: the walk usually stops at the first earlier ping. A check
      // that never started a run has no start to find.
      const timed = (kind === 'success' || kind === 'fail') && check.everStarted !== false;
      const earlier = timed ? this.store.earlierPings(check, n, DURATION_LOOKBACK) : [];
      const ping: PingRecord = {
        n,
        date: now,
        kind,
        scheme: facts.scheme,
        remoteAddr: facts.remoteAddr,
        method: facts.method,
        ua: facts.ua,
        rid: facts.rid,
        exitStatus,
        duration: pingDuration({ kind, rid: facts.rid, date: now }, earlier),
        body: facts.body.length > 0 ? facts.body : null,
      };
      const applied = applySignal(check, { kind, rid: facts.rid, now });
      const event: Omit<StoredEvent, 'rev'> = {
        at: now,
        type: 'ping.received' as const,
        projectId: check.projectId,
        checkUuid: uuid,
        ping: {
          n,
          kind,
          date: now,
          rid: facts.rid,
          duration: ping.duration,
          method: facts.method,
          remoteAddr: facts.remoteAddr,
          ua: facts.ua,
          bodySize: ping.body?.length ?? 0,
          exitStatus,
        },
      };
      if (!applied.flip) {
        // The common case, and the one that must be cheap: see store/journal.ts.
        this.store.journalPingInTxn(applied.check, ping, event);
        return 'ok';
      }
      // A flip is written with the check, so flips and checks stay in step.
      this.store.applyJournalInTxn();
      // Told now, or held by a mute, a maintenance window or a dependency (alert-policies).
      const decided = decideFlip(this.store, check, applied.check, applied.flip, now);
      this.store.insertPingInTxn(decided.check, ping, event);
      this.store.putCheckStatusInTxn(decided.check);
      this.store.insertFlipInTxn(decided.check, decided.flip, now);
      return 'ok';
    }));
  }

  /**
   * Find the check a slug ping addresses; with create, provision it (ping-protocol
   * §9: name = slug, all channels of the project, refused at twice the check limit,
   * or when the slug is longer than the API allows a name or slug).
   */
  async resolveSlug(pingKey: string, slug: string, create: boolean): Promise<SlugResolution> {
    const project = this.store.projectByPingKey(pingKey);
    if (!project) return { kind: 'missing' };
    const matching = (): CheckRecord[] => this.store.checksBySlug(project.id, slug);
    const found = matching();
    if (found.length > 1) return { kind: 'ambiguous' };
    if (found.length === 1) return { kind: 'found', uuid: found[0]!.uuid };
    if (!create) return { kind: 'missing' };
    // A check made by a ping obeys the API's limits: export and import take it back.
    if (!validateCheckInput({ name: slug, slug }).ok) return { kind: 'refused' };
    const now = this.clock.now();
    return this.gate.admit(0, () => this.store.transact((): SlugResolution => {
      const again = matching();
      if (again.length > 1) return { kind: 'ambiguous' };
      if (again.length === 1) return { kind: 'found', uuid: again[0]!.uuid };
      if (this.store.countChecks(project.id) >= 2 * project.checkLimit) return { kind: 'missing' };
      const check = newCheck({ uuid: newUuid(), badgeKey: newUuid(), projectId: project.id, createdAt: now });
      check.name = slug;
      check.slug = slug;
      check.channels = this.store.listChannels(project.id).map((c) => c.id).sort();
      this.store.insertCheckInTxn(check, now);
      return { kind: 'created', uuid: check.uuid };
    }));
  }
}
