// The policy fields in `checkd export` / `checkd import` (alert-policies.md):
// carried when set, absent from the file when at their default (an export of
// checks and channels that use none is as before), and read back either way.
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { CHANNEL_FIELDS, CHECK_FIELDS, fromJson, toJson } from '../../daemon/ops/export-fields.js';
import { newCheck } from '../../daemon/domain/check-input.js';
import type { ChannelRecord, CheckRecord } from '../../daemon/domain/types.js';

const base = () => newCheck({ uuid: randomUUID(), badgeKey: randomUUID(), projectId: 'p', createdAt: 1 });
const POLICY_MEMBERS = ['max_duration', 'failure_tolerance', 'consecutive_failures', 'muted_until', 'depends_on'];

describe('export fields of the alert policies', () => {
  it('a check that uses none exports none of them, and reads back without them', () => {
    const check = base();
    const doc = toJson(check, CHECK_FIELDS);
    for (const member of POLICY_MEMBERS) expect(member in doc).toBe(false);
    const back = fromJson<CheckRecord>(doc, CHECK_FIELDS, { projectId: 'p', everStarted: false });
    for (const key of ['maxDuration', 'failureTolerance', 'consecutiveFailures', 'mutedUntil', 'dependsOn']) expect(key in back).toBe(false);
  });

  it('set fields round-trip; what the notifier keeps (holds, reminder clocks) stays behind', () => {
    const check: CheckRecord = {
      ...base(),
      maxDuration: 7200,
      failureTolerance: 3,
      consecutiveFailures: 1,
      mutedUntil: 1_700_000_000_000,
      dependsOn: randomUUID(),
      hold: { told: 'up', cause: 'mute' },
      downAlert: { at: 5, sent: {} },
    };
    const doc = toJson(check, CHECK_FIELDS);
    expect(doc).toMatchObject({ max_duration: 7200, failure_tolerance: 3, consecutive_failures: 1, muted_until: 1_700_000_000_000, depends_on: check.dependsOn });
    for (const rule of Object.values(CHECK_FIELDS)) if (doc[rule.json] !== undefined) expect(rule.check(doc[rule.json])).toBeNull();
    const back = fromJson<CheckRecord>(doc, CHECK_FIELDS, { projectId: 'p', everStarted: false });
    const { hold: _h, downAlert: _d, ...kept } = check;
    expect(back).toEqual({ ...kept, everStarted: false });
    const channel: ChannelRecord = { id: randomUUID(), projectId: 'p', kind: 'webhook', name: '', value: 'https://x.example/', createdAt: 1 };
    expect('repeat_every' in toJson(channel, CHANNEL_FIELDS)).toBe(false);
    expect(toJson({ ...channel, repeatEvery: 3600 }, CHANNEL_FIELDS).repeat_every).toBe(3600);
    expect(CHANNEL_FIELDS.repeatEvery.check(60)).not.toBeNull();
  });
});
