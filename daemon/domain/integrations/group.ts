// The value of a `group` channel and which channels it reaches: other
// channels of the same project, never a group (groups do not nest). Pure:
// the channels are looked up through the function it is given.
import { UUID_RE } from '../ids.js';
import type { ChannelRecord } from '../types.js';
import { ValueError } from '../value-rules.js';

const KIND = 'group';

type GetChannel = (id: string) => ChannelRecord | undefined;

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
export function groupMembersError(ids: readonly string[], projectId: string, getChannel: GetChannel): string | null {
  for (const id of ids) {
    const member = getChannel(id);
    if (!member || member.projectId !== projectId) return `--value for a group channel: no channel ${id} in this project`;
    if (member.kind === KIND) return `--value for a group channel: ${id} is a group; groups cannot contain groups`;
  }
  return null;
}

/** Of these ids, the channels a group of `projectId` delivers to now: those that exist there and are not groups. */
export function resolveMembers(ids: readonly string[], projectId: string, getChannel: GetChannel): ChannelRecord[] {
  const out: ChannelRecord[] = [];
  for (const id of ids) {
    const member = getChannel(id);
    if (member && member.projectId === projectId && member.kind !== KIND) out.push(member);
  }
  return out;
}

/** The members a group delivers to now; vanished ones are left out. */
export function groupMembers(group: ChannelRecord, getChannel: GetChannel): ChannelRecord[] {
  try {
    return resolveMembers(parseGroupValue(group.value), group.projectId, getChannel);
  } catch {
    return [];
  }
}
