// Check lifecycle operations shared by the HTTP API and gRPC: each is one
// durable LMDB transaction that re-reads what it changes, so concurrent
// requests (or a concurrent delete) cannot interleave half-way.
import {
  applyCheckInput,
  matchesUnique,
  newCheck,
  type CheckInput,
  type UniqueField,
} from '../domain/check-input.js';
import { resolveChannels } from '../domain/channels-input.js';
import { applyMute, applyPause, applyResume, applyUnmute, recomputeAfterUpdate } from '../domain/status.js';
import { settleHoldInTxn } from './holds.js';
import { clearDependentsInTxn, dependencyError } from './dependencies.js';
import { newUuid } from '../domain/ids.js';
import type { Clock } from '../shared/clock.js';
import type { ApiVersion, CheckRecord, ProjectRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { OPEN_GATE, type WriteGate } from '../store/storage-watch.js';

export type CreateResult =
  | { kind: 'created'; check: CheckRecord }
  | { kind: 'updated'; check: CheckRecord }
  | { kind: 'limit' }
  | { kind: 'invalid'; error: string };

export type UpdateResult =
  | { kind: 'ok'; check: CheckRecord }
  | { kind: 'missing' }
  | { kind: 'invalid'; error: string };

export type PauseResult = { kind: 'ok'; check: CheckRecord } | { kind: 'missing' };
export type ResumeResult = { kind: 'ok'; check: CheckRecord } | { kind: 'missing' } | { kind: 'not-paused' };

export class CheckService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Refuses every write but a delete while the storage alarm is on. */
    private readonly gate: WriteGate = OPEN_GATE,
  ) {}

  async create(project: ProjectRecord, input: CheckInput, version: ApiVersion): Promise<CreateResult> {
    const now = this.clock.now();
    const unique = input.unique ?? [];
    const lookup = unique.length > 0 && unique.every((f) => input[f] !== undefined);
    const scanned = lookup && indexedField(input, unique) === null ? await this.scanForUnique(project.id, input, unique) : null;
    return this.gate.admit(0, () => this.store.transact((): CreateResult => {
      let existing: CheckRecord | undefined;
      if (scanned !== null && this.store.checkEdits(project.id) === scanned.edits) {
        // No check of the project was created, changed or deleted since the
        // scan: its match still is the oldest. Read again, for its status.
        existing = scanned.uuid === null ? undefined : this.store.getCheck(scanned.uuid);
      } else if (lookup) existing = this.uniqueMatch(project.id, input, unique);
      if (!existing && this.store.countChecks(project.id) >= project.checkLimit) return { kind: 'limit' };
      let channels: string[] | undefined;
      if (input.channels !== undefined) {
        const resolved = resolveChannels(input.channels, this.store.listChannels(project.id));
        if (!resolved.ok) return { kind: 'invalid', error: resolved.error };
        channels = resolved.ids;
      }
      const base =
        existing ?? newCheck({ uuid: newUuid(), badgeKey: newUuid(), projectId: project.id, createdAt: now });
      let check = applyCheckInput(base, input, version);
      if (channels) check.channels = channels;
      const dependency = input.depends_on ? dependencyError(this.store, check) : null;
      if (dependency) return { kind: 'invalid', error: dependency };
      check = recomputeAfterUpdate(check);
      if (existing) {
        this.store.saveCheckInTxn(check, now, 'check.updated');
        return { kind: 'updated', check };
      }
      this.store.insertCheckInTxn(check, now);
      return { kind: 'created', check };
    }));
  }

  /**
   * The oldest check matching every `unique` field of the request. A name or
   * slug among them narrows the candidates through its index: with 100,000
   * checks, reading them all took a second per create, inside the transaction.
   * Without one, `create` scans before its transaction (scanForUnique) and
   * this runs only if a check changed meanwhile.
   */
  private uniqueMatch(projectId: string, input: CheckInput, unique: UniqueField[]): CheckRecord | undefined {
    const field = indexedField(input, unique);
    const candidates =
      field === null
        ? this.store.listChecks(projectId)
        : this.store.checksWith(projectId, field, input[field]!).sort((a, b) => a.createdAt - b.createdAt);
    return candidates.find((c) => matchesUnique(c, input, unique));
  }

  /**
   * The oldest check of the project matching every `unique` field, found by a
   * walk over its checks in creation order, a chunk per turn of the event
   * loop, outside any transaction (so pings go on meanwhile), with the
   * project's edit counter read in the same snapshot as the first chunk. Null
   * when the data dir keeps no edit counters.
   */
  private async scanForUnique(
    projectId: string,
    input: CheckInput,
    unique: UniqueField[],
  ): Promise<{ edits: number; uuid: string | null } | null> {
    const chunks = this.store.checkChunks({ projectId });
    // The generator reads its first chunk within this first call, before any await.
    const first = chunks.next();
    const edits = this.store.checkEdits(projectId);
    if (edits === null) {
      await chunks.return(undefined);
      return null;
    }
    for (let step = await first; !step.done; step = await chunks.next()) {
      const match = step.value.find((c) => matchesUnique(c, input, unique));
      if (match) {
        await chunks.return(undefined);
        return { edits, uuid: match.uuid };
      }
    }
    return { edits, uuid: null };
  }

  async update(uuid: string, input: CheckInput, version: ApiVersion): Promise<UpdateResult> {
    const now = this.clock.now();
    return this.gate.admit(0, () => this.store.transact((): UpdateResult => {
      const current = this.store.getCheck(uuid);
      if (!current) return { kind: 'missing' };
      let channels: string[] | undefined;
      if (input.channels !== undefined) {
        const resolved = resolveChannels(input.channels, this.store.listChannels(current.projectId));
        if (!resolved.ok) return { kind: 'invalid', error: resolved.error };
        channels = resolved.ids;
      }
      let check = applyCheckInput(current, input, version);
      if (channels) check.channels = channels;
      const dependency = input.depends_on ? dependencyError(this.store, check) : null;
      if (dependency) return { kind: 'invalid', error: dependency };
      check = recomputeAfterUpdate(check);
      this.store.saveCheckInTxn(check, now, 'check.updated');
      return { kind: 'ok', check };
    }));
  }

  async pause(uuid: string): Promise<PauseResult> {
    const now = this.clock.now();
    return this.gate.admit(0, () => this.store.transact((): PauseResult => {
      const current = this.store.getCheck(uuid);
      if (!current) return { kind: 'missing' };
      const result = applyPause(current, now);
      if (!result.changed) return { kind: 'ok', check: current };
      this.store.saveCheckInTxn(result.check, now, 'check.paused', result.flip);
      return { kind: 'ok', check: result.check };
    }));
  }

  async resume(uuid: string): Promise<ResumeResult> {
    const now = this.clock.now();
    return this.gate.admit(0, () => this.store.transact((): ResumeResult => {
      const current = this.store.getCheck(uuid);
      if (!current) return { kind: 'missing' };
      const result = applyResume(current, now);
      if (result.conflict) return { kind: 'not-paused' };
      this.store.saveCheckInTxn(result.check, now, 'check.resumed', result.flip);
      return { kind: 'ok', check: result.check };
    }));
  }

  /** Hold the check's notifications until `until` (alert-policies §4.1); a later or earlier mute replaces it. */
  async mute(uuid: string, until: number): Promise<PauseResult> {
    const now = this.clock.now();
    return this.gate.admit(0, () => this.store.transact((): PauseResult => {
      const current = this.store.getCheck(uuid);
      if (!current) return { kind: 'missing' };
      const check = applyMute(current, until);
      this.store.savePolicyEventInTxn(check, now, 'check.muted');
      return { kind: 'ok', check: check.hold ? settleHoldInTxn(this.store, check, now) : check };
    }));
  }

  /** End the check's mute now; a notification it held is released if still true. Not muted: nothing changes. */
  async unmute(uuid: string): Promise<PauseResult> {
    const now = this.clock.now();
    return this.gate.admit(0, () => this.store.transact((): PauseResult => {
      const current = this.store.getCheck(uuid);
      if (!current) return { kind: 'missing' };
      const check = applyUnmute(current);
      if (!check) return { kind: 'ok', check: current };
      this.store.savePolicyEventInTxn(check, now, 'check.unmuted');
      return { kind: 'ok', check: check.hold ? settleHoldInTxn(this.store, check, now) : check };
    }));
  }

  async delete(uuid: string): Promise<CheckRecord | null> {
    const now = this.clock.now();
    return this.store.transact(() => {
      const current = this.store.getCheck(uuid);
      if (!current) return null;
      this.store.deleteCheckInTxn(current, now);
      clearDependentsInTxn(this.store, current, now);
      return current;
    });
  }
}

/** A name or (non-empty) slug among the `unique` fields, which an index can look up; null if none. */
function indexedField(input: CheckInput, unique: UniqueField[]): 'name' | 'slug' | null {
  return unique.includes('name') ? 'name' : unique.includes('slug') && input.slug !== '' ? 'slug' : null;
}
