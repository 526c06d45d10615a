// PendingPings: which journaled pings a reader may trust. The predicate stands
// for "is this ping journaled as the reader sees it" (store/journal.ts).
import { describe, expect, it } from 'vitest';
import { newCheck } from '../../daemon/domain/check-input.js';
import { PendingPings } from '../../daemon/store/pending.js';

const UUID = '11111111-2222-4333-8444-555555555555';
const base = newCheck({ uuid: UUID, badgeKey: '66666666-7777-4888-8999-000000000000', projectId: 'p', createdAt: 0 });
/** The entry of ping number `n` at revision `rev`: the check after it has made `n` pings. */
const entry = (rev: number, n: number, desc = '') => ({ rev, check: { ...base, nPings: n, desc } });
/** The pings [revision, number] a reader sees as journaled. */
const visible = (pings: Array<[number, number]>) => (rev: number, uuid: string, n: number) =>
  uuid === UUID && pings.some(([r, m]) => r === rev && m === n);

describe('PendingPings', () => {
  it('gives the check after the newest visible ping', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2));
    expect(pending.latestCheck(UUID, visible([[10, 1], [11, 2]]))?.nPings).toBe(2);
    expect(pending.latestCheck('other', visible([[10, 1], [11, 2]]))).toBeUndefined();
  });

  it('hides a ping whose transaction is in flight or failed, and shows the state before it', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2));
    expect(pending.latestCheck(UUID, visible([[10, 1]]))?.nPings).toBe(1);
  });

  it('lets the ping that takes a failed ping’s number win over it', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2, 'failed'));
    // Revision 11 was used again by the next ping, which was numbered 2 again.
    pending.add(UUID, entry(11, 2, 'kept'));
    expect(pending.latestCheck(UUID, visible([[10, 1], [11, 2]]))?.desc).toBe('kept');
  });

  it('trusts nothing once the pings are no longer journaled (applied by this or another process)', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    expect(pending.latestCheck(UUID, visible([]))).toBeUndefined();
  });

  it('forgets entries up to a revision and keeps the later ones', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(12, 2));
    pending.add('other', entry(11, 1));
    pending.forgetUpTo(11);
    expect(pending.size).toBe(1);
    expect(pending.latestCheck(UUID, () => true)?.nPings).toBe(2);
    expect(pending.latestCheck('other', () => true)).toBeUndefined();
    pending.forgetUpTo(12);
    expect(pending.size).toBe(0);
  });
});
