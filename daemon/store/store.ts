// The persistence facade: typed reads and the write transactions of checkd.
// Every write goes through `transact` (or `transactPing` for a ping), which
// appends to the event log in the same LMDB transaction and resolves only
// once the commit is flushed to disk; the events it appended then go to the
// commit listener (the event tail), so no write can leave them unannounced.
// Reads include the checks of journaled pings not yet written into their records (journal.ts),
// so callers never see the difference.
import { setImmediate } from 'node:timers/promises';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { closeDb, DATA_FILE, openDb } from './db.js';
import { notedDatabases, registerEnvironment } from './environment.js';
import { upgradeSchema } from './migrations.js';
import type { ApiKeyRecord, Db } from './schema.js';
import { fsyncPath } from '../shared/fsync.js';
import { assertIndexable, checkCount, checkEdits, countCheck, indexCheck, noteCheckEdit, noteCheckEdits, reindexCheck, setCheckCount, unindexCheck, uuidsByField, type IndexedField } from './check-indexes.js';
import { bulkLoadChecks, putInOrder, type BulkChecks } from './bulk-load.js';
export { CheckExistsError, type BulkChecks, type CheckEncoding, type EncodedCheck } from './bulk-load.js';
import { appendEvent, appendEvents, currentRevision, oldestRetainedRevision, pruneEvents, readEventsAfter, type StoredEvent } from './events.js';
import { APPLY_BYTES_PER_PING, applyJournal, appliedRevision, isJournaled, markApplied, oldestJournaledRevision, readJournal } from './journal.js';
import { PendingPings, type PendingPing } from './pending.js';
import { pingsOf, putImportedPing, putPing } from './ping-log.js';
import { keyFits } from './key-size.js';
import { API_KEY_PREFIX_LENGTH, hashApiKey, newApiKey, newPingKey, newSecret, newUuid, uniqueKeyOf } from '../domain/ids.js';
import type {
  ChannelRecord,
  CheckRecord,
  FlipRecord,
  MaintenanceWindow,
  PingRecord,
  ProjectRecord,
} from '../domain/types.js';
import { asEncoded, encoderOf, forWriting } from './schema.js';
import type { StorageReport } from '../domain/storage-alarm.js';

/** A place in a project's creation order: just after the check created at `createdAt` with `uuid`. */
export interface ListPosition {
  createdAt: number;
  uuid: string;
}

export interface AuthResult {
  project: ProjectRecord;
  readOnly: boolean;
}

/**
 * Checks read at a time by a walk over many (checkChunks): ~10 ms of reading
 * and decoding, short enough that pings waiting behind it do not notice.
 */
const CHECK_CHUNK = 2000;

/** Told of the transactions of this process that appended events (the event tail). */
export interface CommitListener {
  /**
   * The events one appended, as soon as it committed: handed over in memory so
   * that they need not be read back and decoded. Not durable yet.
   */
  committed(events: StoredEvent[]): void;
  /** That transaction is durable now: its events may be delivered. */
  durable(): void;
}

/** What lmdb-js's getStats tells of one database's tree (LMDB's MDB_stat). */
interface TreeStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

/** ... and of the environment, on the root database. */
interface EnvStats extends TreeStats {
  free: TreeStats;
  lastPageNumber: number;
}

function treePages(s: TreeStats): number {
  return s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages;
}

/** A ping's transaction, waiting for or run in its batch (Store.transactPing). */
interface PingTxn {
  fn: () => unknown;
  appended: StoredEvent[];
  journaled: Array<[string, PendingPing]>;
  result: unknown;
  threw: boolean;
  error: unknown;
}

/** Ping transactions run in one lmdb-js transaction callback; `committed` settles with its commit. */
interface PingBatch {
  txns: PingTxn[];
  /** Null only while the transaction is being asked for. */
  committed: Promise<unknown> | null;
}

export class Store {
  private readonly pending = new PendingPings();
  private readonly journaled = (rev: number, uuid: string, n: number): boolean => isJournaled(this.db, rev, uuid, n);
  /** Where appends of the transaction callback running now go (null outside one). */
  private appended: StoredEvent[] | null = null;
  /** Inside transactPing: the pending entries its callback added, taken back if the commit fails. */
  private journaledInTxn: Array<[string, PendingPing]> | null = null;
  /** Only committed transactions are told; any event it was not told of is still read from the log. */
  private commitListener: CommitListener | null = null;

  private constructor(
    /** Only the store's own modules reach it (environment.ts). */
    private readonly db: Db,
    /** The data dir, for messages about it (a full disk, a failed write). */
    readonly dataDir: string,
    private readonly readOnly: boolean,
  ) {
    registerEnvironment(this, db);
    // Pings journaled by a process that stopped before applying them.
    for (const e of readJournal(db)) this.pending.add(e.uuid, { rev: e.rev, check: e.check });
  }

  /** Open the data dir `dir`, upgrading an older layout when opened for writing. */
  static open(dir: string, opts: { readOnly?: boolean; mapSize?: number } = {}): Store {
    const db = openDb(dir, opts);
    try {
      upgradeSchema(db, dir, opts);
    } catch (err) {
      void db.root.close();
      throw err;
    }
    return new Store(db, dir, opts.readOnly ?? false);
  }

  /**
   * `applyJournal: false` leaves journaled pings for the next writer to apply
   * (the daemon on a disk too full to move them: storage-watch.ts).
   */
  async close(opts: { applyJournal?: boolean } = {}): Promise<void> {
    // Best effort: pings left in the journal are durable and applied by the next writer.
    if (!this.readOnly && this.pending.size > 0 && opts.applyJournal !== false) await this.applyJournal().catch(() => undefined);
    await closeDb(this.db);
  }

