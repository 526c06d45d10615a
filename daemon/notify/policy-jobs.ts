// The notifier's part of the alert policies (alert-policies §4–§6): which
// events besides flips tell of one (a released hold), and what their
// delivery jobs carry beyond the flip (why the notification was held).
import type { StoredEvent } from '../store/events.js';
import type { DeliveryJob } from '../store/notify.js';
import type { Store } from '../store/store.js';
import type { PolicyFacts } from './policy-text.js';
import { groupMembers } from '../domain/integrations/group.js';

/** Whether the event carries a flip to tell of: the flip itself, or a hold that ended with something to tell. */
export function tellsOfFlip(ev: StoredEvent): boolean {
  return ev.type === 'flip' || ev.type === 'reminder.due' || (ev.type === 'notification.released' && ev.release?.event != null);
}

/** The jobs `select` made for the event, with what the policies add to them. */
export function policyJobs(store: Store, ev: StoredEvent, jobs: DeliveryJob[]): DeliveryJob[] {
  if (ev.type === 'reminder.due') return reminderJobs(store, ev, jobs);
  if (jobs.length === 0 || ev.type !== 'notification.released' || !ev.release || !ev.flip || !ev.check) return jobs;
  const { release, flip, check } = ev;
  const before = release.flipRev === undefined ? undefined : store.listFlips(check.uuid).find((f) => f.rev < release.flipRev!);
  const downtimeMs = flip.newStatus === 'up' && before?.newStatus === 'down' ? Math.max(0, flip.created - before.created) : null;
  const policy: PolicyFacts = { released: release.cause };
  const downSince = flip.newStatus === 'down' ? flip.created : before?.newStatus === 'down' ? before.created : undefined;
  if (downSince !== undefined) policy.downSince = downSince;
  if (release.parent) policy.parentName = store.getCheck(release.parent)?.name ?? release.parent;
  return jobs.map((job) => ({ ...job, policy, downtimeMs: job.event === 'up' ? downtimeMs : job.downtimeMs }));
}

/**
 * A reminder goes to the channels it is due on only, each with its own number
 * (§3). One due on a group goes to the group's members too: they got the
 * down message through it, so the group's repeat_every is theirs. A member
 * whose own reminder is due at the same time keeps its own number; each
 * channel is told once per event however it is reached.
 */
function reminderJobs(store: Store, ev: StoredEvent, jobs: DeliveryJob[]): DeliveryJob[] {
  const due = ev.reminders ?? [];
  const numbers = new Map(due.map((r) => [r.channelId, r.number]));
  for (const r of due) {
    const channel = store.getChannel(r.channelId);
    if (channel?.kind !== 'group') continue;
    for (const member of groupMembers(channel, (id) => store.getChannel(id))) if (!numbers.has(member.id)) numbers.set(member.id, r.number);
  }
  return jobs.flatMap((job) => {
    const reminder = numbers.get(job.channelId);
    if (reminder === undefined) return [];
    return [{ ...job, policy: { reminder, downSince: job.flip.created, remindedAt: ev.at } }];
  });
}
