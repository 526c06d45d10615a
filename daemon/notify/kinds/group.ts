// Group (`group`): a list of other channels of the same project, each of which
// gets the group's notifications through its own transport. The notifier
// gives every member a delivery of its own when it queues the group's (so each
// member keeps its order, retries and record, and a member that is also
// assigned directly is told once); `checkd channel test` delivers to the
// members at once. A group is never a no-op and never fails for good.
import { UUID_RE } from '../../domain/ids.js';
import { ValueError } from '../../domain/value-rules.js';
import type { ChannelRecord } from '../../domain/types.js';
import type { DeliveryResult } from '../transports.js';
import type { KindModule } from './kind.js';

const KIND = 'group';

/** The member ids of a group's value: channel UUIDs separated by commas, each once. */
export function parseGroupValue(value: string): string[] {
  const ids = value.split(',').map((id) => id.trim());
  if (value.trim() === '' || ids.some((id) => !UUID_RE.test(id))) {
    throw new ValueError(`--value for a group channel must be channel ids separated by commas, got "${value}"`);
  }
  return [...new Set(ids)];
}

/**
 * Why a group may not have these members, or null: each must be a channel of
 * the group's project and not a group itself (groups do not nest).
 */
export function groupMembersError(ids: readonly string[], projectId: string, getChannel: (id: string) => ChannelRecord | undefined): string | null {
  for (const id of ids) {
    const member = getChannel(id);
    if (!member || member.projectId !== projectId) return `--value for a group channel: no channel ${id} in this project`;
    if (member.kind === KIND) return `--value for a group channel: ${id} is a group; groups cannot contain groups`;
  }
  return null;
}

/** Of these ids, the channels a group of `projectId` delivers to now: those that exist there and are not groups. */
export function resolveMembers(ids: readonly string[], projectId: string, getChannel: (id: string) => ChannelRecord | undefined): ChannelRecord[] {
  const out: ChannelRecord[] = [];
  for (const id of ids) {
    const member = getChannel(id);
    if (member && member.projectId === projectId && member.kind !== KIND) out.push(member);
  }
  return out;
}

/** The members a group delivers to now; vanished ones are left out. */
export function groupMembers(group: ChannelRecord, getChannel: (id: string) => ChannelRecord | undefined): ChannelRecord[] {
  try {
    return resolveMembers(parseGroupValue(group.value), group.projectId, getChannel);
  } catch {
    return [];
  }
}

/** A group's result from its members' results (no-ops count as delivered). */
export function groupResult(results: readonly DeliveryResult[]): DeliveryResult {
  const failed = results.filter((r) => !r.ok).length;
  if (failed === 0) return { ok: true };
  return { ok: false, error: `${failed} out of ${results.length} notifications failed`, permanent: false };
}

export const group: KindModule = {
  kind: KIND,
  parse(value) {
    const ids = parseGroupValue(value);
    return {
      isNoop: () => false,
      // Without a fan-out (the notifier) the members were queued with the group: nothing is left to do.
      deliver: async (_n, ctx) => (ctx.fanOut ? ctx.fanOut(ids) : { ok: true }),
    };
  },
};