  /**
   * Run `fn` inside one write transaction and wait until it is durable.
   * The journal is applied first, so `fn` reads and writes current records.
   * `fn` must do all its validation before its first write: an exception after
   * a write would leave a half-applied batch.
   */
  async transact<T>(fn: () => T): Promise<T> {
    let current = 0;
    const appended: StoredEvent[] = [];
    let result: T;
    try {
      result = await this.db.root.transaction(() =>
        this.collectingAppends(appended, () => {
          current = this.applyJournalInTxn();
          return fn();
        }),
      );
    } catch (err) {
      this.commitFailed();
      throw err;
    }
    this.pending.forgetUpTo(current);
    return this.afterCommit(appended, result);
  }

  /** After a commit: the listener hears of its events, then again once they are on disk. */
  private async afterCommit<T>(appended: StoredEvent[], result: T): Promise<T> {
    this.committed(appended);
    await this.flushedDurably();
    this.durable(appended);
    return result;
  }

  /** Woken when a transaction of this process fails: see flushedDurably. */
  private readonly onCommitFailure = new Set<() => void>();

  /**
   * Resolves once what this process committed is on disk. lmdb-js's `flushed`
   * waits for the batch being written now, and when that batch fails (a full
   * disk) its flush callbacks are dropped and never called: pings committed
   * before it were left unanswered for ever, and their clients' retries stored
   * them twice. So a failure seen meanwhile wakes the waiters, which flush the
   * data file themselves: one fsync covers every page committed before it.
   */
  private flushedDurably(): Promise<void> {
    // Every commit that resumes its waiter in this run of microtasks was made
    // before it, so one wait covers them all: the pings of a batch share it.
    if (this.flushWait === null) {
      this.flushWait = this.waitForFlush();
      queueMicrotask(() => (this.flushWait = null));
    }
    return this.flushWait;
  }

  /** The wait shared by the commits that resumed in this run of microtasks (flushedDurably). */
  private flushWait: Promise<void> | null = null;

  private waitForFlush(): Promise<void> {
    return new Promise((resolve, reject) => {
      const wake = () => {
        this.onCommitFailure.delete(wake);
        try {
          fsyncPath(join(this.dataDir, DATA_FILE));
          resolve();
        } catch (err) {
          reject(err);
        }
      };
      this.onCommitFailure.add(wake);
      this.db.root.flushed.then(
        () => {
          this.onCommitFailure.delete(wake);
          resolve();
        },
        (err: unknown) => {
          this.onCommitFailure.delete(wake);
          reject(err);
        },
      );
    });
  }

  private commitFailed(): void {
    for (const wake of [...this.onCommitFailure]) wake();
    for (const fn of this.writeFailureListeners) fn();
  }

  private readonly writeFailureListeners = new Set<() => void>();

  /** Told when a write transaction of this process fails (a full disk: storage-watch.ts looks again). */
  onWriteFailure(fn: () => void): () => void {
    this.writeFailureListeners.add(fn);
    return () => this.writeFailureListeners.delete(fn);
  }

  /**
   * The transaction of a ping: like `transact`, but without applying the
   * journal, so that it costs two appends (its event and its journal entry).
   * `fn` records the ping with `journalPingInTxn`, or, for a ping that needs
   * more than that, calls `applyJournalInTxn` and writes directly.
   * The pings asked for before LMDB's next write transaction begins run in one
   * lmdb-js transaction callback, one after the other, as lmdb-js would run
   * theirs: its machinery per callback cost the thread that answers pings more
   * than the ping's own writes.
   */
  transactPing<T>(fn: () => T): Promise<T> {
    const txn: PingTxn = { fn, appended: [], journaled: [], result: undefined, threw: false, error: undefined };
    const batch = this.openPingBatch;
    const committed = batch === null ? this.startPingBatch(txn) : (batch.txns.push(txn), batch.committed!);
    return committed.then(
      () => this.pingCommitted(txn) as Promise<T>,
      (err: unknown) => {
        // A refused commit (a full disk) wrote nothing: its pings must not stay in
        // memory, where every refused ping's body would pile up until the next
        // journal apply that succeeds.
        for (const [uuid, entry] of txn.journaled) this.pending.remove(uuid, entry);
        throw err;
      },
    );
  }

  /** The batch of ping transactions that LMDB's next write transaction will run. */
  private openPingBatch: PingBatch | null = null;

  /** Open a batch with `first` in it; resolves once its write transaction commits. */
  private startPingBatch(first: PingTxn): Promise<unknown> {
    const batch: PingBatch = { txns: [first], committed: null };
    this.openPingBatch = batch;
    const committed = this.db.root.transaction(() => {
      // Pings asked for from now on wait for the next write transaction.
      if (this.openPingBatch === batch) this.openPingBatch = null;
      for (const txn of batch.txns) this.runPingTxn(txn);
    });
    committed.catch(() => this.commitFailed());
    batch.committed = committed;
    return committed;
  }

  /** Inside the batch's write transaction: one ping's `fn`, its appends collected apart. */
  private runPingTxn(txn: PingTxn): void {
    this.journaledInTxn = txn.journaled;
    try {
      txn.result = this.collectingAppends(txn.appended, txn.fn);
    } catch (err) {
      // What it wrote before it threw commits with the batch, as in a callback of its own.
      txn.threw = true;
      txn.error = err;
    } finally {
      this.journaledInTxn = null;
    }
  }

  private pingCommitted(txn: PingTxn): Promise<unknown> {
    if (txn.threw) return Promise.reject(txn.error);
    return this.afterCommit(txn.appended, txn.result);
  }

