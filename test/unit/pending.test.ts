// PendingPings: which journaled pings a reader may trust. The predicate stands
// for "is this ping journaled as the reader sees it" (store/journal.ts).
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
const entry = (rev: number, n: number, body?: string) => ({ rev, ping: ping(n, body), check: { ...base, nPings: n, desc: body ?? '' } });
const visible = (revs: number[]) => (rev: number, uuid: string, n: number) => uuid === UUID && revs.includes(rev) && n > 0;

describe('PendingPings', () => {
  it('gives the check after the newest visible ping', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2));
    expect(pending.latestCheck(UUID, visible([10, 11]))?.nPings).toBe(2);
    expect(pending.latestCheck('other', visible([10, 11]))).toBeUndefined();
  });

  it('hides a ping whose transaction is in flight or failed, and shows the state before it', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2));
    expect(pending.latestCheck(UUID, visible([10]))?.nPings).toBe(1);
  });

  it('lets the ping that takes a failed ping’s number win over it', () => {
    const pending = new PendingPings();
    pending.add(UUID, entry(10, 1));
    pending.add(UUID, entry(11, 2, 'failed'));
    // Revision 11 was used again by the next ping, which was numbered 2 again.
    pending.add(UUID, entry(11, 2, 'kept'));
    expect(pending.latestCheck(UUID, visible([10, 11]))?.desc).toBe('kept');
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
