// Owns the LMDB environment: the named databases, the schema version and the
// revision counter of the event log. Nothing outside store/ touches LMDB.
import { mkdirSync, accessSync, constants } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type {
  ChannelRecord,
  CheckRecord,
  FlipRecord,
  PingRecord,
  ProjectRecord,
} from '../domain/types.js';
import type { StoredEvent } from './events.js';

/** Bumped when the on-disk layout changes; `openDb` migrates older layouts. */
export const SCHEMA_VERSION = 1;

export interface ApiKeyRecord {
  projectId: string;
  readOnly: boolean;
  createdAt: number;
}

export interface Db {
  root: RootDatabase;
  meta: Database<unknown, string>;
  projects: Database<ProjectRecord, string>;
  /** sha256(key) hex → key record; keys are never stored in clear. */
  apiKeys: Database<ApiKeyRecord, string>;
  /** ping key → project id */
  pingKeys: Database<string, string>;
  checks: Database<CheckRecord, string>;
  /** [projectId, createdAt, uuid] → uuid: creation-ordered listing per project. */
  checksByProject: Database<string, [string, number, string]>;
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
  /** revision → event */
  events: Database<StoredEvent, number>;
}

export class DataDirError extends Error {}

/** Open (creating if needed) the environment in `dir`. Throws DataDirError if unusable. */
export function openDb(dir: string, opts: { readOnly?: boolean } = {}): Db {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new DataDirError(`data dir ${dir} is not usable: ${(err as Error).message}`);
  }
  let root: RootDatabase;
  try {
    root = open({
      path: dir,
      maxDbs: 32,
      // Grows by itself: lmdb-js resizes the map when it fills.
      mapSize: 64 * 1024 * 1024,
      readOnly: opts.readOnly ?? false,
    });
  } catch (err) {
    throw new DataDirError(`cannot open LMDB in ${dir}: ${(err as Error).message}`);
  }
  const db: Db = {
    root,
    meta: root.openDB({ name: 'meta' }),
    projects: root.openDB({ name: 'projects' }),
    apiKeys: root.openDB({ name: 'api_keys' }),
    pingKeys: root.openDB({ name: 'ping_keys' }),
    checks: root.openDB({ name: 'checks' }),
    checksByProject: root.openDB({ name: 'checks_by_project' }),
    uniqueKeys: root.openDB({ name: 'unique_keys' }),
    checkBadgeKeys: root.openDB({ name: 'check_badge_keys' }),
    projectBadgeKeys: root.openDB({ name: 'project_badge_keys' }),
    channels: root.openDB({ name: 'channels' }),
    pings: root.openDB({ name: 'pings' }),
    flips: root.openDB({ name: 'flips' }),
    events: root.openDB({ name: 'events' }),
  };
  const stored = db.meta.get('schemaVersion') as number | undefined;
  if (stored === undefined) {
    if (!opts.readOnly) db.meta.putSync('schemaVersion', SCHEMA_VERSION);
  } else if (stored > SCHEMA_VERSION) {
    root.close();
    throw new DataDirError(
      `data dir ${dir} has schema version ${stored}, newer than this checkd (${SCHEMA_VERSION}); upgrade checkd`,
    );
  }
  return db;
}

export async function closeDb(db: Db): Promise<void> {
  await db.root.flushed;
  await db.root.close();
}

/** Current revision of the event log (0 when empty). */
export function currentRevision(db: Db): number {
  return (db.meta.get('rev') as number | undefined) ?? 0;
}
