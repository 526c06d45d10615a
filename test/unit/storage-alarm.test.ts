// The storage alarm's pure rules (daemon/domain/storage-alarm.ts): when it
// goes on, when it goes off again, and when a write makes it look early.
import { describe, expect, it } from 'vitest';
import {
  afterWrites,
  ALARM_OFF,
  crossedLimit,
  freeToClear,
  journalMoveBudget,
  mayHaveCrossed,
  nextAlarm,
  refusalText,
  storageReport,
  usedToClear,
  writeCost,
  type StorageAlarm,
  type StorageLimits,
  type StorageReading,
} from '../../daemon/domain/storage-alarm.js';

const MB = 1e6;
const limits: StorageLimits = { reserveBytes: 64 * MB, quotaBytes: 500 * MB };
const reading = (freeMb: number | null, usedMb: number | null): StorageReading => ({
  freeBytes: freeMb === null ? null : freeMb * MB,
  usedBytes: usedMb === null ? null : usedMb * MB,
});

/** The alarm after each reading in turn, from off, each at its index as the time. */
function walk(readings: StorageReading[], l: StorageLimits = limits): Array<{ alarm: StorageAlarm; change: string | null }> {
  let alarm: StorageAlarm = ALARM_OFF;
  return readings.map((r, i) => {
    const next = nextAlarm(alarm, r, l, i);
    alarm = next.alarm;
    return next;
  });
}

describe('the storage alarm', () => {
  it('goes on below the reserve or at the quota, free space first', () => {
    expect(crossedLimit(reading(100, 100), limits)).toBeNull();
    expect(crossedLimit(reading(63.9, 100), limits)).toBe('free_space');
    expect(crossedLimit(reading(100, 500), limits)).toBe('quota');
    expect(crossedLimit(reading(10, 600), limits)).toBe('free_space');
    // Unknown readings raise nothing; no quota, no reserve: nothing to cross.
    expect(crossedLimit(reading(null, null), limits)).toBeNull();
    expect(crossedLimit(reading(0, 1e9), { reserveBytes: 0, quotaBytes: null })).toBeNull();
  });

  it('goes off only a margin past the limit, so a disk at the limit does not flap', () => {
    expect(freeToClear(limits)).toBe(96 * MB);
    expect(usedToClear(500 * MB)).toBe(475 * MB);
    expect(usedToClear(4 * 1024 * 1024)).toBe(3 * 1024 * 1024);
    expect(usedToClear(1024 * 1024)).toBe(512 * 1024);
    const steps = walk([reading(100, 0), reading(60, 0), reading(70, 0), reading(95, 0), reading(63, 0), reading(96, 0), reading(90, 0)]);
    expect(steps.map((s) => s.change)).toEqual([null, 'raised', null, null, null, 'cleared', null]);
    expect(steps[1]!.alarm).toEqual({ active: true, cause: 'free_space', since: 1 });
    // Still on, and since the first reading that raised it.
    expect(steps[4]!.alarm.since).toBe(1);
    expect(steps[5]!.alarm).toEqual(ALARM_OFF);
    const quota = walk([reading(1000, 499), reading(1000, 500), reading(1000, 480), reading(1000, 475)]);
    expect(quota.map((s) => s.change)).toEqual([null, 'raised', null, 'cleared']);
    expect(quota[1]!.alarm.cause).toBe('quota');
  });

  it('an alarm on for one cause stays on for the other until both are clear', () => {
    const steps = walk([reading(50, 100), reading(50, 510), reading(200, 510), reading(200, 470)]);
    expect(steps.map((s) => [s.change, s.alarm.cause])).toEqual([
      ['raised', 'free_space'],
      [null, 'free_space'],
      [null, 'quota'],
      ['cleared', null],
    ]);
  });

  it('an unknown reading keeps an alarm of its own cause on', () => {
    const steps = walk([reading(10, 0), reading(null, 0), reading(100, 0)]);
    expect(steps.map((s) => s.change)).toEqual(['raised', null, 'cleared']);
  });

  it('writes let in since the last look make it look again before they could cross a limit', () => {
    expect(writeCost(10_000)).toBeGreaterThan(2 * 10_000);
    expect(mayHaveCrossed(reading(70, 0), 5 * MB, limits)).toBe(false);
    expect(mayHaveCrossed(reading(70, 0), 7 * MB, limits)).toBe(true);
    expect(mayHaveCrossed(reading(1000, 495), 5 * MB, limits)).toBe(true);
    // Writes under way are not on the disk a look sees: it counts them as if they were.
    expect(crossedLimit(afterWrites(reading(70, 0), 5 * MB), limits)).toBeNull();
    expect(crossedLimit(afterWrites(reading(70, 0), 7 * MB), limits)).toBe('free_space');
    expect(crossedLimit(afterWrites(reading(1000, 490), 10 * MB), limits)).toBe('quota');
    expect(mayHaveCrossed(reading(null, null), 1e12, { reserveBytes: 0, quotaBytes: null })).toBe(false);
    // A quarter of the reserve written: look, whatever the last reading said (the disk may have filled otherwise).
    expect(mayHaveCrossed(reading(1000, 0), 15 * MB, limits)).toBe(false);
    expect(mayHaveCrossed(reading(1000, 0), 16 * MB, limits)).toBe(true);
  });

  it('the ping journal is moved whole when twice its size and a margin fit, in parts when not', () => {
    expect(journalMoveBudget(null, 1e9)).toBeNull();
    expect(journalMoveBudget(30 * MB, 10 * MB)).toBeNull();
    expect(journalMoveBudget(20 * MB, 10 * MB)).toBe(Math.floor((20 * MB - 1024 * 1024) / 2));
    expect(journalMoveBudget(1024 * 1024, 10 * MB)).toBe(0);
    expect(journalMoveBudget(0, 10 * MB)).toBe(0);
  });

  it('says why in the log and the notifications, and only that it is refused to clients', () => {
    const on = storageReport({ active: true, cause: 'free_space', since: 5 }, reading(12, 3), limits);
    expect(on.reason).toBe("12 MB free on the data dir's file system, below the reserve of 64 MB: checkd refuses pings and API writes until 96 MB are free");
    expect(storageReport({ active: true, cause: 'quota', since: 5 }, reading(900, 501), limits).reason).toBe(
      'the database holds 501 MB of data, at its quota of 500 MB: checkd refuses pings and API writes until it is below 475 MB',
    );
    expect(storageReport(ALARM_OFF, reading(100, 3), limits).reason).toBe('');
    expect(storageReport(ALARM_OFF, reading(100, 3), limits, true).reason).toBe(
      'storage is back within its limits (100 MB free, 3 MB of data): checkd takes pings and API writes again',
    );
    expect(refusalText('free_space')).toBe('storage unavailable: the server is low on disk space, try again later');
    expect(refusalText('quota')).not.toMatch(/\d/);
  });
});