  /**
   * A write transaction that changes no check and no ping log (the notifier's
   * outbox, the storage alarm's events): like a ping's, it does not move the
   * journal first, so it writes no more than its own records. On a disk with
   * little room left, moving the journal may not fit, and these must go on.
   */
  transactAside<T>(fn: () => T): Promise<T> {
    return this.transactPing(fn);
  }

  /** Inside a write transaction: run `fn`, its event appends also collected in `appended`. */
  private collectingAppends<T>(appended: StoredEvent[], fn: () => T): T {
    this.appended = appended;
    try {
      return fn();
    } finally {
      this.appended = null;
    }
  }

  /** Set the one commit listener; returns what takes it off again. */
  listenToCommits(listener: CommitListener): () => void {
    this.commitListener = listener;
    return () => {
      if (this.commitListener === listener) this.commitListener = null;
    };
  }

  private committed(appended: StoredEvent[]): void {
    if (appended.length > 0) this.commitListener?.committed(appended);
  }

  private durable(appended: StoredEvent[]): void {
    if (appended.length > 0) this.commitListener?.durable();
  }

  /** Inside a write transaction: append an event (events.ts), collected for the commit listener. */
  private append(event: Omit<StoredEvent, 'rev'>): number {
    return appendEvent(this.db, event, this.appended ?? undefined);
  }

  /**
   * Append a ping's ping.received event stored without its check (`check`, as
   * it is after the ping): readers of the log fill it in (eventsAfter), and a
   * flip's own event carries it. The put has encoded the event, so the check
   * joins it afterwards only for this process's readers. Returns its revision.
   */
  private appendPingEvent(event: Omit<StoredEvent, 'rev'>, check: CheckRecord): number {
    const rev = this.append(event);
    event.check = check;
    return rev;
  }

  /**
   * Write the journal into the checks now, or its oldest `maxBytes` worth, and
   * sweep the ping log (the daemon's JournalWriter does it about once a
   * second). Resolves with the revision the checks are then current with.
   */
  async applyJournal(maxBytes?: number): Promise<number> {
    // Not `transact`, which would first move the whole journal, past the budget.
    const rev = await this.transactPing(() => applyJournal(this.db, { sweep: true, maxBytes }));
    this.pending.forgetUpTo(rev);
    return rev;
  }

  /** Checks with journaled pings not yet written into their records, as this process knows them. */
  get pendingChecks(): number {
    return this.pending.size;
  }

  /** Inside a write transaction: write the journal into the checks; returns the revision they are current with. */
  applyJournalInTxn(): number {
    return applyJournal(this.db);
  }

  /** After the journal was applied up to `rev` elsewhere (the journal worker). */
  forgetPendingUpTo(rev: number): void {
    // This thread's read snapshot may predate that commit (lmdb-js renews it
    // only on a later turn): without a fresh one, the next read would find
    // neither the pending pings nor the checks holding them.
    this.db.root.resetReadTxn();
    this.pending.forgetUpTo(rev);
  }

  /**
   * Inside `transactPing`: record a ping that changes nothing but the check's
   * own record (`check`, as it is after the ping, made for it), which is left
   * to the journal (journal.ts).
   */
  journalPingInTxn(check: CheckRecord, ping: PingRecord, event: Omit<StoredEvent, 'rev'>): number {
    const rev = this.appendPingEvent(event, check);
    putPing(this.db, check, ping, rev);
    const entry = { rev, check };
    this.pending.add(check.uuid, entry);
    this.journaledInTxn?.push([check.uuid, entry]);
    return rev;
  }

  revision(): number {
    return currentRevision(this.db);
  }

  /** The layout version the data dir is at (schema.ts), undefined for one no checkd has written yet. */
  schemaVersion(): number | undefined {
    return this.db.meta.get('schemaVersion') as number | undefined;
  }

  /**
   * Copy the environment into the directory `target` from one read snapshot
   * (LMDB's mdb_env_copy2): every commit made before it, never a half-written
   * one, without blocking writers. `compact` leaves free pages out.
   */
  async backupTo(target: string, compact: boolean): Promise<void> {
    await this.db.root.backup(target, compact);
  }

  /**
   * Bytes of the environment's pages in use: every database's tree, the
   * free-page list's own and the two meta pages, which is about what a
   * compacted copy takes. data.mdb is larger by the free pages LMDB keeps
   * for reuse.
   */
  usedBytes(): number {
    const root = this.db.root.getStats() as EnvStats;
    let pages = 2 + treePages(root) + treePages(root.free);
    const seen = new Set<object>([this.db.root]);
    for (const d of [...Object.values(this.db), ...notedDatabases(this.db.root)]) {
      if (!d || seen.has(d)) continue;
      seen.add(d);
      pages += treePages((d as { getStats(): TreeStats }).getStats());
    }
    return pages * root.pageSize;
  }

  /**
   * Bytes of data.mdb past its last page in use: written by commits that
   * failed (a full disk), and taken again by the next ones without growing the
   * file, so room to write even when the file system has none.
   */
  fileSlackBytes(): number {
    const env = this.db.root.getStats() as EnvStats;
    try {
      return Math.max(0, statSync(join(this.dataDir, DATA_FILE)).size - (env.lastPageNumber + 1) * env.pageSize);
    } catch {
      return 0;
    }
  }

  /** About what writing the journal into the checks writes anew. */
  journalBytes(): number {
    return (this.db.pings?.getKeysCount({ start: [appliedRevision(this.db) + 1] }) ?? 0) * APPLY_BYTES_PER_PING;
  }

  /** The storage alarm as the log last told it (meta), undefined if it never did. */
  recordedStorageAlarm(): StorageReport | undefined {
    return this.db.meta.get('storageAlarm') as StorageReport | undefined;
  }

