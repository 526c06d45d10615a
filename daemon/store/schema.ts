// What the environment holds: its named databases with the keys and values
// of each, the records only the store keeps (API keys, stored pings) and
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
export const SCHEMA_VERSION = 7;

/**
 * Where a ping is stored: [the revision of its event, its check, its number].
 * Revision 0 holds the pings that came with their check from elsewhere (an
 * import, an older layout), which have no event of their own.
 */
export type PingKey = [number, string, number];

/** A ping as the ping log holds it (ping-log.ts). */
export interface StoredPing extends PingRecord {
  /** The revision in the key of the check's ping before this one; absent for 0. */
  prev?: number;
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
  /**
   * The ping log, in the order the pings were recorded (ping-log.ts). The
   * pings newer than the revision the checks are current with are the
   * journal (journal.ts). Absent only when a data dir from before schema
   * version 7 is opened read-only: it then reads as holding no pings.
   */
  pings: Database<StoredPing, PingKey> | undefined;
  /** [checkUuid, revision] → flip */
  flips: Database<FlipRecord, [string, number]>;
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
