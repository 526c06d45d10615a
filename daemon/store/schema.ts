// What the environment holds: its named databases with the keys and values
// of each, the records only the store keeps (API keys, journal entries) and
// the schema version of that layout. Shared by the store's modules without
// pulling in how the environment is opened (db.ts) or upgraded (migrations.ts).
import { asBinary, type Database } from 'lmdb';
import type {
  ChannelRecord,
  CheckRecord,
  FlipRecord,
  MaintenanceWindow,
  PingRecord,
  ProjectRecord,
} from '../domain/types.js';
import type { EventLog } from './events.js';

/** Bumped when the on-disk layout changes; migrations.ts upgrades older layouts. */
export const SCHEMA_VERSION = 6;

/** A journaled ping (journal.ts). */
export interface JournalEntry {
  ping: PingRecord;
  /**
   * Set on every entry written since 0.1.x: the check after this ping is the
   * check before it with the ping applied (domain/status.ts applySignal),
   * worked out again when the entry is read. Entries without it were written
   * by older versions: the check after the ping is then in `check` or in the
   * ping's event.
   */
  replay?: true;
  /** The check as it is after this ping: only in entries of versions before those whose events held it. */
  check?: CheckRecord;
}

export interface ApiKeyRecord {
  projectId: string;
  readOnly: boolean;
  createdAt: number;
  /** The key's first 8 characters, so `key list` can tell keys apart; absent for keys imported as digests. */
  prefix?: string;
}

/**
 * The environment's named databases. The root, meta and events come from
 * EventLog (events.ts): the part of it that the event log's functions take.
 */
export interface Db extends EventLog {
  projects: Database<ProjectRecord, string>;
  /** sha256(key) hex → key record; keys are never stored in clear. */
  apiKeys: Database<ApiKeyRecord, string>;
  /** ping key → project id */
  pingKeys: Database<string, string>;
  checks: Database<CheckRecord, string>;
  /** [projectId, createdAt, uuid] → uuid: creation-ordered listing per project. */
  checksByProject: Database<string, [string, number, string]>;
  /**
   * [projectId, slug, uuid] → uuid: a slug ping finds its check without
   * reading every check of the project. Checks with an empty slug are not in it.
   * Absent only when a data dir from before schema version 3 is opened read-only.
   */
  checksBySlug: Database<string, [string, string, string]> | undefined;
  /**
   * [projectId, name, uuid] → uuid, every check: a create with `unique:
   * ["name"]` finds its match without reading every check of the project.
   * Absent only when a data dir from before schema version 4 is opened read-only.
   */
  checksByName: Database<string, [string, string, string]> | undefined;
  /**
   * [projectId, depends_on, uuid] → uuid, for the checks that depend on
   * another: deleting a check finds its dependents without reading the project.
   * Absent only when a data dir from before schema version 6 is opened read-only.
   */
  checksByDependsOn: Database<string, [string, string, string]> | undefined;
  /**
   * projectId → how many checks it has (kept by insert and delete), so the
   * check limit is enforced without counting the project's index.
   * Absent only when a data dir from before schema version 3 is opened read-only.
   */
  checkCounts: Database<number, string> | undefined;
  /**
   * projectId → how many times a check of it was created, changed or deleted
   * (check-indexes.ts `noteCheckEdit`): a scan done outside a transaction is
   * still right inside one if this did not move meanwhile.
   * Absent only when a data dir from before schema version 5 is opened read-only.
   */
  checkEdits: Database<number, string> | undefined;
  /** unique_key → uuid */
  uniqueKeys: Database<string, string>;
  /** check badge key → uuid */
  checkBadgeKeys: Database<string, string>;
  /** project badge key → project id */
  projectBadgeKeys: Database<string, string>;
  channels: Database<ChannelRecord, string>;
  /** [checkUuid, n] → ping */
  pings: Database<PingRecord, [string, number]>;
  /** [checkUuid, revision] → flip */
  flips: Database<FlipRecord, [string, number]>;
  /**
   * [revision, checkUuid] → ping not yet written into checks and pings (journal.ts).
   * Absent only when a data dir from before schema version 2 is opened read-only.
   */
  journal: Database<JournalEntry, [number, string]> | undefined;
  /**
   * window id → maintenance window (alert-policies §4.2). Made empty by any
   * writable open; absent when a data dir from before it is opened read-only.
   */
  maintenance: Database<MaintenanceWindow, string> | undefined;
}

/**
 * A database that only a data dir of an older schema opened read-only lacks
 * (openDb creates it on every writable open), for a write: its absence there
 * is a bug in the caller, said in one sentence.
 */
export function forWriting<T>(database: T | undefined, what: string): T {
  if (!database) throw new Error(`${what} is missing: the environment was opened read-only`);
  return database;
}

/**
 * A database's encoder, for values written later as they are (lmdb-js's
 * asBinary): lmdb-js has it, its typings do not say so. What it returns is a
 * view that its next call may reuse.
 */
export const encoderOf = (database: object): { encode(value: unknown): Uint8Array } =>
  (database as { encoder: { encode(value: unknown): Uint8Array } }).encoder;

/**
 * Bytes already in a database's encoding (encoderOf), to put as they are:
 * lmdb-js writes a Binary without encoding it; its typed put does not know that.
 */
export const asEncoded = <T>(bytes: Uint8Array): T => asBinary(bytes) as unknown as T;
