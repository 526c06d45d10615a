// Resolving the `channels` parameter (api-details §6.10): "*", "" or a
// comma-separated list of channel UUIDs or names, each matching exactly one.
import type { ChannelRecord } from './types.js';

export type ChannelResolution = { ok: true; ids: string[] } | { ok: false; error: string };

export function resolveChannels(spec: string, available: ChannelRecord[]): ChannelResolution {
  if (spec === '*') return { ok: true, ids: available.map((c) => c.id).sort() };
  if (spec === '') return { ok: true, ids: [] };
  const ids = new Set<string>();
  // Pieces are not trimmed: whitespace in a name is significant.
  for (const piece of spec.split(',')) {
    if (piece === '') return { ok: false, error: 'empty channel identifier' };
    const matches = available.filter((c) => c.id === piece || c.name === piece);
    if (matches.length === 0) return { ok: false, error: `invalid channel identifier: ${piece}` };
    if (matches.length > 1) return { ok: false, error: `non-unique channel identifier: ${piece}` };
    ids.add(matches[0]!.id);
  }
  return { ok: true, ids: [...ids].sort() };
}
