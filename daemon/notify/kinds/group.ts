// Group (`group`): a list of other channels of the same project, each of which
// gets the group's notifications through its own transport. The notifier
// gives every member a delivery of its own when it queues the group's (so each
// member keeps its order, retries and record, and a member that is also
// assigned directly is told once); `checkd channel test` delivers to the
// members at once. A group is never a no-op and never fails for good.
import type { DeliveryResult } from '../delivery.js';
import type { KindModule } from './kind.js';

/** A group's result from its members' results (no-ops count as delivered). */
export function groupResult(results: readonly DeliveryResult[]): DeliveryResult {
  const failed = results.filter((r) => !r.ok).length;
  if (failed === 0) return { ok: true };
  return { ok: false, error: `${failed} out of ${results.length} notifications failed`, permanent: false };
}

export const group: KindModule<'group'> = {
  kind: 'group',
  // Without a fan-out (the notifier) the members were queued with the group: nothing is left to do.
  deliver: async ({ memberIds }, _n, ctx) => (ctx.fanOut ? ctx.fanOut(memberIds) : { ok: true }),
};