  /** Tell every project that the storage alarm went on or off: an event each, and the record of it. */
  async recordStorageAlarm(report: StorageReport, now: number): Promise<void> {
    await this.transactAside(() => {
      for (const { key } of this.db.projects.getRange()) {
        this.append({ at: now, type: 'storage.alarm', projectId: key, checkUuid: null, storage: report });
      }
      this.db.meta.put('storageAlarm', report);
    });
  }

  /** A trivial read that proves the environment answers (status endpoint). */
  probe(): boolean {
    this.db.meta.get('schemaVersion');
    return true;
  }

  /**
   * What names this event log, so that a revision means something only together
   * with it: made with the data dir, and new in every backup copy, whose history
   * may go its own way once restored (a Watch client then takes a fresh snapshot).
   */
  async logId(): Promise<string> {
    const existing = this.currentLogId();
    if (existing) return existing;
    return this.transact(() => this.currentLogId() || this.renewLogId());
  }

  /** The log's id, "" if it has none yet (a data dir no daemon has opened since). */
  currentLogId(): string {
    return (this.db.meta.get('logId') as string | undefined) ?? '';
  }

  /** Inside a write transaction: give the log a new id (a backup copy). */
  renewLogId(): string {
    const id = newUuid();
    this.db.meta.put('logId', id);
    return id;
  }

  /** The secret for badge signatures: made once, kept with the data. */
  async badgeSecret(): Promise<string> {
    const existing = this.currentBadgeSecret();
    if (existing) return existing;
    return this.transact(() => {
      const raced = this.currentBadgeSecret();
      if (raced) return raced;
      const secret = newSecret();
      this.setBadgeSecretInTxn(secret);
      return secret;
    });
  }

  /** The badge secret, undefined if none was made yet. */
  currentBadgeSecret(): string | undefined {
    return this.db.meta.get('badgeSecret') as string | undefined;
  }

  /** Inside a write transaction: keep `secret` as the badge secret (made here, or imported). */
  setBadgeSecretInTxn(secret: string): void {
    this.db.meta.put('badgeSecret', secret);
  }

  // ---- projects and keys -------------------------------------------------

  async createProject(
    input: { name: string; checkLimit: number; pingLogLimit: number },
    now: number,
  ): Promise<{ project: ProjectRecord; apiKey: string; apiKeyReadonly: string }> {
    return this.transact(() => this.createProjectInTxn(input, now));
  }

  /**
   * Inside a write transaction: a new project with a read-write and a read-only
   * key (returned in clear, once) and a fresh ping key unless one is given.
   */
  createProjectInTxn(
    input: { name: string; checkLimit: number; pingLogLimit: number; pingKey?: string },
    now: number,
  ): { project: ProjectRecord; apiKey: string; apiKeyReadonly: string } {
    const project: ProjectRecord = {
      id: newUuid(),
      name: input.name,
      checkLimit: input.checkLimit,
      pingLogLimit: input.pingLogLimit,
      pingKey: input.pingKey ?? newPingKey(),
      badgeKey: newUuid(),
      createdAt: now,
    };
    const apiKey = newApiKey(false);
    const apiKeyReadonly = newApiKey(true);
    this.insertProjectInTxn(project, now);
    this.putKey(apiKey, { projectId: project.id, readOnly: false, createdAt: now });
    this.putKey(apiKeyReadonly, { projectId: project.id, readOnly: true, createdAt: now });
    return { project, apiKey, apiKeyReadonly };
  }

  /** Inside a write transaction: store a project as given, with its ping key and badge key. */
  insertProjectInTxn(project: ProjectRecord, now: number): number {
    this.db.projects.put(project.id, project);
    this.db.pingKeys.put(project.pingKey, project.id);
    this.db.projectBadgeKeys.put(project.badgeKey, project.id);
    return this.append({ at: now, type: 'project.changed', projectId: project.id, checkUuid: null });
  }

  /** Inside a write transaction: give a project another ping key (slug ping URLs use it). */
  setPingKeyInTxn(projectId: string, pingKey: string, now: number): void {
    const project = this.db.projects.get(projectId);
    if (!project || project.pingKey === pingKey) return;
    this.db.pingKeys.remove(project.pingKey);
    this.db.pingKeys.put(pingKey, projectId);
    this.db.projects.put(projectId, { ...project, pingKey });
    this.append({ at: now, type: 'project.changed', projectId, checkUuid: null });
  }

  /** Inside a write transaction: remove a project and all it owns (checks, channels, keys). */
  deleteProjectInTxn(projectId: string, now: number): void {
    const project = this.db.projects.get(projectId);
    if (!project) return;
    for (const check of this.listChecks(projectId)) this.deleteCheckInTxn(check, now);
    for (const channel of this.listChannels(projectId)) this.db.channels.remove(channel.id);
    for (const { key, value } of this.db.apiKeys.getRange()) if (value.projectId === projectId) this.db.apiKeys.remove(key);
    this.db.pingKeys.remove(project.pingKey);
    this.db.projectBadgeKeys.remove(project.badgeKey);
    this.db.projects.remove(projectId);
    this.append({ at: now, type: 'project.changed', projectId, checkUuid: null });
  }

  /** Changes a project's name or limits; undefined when there is no such project. */
  async updateProject(
    id: string,
    fields: Partial<Pick<ProjectRecord, 'name' | 'checkLimit' | 'pingLogLimit'>>,
    now: number,
  ): Promise<ProjectRecord | undefined> {
    return this.transact(() => {
      const project = this.getProject(id);
      if (!project) return undefined;
      const updated = { ...project, ...fields };
      this.db.projects.put(id, updated);
      this.append({ at: now, type: 'project.changed', projectId: id, checkUuid: null });
      return updated;
    });
  }

