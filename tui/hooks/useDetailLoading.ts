// The pings and flips of the check whose details are open, from GetCheck.
import { useEffect, useState } from 'react';
import { describeGrpcError } from '../rpc.js';
import type { CheckdBackend } from '../watch-client.js';
import type { CheckDetailMsg } from '../wire.js';

/** Pings and flips asked for: more than any terminal shows. */
export const DETAIL_LIMIT = 100;

/** After a change, wait this long before asking: a burst of pings costs one call. */
const REFETCH_DELAY_MS = 100;

export interface Detail {
  data: CheckDetailMsg | null;
  error: string | null;
}

const NOTHING: Detail = { data: null, error: null };

/**
 * The details of check `id` (null: none open). Fetched on open, and again
 * shortly after `version` changes (the Watch reported a ping or flip for it)
 * or once the link is `live` again. What was loaded stays until the next
 * answer, also across closing and reopening the same check.
 */
export function useDetailLoading(backend: CheckdBackend, id: string | null, version: unknown, live: boolean): Detail {
  const [loaded, setLoaded] = useState<(Detail & { id: string }) | null>(null);
  useEffect(() => {
    if (!id || !live) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      backend.getCheck(id, DETAIL_LIMIT).then(
        (data) => !cancelled && setLoaded({ id, data, error: null }),
        (err: unknown) =>
          !cancelled && setLoaded((l) => ({ id, data: l?.id === id ? l.data : null, error: describeGrpcError(err) })),
      );
    }, REFETCH_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [backend, id, version, live]);
  return loaded !== null && loaded.id === id ? loaded : NOTHING;
}
