// PendingPings: which journaled pings a reader may trust. The predicate stands
// for "is this journal entry visible to the reader" (store/journal.ts).
import { describe, expect, it } from 'vitest';
import { newCheck } from '../../daemon/domain/check-input.js';
import type { PingRecord } from '../../daemon/domain/types.js';
import { PendingPings } from '../../daemon/store/pending.js';

const UUID = '11111111-2222-4333-8444-555555555555';
const base = newCheck({ uuid: UUID, badgeKey: '66666666-7777-4888-8999-000000000000', projectId: 'p', createdAt: 0 });
const ping = (n: number, body = `#${n}`): PingRecord => ({
  n,
  date: n * 1000,
  kind: 'success',
  scheme: 'http',
  remoteAddr: null,
  method: 'GET',
  ua: '',
  rid: null,
  exitStatus: null,
  duration: null,
  body: Buffer.from(body),
});
const entry = (rev: number, n: number, body?: string) => ({ rev, ping: ping(n, body), check: { ...base, nPings: n } });
const visible = (revs: number[]) => (rev: number, uuid: string) => uuid === UUID && revs.includes(rev);
const bodies = (ps: PingRecord[]) => ps.map((p) => `${p.n}:${Buffer.from(p.body!).toString()}`);

describe('PendingPings', () => {
  it('gives the check after the newest visible ping, newest pings first', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2));
    expect(pending.latestCheck(UUID, visible([10, 11]))?.nPings).toBe(2);
    expect(bodies(pending.visiblePings(UUID, visible([10, 11])))).toEqual(['2:#2', '1:#1']);
    expect(pending.latestCheck('other', visible([10, 11]))).toBeUndefined();
  });

  it('hides a ping whose transaction is in flight or failed, and shows the state before it', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2));
    expect(pending.latestCheck(UUID, visible([10]))?.nPings).toBe(1);
    expect(bodies(pending.visiblePings(UUID, visible([10])))).toEqual(['1:#1']);
  });

  it('lets the ping that takes a failed ping’s number win over it', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2, 'failed'));
    // Revision 11 was used again by the next ping, which was numbered 2 again.
    pending.add(UUID, entry(11, 2, 'kept'));
    expect(bodies(pending.visiblePings(UUID, visible([10, 11])))).toEqual(['2:kept', '1:#1']);
  });

  it('trusts nothing once the journal entries are gone (applied by this or another process)', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    expect(pending.latestCheck(UUID, visible([]))).toBeUndefined();
    expect(pending.visiblePings(UUID, visible([]))).toEqual([]);
  });

  it('forgets entries up to a revision and keeps the later ones', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(12, 2));
    pending.add('other', entry(11, 1));
    pending.forgetUpTo(11);
    expect(pending.size).toBe(1);
    expect(bodies(pending.visiblePings(UUID, () => true))).toEqual(['2:#2']);
    pending.forgetUpTo(12);
    expect(pending.size).toBe(0);
  });
});