  /** Deletes a project with everything it owns; false when there is no such project. */
  async deleteProject(id: string, now: number): Promise<boolean> {
    return this.transact(() => {
      if (!this.getProject(id)) return false;
      this.deleteProjectInTxn(id, now);
      return true;
    });
  }

  // Lookups by a key from outside (a URL, a command line) measure it first:
  // one too long for LMDB was never stored (key-size.ts), and lmdb-js would throw.

  getProject(id: string): ProjectRecord | undefined {
    return keyFits(id) ? this.db.projects.get(id) : undefined;
  }

  listProjects(): ProjectRecord[] {
    return [...this.db.projects.getRange()].map((e) => e.value).sort((a, b) => a.createdAt - b.createdAt);
  }

  projectByPingKey(pingKey: string): ProjectRecord | undefined {
    if (!keyFits(pingKey)) return undefined;
    const id = this.db.pingKeys.get(pingKey);
    return id === undefined ? undefined : this.db.projects.get(id);
  }

  projectByBadgeKey(badgeKey: string): ProjectRecord | undefined {
    if (!keyFits(badgeKey)) return undefined;
    const id = this.db.projectBadgeKeys.get(badgeKey);
    return id === undefined ? undefined : this.db.projects.get(id);
  }

  async createKey(projectId: string, readOnly: boolean, now: number): Promise<string> {
    const key = newApiKey(readOnly);
    await this.transact(() => this.putKey(key, { projectId, readOnly, createdAt: now }));
    return key;
  }

  /** Returns false when the key is not a key of that project. */
  async revokeKey(projectId: string, key: string): Promise<boolean> {
    const digest = hashApiKey(key);
    return this.transact(() => {
      const rec = this.db.apiKeys.get(digest);
      if (!rec || rec.projectId !== projectId) return false;
      this.db.apiKeys.remove(digest);
      return true;
    });
  }

  /** Store a key given in clear. */
  private putKey(key: string, rec: ApiKeyRecord): void {
    this.insertApiKeyInTxn(hashApiKey(key), { ...rec, prefix: key.slice(0, API_KEY_PREFIX_LENGTH) });
  }

  /** Inside a write transaction: store a key by its SHA-256 digest (an imported key). */
  insertApiKeyInTxn(digest: string, rec: ApiKeyRecord): void {
    this.db.apiKeys.put(digest, rec);
  }

  /** The key with this SHA-256 digest. */
  apiKeyByDigest(digest: string): ApiKeyRecord | undefined {
    return keyFits(digest) ? this.db.apiKeys.get(digest) : undefined;
  }

  /** Every API key, as its digest and record, in digest order. */
  listApiKeys(): Array<{ digest: string; rec: ApiKeyRecord }> {
    return [...this.db.apiKeys.getRange()].map(({ key, value }) => ({ digest: key, rec: value }));
  }

  /** The project and access of an API key, or null for an unknown one. */
  authenticate(key: string): AuthResult | null {
    // The lookup by digest is the real check: its timing can reveal how much of
    // a SHA-256 digest matched, which says nothing about the key itself.
    const rec = this.db.apiKeys.get(hashApiKey(key));
    if (!rec) return null;
    const project = this.db.projects.get(rec.projectId);
    if (!project) return null;
    return { project, readOnly: rec.readOnly };
  }

  // ---- channels -----------------------------------------------------------

  async createChannel(
    input: Omit<ChannelRecord, 'id' | 'createdAt'>,
    now: number,
  ): Promise<ChannelRecord> {
    const channel: ChannelRecord = { id: newUuid(), createdAt: now, ...input };
    await this.transact(() => {
      // Lists are ordered by createdAt; keep it strictly increasing within a project so
      // channels made in the same millisecond (or under a stopped clock) keep creation order.
      const last = this.listChannels(input.projectId).at(-1);
      if (last && last.createdAt >= channel.createdAt) channel.createdAt = last.createdAt + 1;
      this.insertChannelInTxn(channel, now);
    });
    return channel;
  }

  /** Changes a channel's name or value; undefined when there is no such channel. */
  /** Changes a channel's fields; `repeatEvery: 0` turns its reminders off. */
  async updateChannel(id: string, fields: Partial<Pick<ChannelRecord, 'name' | 'value' | 'repeatEvery'>>, now: number): Promise<ChannelRecord | undefined> {
    return this.transact(() => {
      const channel = this.getChannel(id);
      if (!channel) return undefined;
      const updated = { ...channel, ...fields };
      if (updated.repeatEvery === 0) delete updated.repeatEvery;
      this.db.channels.put(id, updated);
      this.append({ at: now, type: 'channel.changed', projectId: channel.projectId, checkUuid: null });
      return updated;
    });
  }

  /**
   * Deletes a channel and takes it off every check it was assigned to (an
   * update event each, so watchers see the new list); deliveries still queued
   * for it are dropped by the notifier, which finds no channel.
   */
  async deleteChannel(id: string, now: number): Promise<boolean> {
    return this.transact(() => {
      const channel = this.getChannel(id);
      if (!channel) return false;
      for (const check of this.listChecks(channel.projectId)) {
        if (check.channels.includes(id)) this.saveCheckInTxn({ ...check, channels: check.channels.filter((c) => c !== id) }, now, 'check.updated');
      }
      this.db.channels.remove(id);
      this.append({ at: now, type: 'channel.changed', projectId: channel.projectId, checkUuid: null });
      return true;
    });
  }

  /** Inside a write transaction: store a channel as it is. */
  insertChannelInTxn(channel: ChannelRecord, now: number): number {
    this.db.channels.put(channel.id, channel);
    return this.append({ at: now, type: 'channel.changed', projectId: channel.projectId, checkUuid: null });
  }

  listChannels(projectId: string): ChannelRecord[] {
    const out: ChannelRecord[] = [];
    for (const { value } of this.db.channels.getRange()) if (value.projectId === projectId) out.push(value);
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  getChannel(id: string): ChannelRecord | undefined {
    return keyFits(id) ? this.db.channels.get(id) : undefined;
  }

  // ---- maintenance windows (alert-policies §4.2) ----------------------------

  /** A project's maintenance windows in creation order. */
  listWindows(projectId: string): MaintenanceWindow[] {
    return this.allWindows().filter((w) => w.projectId === projectId);
  }

  /** Every maintenance window (monitor start-up), in creation order. */
  allWindows(): MaintenanceWindow[] {
    if (!this.db.maintenance) return [];
    const out = [...this.db.maintenance.getRange()].map(({ value }) => value);
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  getWindow(id: string): MaintenanceWindow | undefined {
    return this.db.maintenance?.get(id);
  }

  /** Inside a write transaction: store a window, or (`removed`) take it away, with its event. */
  putWindowInTxn(w: MaintenanceWindow, now: number, removed = false): number {
    const windows = forWriting(this.db.maintenance, 'the maintenance windows');
    if (removed) windows.remove(w.id);
    else windows.put(w.id, w);
    return this.append({ at: now, type: 'window.changed', projectId: w.projectId, checkUuid: null, windowId: w.id });
  }

  /** Inside a write transaction: a window opened or closed (the monitor saw it happen). */
  windowEventInTxn(w: MaintenanceWindow, now: number, type: 'window.opened' | 'window.closed'): number {
    return this.append({ at: now, type, projectId: w.projectId, checkUuid: null, windowId: w.id });
  }

  // ---- checks -------------------------------------------------------------

  getCheck(uuid: string): CheckRecord | undefined {
    if (!keyFits(uuid)) return undefined;
    return this.pending.latestCheck(uuid, this.journaled) ?? this.db.checks.get(uuid);
  }

  checkByUniqueKey(projectId: string, uniqueKey: string): CheckRecord | undefined {
    if (!keyFits(uniqueKey)) return undefined;
    const uuid = this.db.uniqueKeys.get(uniqueKey);
    const check = uuid === undefined ? undefined : this.getCheck(uuid);
    return check && check.projectId === projectId ? check : undefined;
  }

  checkByBadgeKey(badgeKey: string): CheckRecord | undefined {
    if (!keyFits(badgeKey)) return undefined;
    const uuid = this.db.checkBadgeKeys.get(badgeKey);
    return uuid === undefined ? undefined : this.getCheck(uuid);
  }

  /** Checks of a project in creation order. */
  listChecks(projectId: string): CheckRecord[] {
    return this.checksPage(projectId, null, Infinity).checks;
  }

  /** Checks of a project with this slug (a slug ping's candidates), in no particular order. */
  checksBySlug(projectId: string, slug: string): CheckRecord[] {
    return this.checksWith(projectId, 'slug', slug);
  }

  /** Checks of a project whose indexed `field` is `value`, in no particular order. */
  checksWith(projectId: string, field: IndexedField, value: string): CheckRecord[] {
    const uuids = uuidsByField(this.db, field, projectId, value);
    if (uuids === null) return this.listChecks(projectId).filter((c) => c[field] === value);
    return this.checksOf(uuids);
  }

  /** The current records of the checks an index names, skipping any gone meanwhile. */
  private checksOf(uuids: Iterable<string>): CheckRecord[] {
    const out: CheckRecord[] = [];
    for (const uuid of uuids) {
      const check = this.getCheck(uuid);
      if (check) out.push(check);
    }
    return out;
  }

  countChecks(projectId: string): number {
    return checkCount(this.db, projectId);
  }

  /** How many times a check of the project was created, changed or deleted (check-indexes.ts); null if unknown. */
  checkEdits(projectId: string): number | null {
    return checkEdits(this.db, projectId);
  }

  /**
   * Every check (of one project, in creation order, or of all, in uuid order)
   * in chunks of `size`, with a turn of the event loop between two chunks.
   * Each chunk is a read of its own, so a walk over 100,000 checks (a metrics
   * scrape, a badge) lets pings through instead of holding them up for the
   * whole walk; a check changed during the walk is seen as it was when its
   * chunk was read.
   */
  async *checkChunks({ projectId, size = CHECK_CHUNK }: { projectId?: string; size?: number } = {}): AsyncGenerator<CheckRecord[]> {
    const next = projectId === undefined ? this.chunkOfAll(size) : this.chunkOfProject(projectId, size);
    for (;;) {
      const { checks, more } = next();
      if (checks.length > 0) yield checks;
      if (!more) return;
      await setImmediate();
    }
  }

  /** Readers of the next chunk; `more` is false once a read came up short. */
  private chunkOfAll(size: number): () => { checks: CheckRecord[]; more: boolean } {
    let after: string | undefined;
    return () => {
      const checks = [...this.checksAfter(after, size)];
      if (checks.length > 0) after = checks[checks.length - 1]!.uuid;
      return { checks, more: checks.length === size };
    };
  }

  /**
   * Up to `size` checks in uuid order, from the first after `after` (from the
   * first of all when undefined), one at a time in one read: a walk in pieces
   * that holds no more than the check it is at.
   */
  *checksAfter(after: string | undefined, size: number): Generator<CheckRecord> {
    // No `start` at all for the first piece: an explicit undefined start makes
    // lmdb-js include msgpackr's shared-structures record, which is no check.
    const range = this.db.checks.getRange(after === undefined ? { limit: size } : { start: after, limit: size + 1 });
    let n = 0;
    for (const { key, value } of range) {
      if (key === after) continue;
      yield this.pending.latestCheck(key, this.journaled) ?? value;
      if (++n === size) return;
    }
  }

  private chunkOfProject(projectId: string, size: number): () => { checks: CheckRecord[]; more: boolean } {
    let after: ListPosition | null = null;
    return () => {
      const page = this.checksPage(projectId, after, size);
      after = page.next;
      return { checks: page.checks, more: page.next !== null };
    };
  }

  /**
   * Up to `limit` checks of a project in creation order, after `after` (from
   * the first when null), and where the next page starts (null: no more).
   */
  checksPage(projectId: string, after: ListPosition | null, limit: number): { checks: CheckRecord[]; next: ListPosition | null } {
    const start: [string, number, string] = after ? [projectId, after.createdAt, after.uuid] : [projectId, -Infinity, ''];
    const uuids: string[] = [];
    let last: ListPosition | null = null;
    // One more than the page (and `after` itself, which the range starts at): a
    // page that is exactly full is the last one when nothing follows it.
    let more = false;
    for (const { key, value } of this.db.checksByProject.getRange({ start, end: [projectId, Infinity], limit: limit + 2 })) {
      if (after && key[1] === after.createdAt && key[2] === after.uuid) continue;
      if (uuids.length === limit) {
        more = true;
        break;
      }
      uuids.push(value);
      last = { createdAt: key[1], uuid: key[2] };
    }
    return { checks: this.checksOf(uuids), next: more ? last : null };
  }

  // The *InTxn writers below must run inside `transact`.

  insertCheckInTxn(check: CheckRecord, now: number): number {
    // The project index is ordered by createdAt (list order, the "oldest" upsert match);
    // keep it strictly increasing so same-millisecond creations keep creation order.
    const lastCreatedAt = this.lastCreatedAt(check.projectId);
    if (lastCreatedAt >= check.createdAt) check.createdAt = lastCreatedAt + 1;
    assertIndexable(check);
    if (!this.db.checks.doesExist(check.uuid)) countCheck(this.db, check.projectId, +1);
    noteCheckEdit(this.db, check.projectId);
    this.db.checks.put(check.uuid, check);
    this.db.checksByProject.put([check.projectId, check.createdAt, check.uuid], check.uuid);
    indexCheck(this.db, check);
    this.db.uniqueKeys.put(uniqueKeyOf(check.uuid), check.uuid);
    this.db.checkBadgeKeys.put(check.badgeKey, check.uuid);
    return this.appendCreated(check, now);
  }

  private appendCreated(check: CheckRecord, now: number): number {
    return this.append({ at: now, type: 'check.created', projectId: check.projectId, checkUuid: check.uuid, check });
  }

  /**
   * Write many new checks, none of which exists yet (an import, which looked
   * first), in transactions of its own: bulk-load.ts. Resolves once all are
   * durable; a failure part-way leaves the parts written before it.
   */
  async bulkInsertChecks(checks: BulkChecks, now: number): Promise<void> {
    const checkEncoder = encoderOf(this.db.checks);
    await bulkLoadChecks(
      {
        db: this.db,
        transact: (fn) => this.transact(fn),
        lastCreatedAt: (projectId) => this.lastCreatedAt(projectId),
        encoding: { dataDir: this.dataDir, encode: (check) => checkEncoder.encode(check) },
        putNewCheck: (uuid, record) => putInOrder(this.db.checks, uuid, asEncoded<CheckRecord>(record)),
        rewriteNewCheck: (uuid, record) => this.db.checks.put(uuid, asEncoded<CheckRecord>(record)),
        // Named, not carried: the record is in the same transaction, and eventsAfter reads it.
        announceNewChecks: (checks, at) =>
          appendEvents(
            this.db,
            checks.map((check) => ({ at, type: 'check.created' as const, projectId: check.projectId, checkUuid: check.uuid })),
            this.appended ?? undefined,
          ),
        countAdded: (projectId, n) => {
          setCheckCount(this.db, projectId, checkCount(this.db, projectId) + n);
          noteCheckEdits(this.db, projectId, n);
        },
      },
      checks,
      now,
    );
  }

  /** The createdAt of the newest check of a project in its index, -Infinity for none. */
  private lastCreatedAt(projectId: string): number {
    for (const { key } of this.db.checksByProject.getRange({ start: [projectId, Infinity], end: [projectId], reverse: true, limit: 1 })) {
      return key[1] as number;
    }
    return -Infinity;
  }

  /** Save a changed check with its flip (if any) and the matching events. */
  saveCheckInTxn(
    check: CheckRecord,
    now: number,
    type: 'check.updated' | 'check.paused' | 'check.resumed' | 'status.changed',
    flip: FlipRecord | null = null,
  ): number {
    if (type === 'check.updated') noteCheckEdit(this.db, check.projectId);
    this.replaceCheck(check);
    let rev = this.append({ at: now, type, projectId: check.projectId, checkUuid: check.uuid, check });
    if (flip) rev = this.insertFlipInTxn(check, flip, now);
    return rev;
  }

  /** Store a check changed by an alert policy, with the event that tells of it (alert-policies §7). */
  savePolicyEventInTxn(
    check: CheckRecord,
    now: number,
    type: 'check.muted' | 'check.unmuted' | 'hold.changed' | 'notification.released' | 'reminder.due',
    extra: Pick<StoredEvent, 'flip' | 'release' | 'reminders'> = {},
  ): number {
    this.replaceCheck(check);
    return this.append({ at: now, type, projectId: check.projectId, checkUuid: check.uuid, check, ...extra });
  }

  /**
   * Store a check whose status alone changed (a ping that flips it, a deadline
   * that moves inside its grace), with no event of its own: its project's edit
   * counter does not move (check-indexes.ts `noteCheckEdit`).
   */
  putCheckStatusInTxn(check: CheckRecord): void {
    this.replaceCheck(check);
  }

  /** Write a changed check's record, its indexes following it. */
  private replaceCheck(check: CheckRecord): void {
    const before = this.db.checks.get(check.uuid);
    if (before) reindexCheck(this.db, before, check);
    this.db.checks.put(check.uuid, check);
  }

  insertFlipInTxn(check: CheckRecord, flip: FlipRecord, now: number): number {
    const rev = this.append({
      at: now,
      type: 'flip',
      projectId: check.projectId,
      checkUuid: check.uuid,
      check,
      flip,
    });
    this.db.flips.put([check.uuid, rev], flip);
    return rev;
  }

  deleteCheckInTxn(check: CheckRecord, now: number): number {
    // The stored record is what the indexes hold, whatever the caller's copy says.
    const stored = this.db.checks.get(check.uuid);
    if (stored) {
      unindexCheck(this.db, stored);
      countCheck(this.db, stored.projectId, -1);
    }
    noteCheckEdit(this.db, check.projectId);
    this.db.checks.remove(check.uuid);
    this.db.checksByProject.remove([check.projectId, check.createdAt, check.uuid]);
    this.db.uniqueKeys.remove(uniqueKeyOf(check.uuid));
    this.db.checkBadgeKeys.remove(check.badgeKey);
    if (stored) for (const { key } of [...pingsOf(this.db, stored)]) this.db.pings?.remove(key);
    for (const key of this.db.flips.getKeys({ start: [check.uuid], end: [check.uuid, Infinity] })) {
      this.db.flips.remove(key);
    }
    return this.append({ at: now, type: 'check.deleted', projectId: check.projectId, checkUuid: check.uuid });
  }

  /**
   * Store the ping of a flip and its event, written with its check (`check`,
   * as it is after the ping, made for it) rather than journaled: after
   * applyJournalInTxn in the same transaction. Returns the event's revision.
   */
  insertPingInTxn(check: CheckRecord, ping: PingRecord, event: Omit<StoredEvent, 'rev'>): number {
    // The ping's key holds its event's revision, the next one.
    const rev = currentRevision(this.db) + 1;
    putPing(this.db, check, ping, rev);
    markApplied(this.db, rev);
    return this.appendPingEvent(event, check);
  }

  /** Store a ping that came with its check from elsewhere (an import), kept in the check's log beside those it records. */
  insertImportedPingInTxn(check: CheckRecord, ping: PingRecord): void {
    putImportedPing(this.db, check, ping);
  }

  appendEventInTxn(event: Omit<StoredEvent, 'rev'>): number {
    return this.append(event);
  }

  // ---- the event log ------------------------------------------------------

  /** Events with revision > `after`, oldest first, at most `limit`. */
  eventsAfter(after: number, limit = 1000): StoredEvent[] {
    const events = readEventsAfter(this.db, after, limit);
    // A ping's event, and an import's check.created, name their check without
    // carrying it (journal.ts, bulk-load.ts): its record, as it is now.
    for (const e of events) {
      if ((e.type === 'ping.received' || e.type === 'check.created') && !e.check && e.checkUuid) {
        const check = this.getCheck(e.checkUuid);
        if (check) e.check = check;
      }
    }
    return events;
  }

  /** Oldest revision still in the log, or null when the log is empty. */
  oldestRetainedRevision(): number | null {
    return oldestRetainedRevision(this.db);
  }

  /**
   * Drop events beyond the retention bounds (events.ts EVENT_RETENTION), never
   * past `keepAfter`, nor past a ping still in the journal, whose event holds
   * its check until the journal is applied. Returns how many were removed;
   * call until 0 for a backlog.
   */
  pruneEvents(now: number, keepAfter = Infinity): Promise<number> {
    const journaled = oldestJournaledRevision(this.db);
    return pruneEvents(this.db, now, journaled === null ? keepAfter : Math.min(keepAfter, journaled - 1));
  }

  // ---- pings and flips ----------------------------------------------------

  /** Newest first. */
  listPings(uuid: string, limit: number): PingRecord[] {
    const check = this.getCheck(uuid);
    return check ? [...this.earlierPings(check, Infinity, limit)] : [];
  }

  /**
   * The pings of `check` (as read now) numbered below `n`, newest first, read
   * as the caller iterates: the previous ping usually settles the caller's
   * question.
   */
  *earlierPings(check: CheckRecord, n: number, limit: number): Iterable<PingRecord> {
    if (limit <= 0) return;
    for (const { ping } of pingsOf(this.db, check)) {
      if (ping.n >= n) continue;
      yield ping;
      if (--limit <= 0) return;
    }
  }

  getPing(uuid: string, n: number): PingRecord | undefined {
    const check = this.getCheck(uuid);
    if (!check) return undefined;
    for (const { ping } of pingsOf(this.db, check)) {
      if (ping.n === n) return ping;
      if (ping.n < n) return undefined;
    }
    return undefined;
  }

  /** Newest first, with the revision that recorded each flip. */
  listFlips(uuid: string, page: { beforeRev?: number; limit?: number } = {}): Array<FlipRecord & { rev: number }> {
    const out: Array<FlipRecord & { rev: number }> = [];
    for (const { key, value } of this.db.flips.getRange({
      start: [uuid, page.beforeRev === undefined ? Infinity : page.beforeRev - 1],
      end: [uuid, 0],
      reverse: true,
      ...(page.limit === undefined ? {} : { limit: page.limit }),
    })) {
      out.push({ ...value, rev: key[1] });
    }
    return out;
  }

  /** When a check stored as down went down (its last flip), or null when it is not down. */
  downSince(check: CheckRecord): number | null {
    if (check.status !== 'down') return null;
    return this.listFlips(check.uuid, { limit: 1 })[0]?.created ?? null;
  }
}
