// The older pages of the open check's pings and flips, loaded on demand
// (ListPings, ListFlips) behind what GetCheck returned: when the ping cursor
// or the flips reach the end of what is loaded, or the history window reaches
// further back than the flips loaded.
import { useCallback, useEffect, useRef, useState } from 'react';
import { describeGrpcError } from '../rpc.js';
import { NO_OLDER, type OlderPages } from '../history.js';
import type { CheckdBackend } from '../watch-client.js';
import type { FlipMsg, PingMsg } from '../wire.js';

/** Pings or flips per page asked for. */
export const HISTORY_PAGE = 100;

export interface Older extends OlderPages {
  /** Load the page before `oldest` (the last ping or flip shown), unless one is on its way. */
  loadPings(oldest: PingMsg): void;
  loadFlips(oldest: FlipMsg): void;
  error: string | null;
}

export function useOlderHistory(backend: CheckdBackend, id: string | null): Older {
  const [pages, setPages] = useState<OlderPages & { id: string | null; error: string | null }>({ ...NO_OLDER, id, error: null });
  const loading = useRef({ pings: false, flips: false });
  // Another check: start over.
  useEffect(() => {
    loading.current = { pings: false, flips: false };
    setPages({ ...NO_OLDER, id, error: null });
  }, [id]);

  const loadPings = useCallback(
    (oldest: PingMsg) => {
      if (!id || loading.current.pings) return;
      loading.current.pings = true;
      backend.listPings(id, oldest.n, HISTORY_PAGE).then(
        (res) =>
          setPages((p) => {
            if (p.id !== id) return p;
            loading.current.pings = false;
            // The page follows on from the one asked about: older pages loaded before it are replaced.
            const kept = p.pings.filter((x) => x.n > oldest.n);
            return { ...p, pings: [...kept, ...res.pings], pingsMore: res.more, error: null };
          }),
        (err: unknown) => {
          loading.current.pings = false;
          setPages((p) => (p.id === id ? { ...p, error: describeGrpcError(err) } : p));
        },
      );
    },
    [backend, id],
  );

  const loadFlips = useCallback(
    (oldest: FlipMsg) => {
      if (!id || loading.current.flips) return;
      loading.current.flips = true;
      backend.listFlips(id, oldest.revision, HISTORY_PAGE).then(
        (res) =>
          setPages((p) => {
            if (p.id !== id) return p;
            loading.current.flips = false;
            const kept = p.flips.filter((x) => x.revision > oldest.revision);
            return { ...p, flips: [...kept, ...res.flips], flipsMore: res.more, error: null };
          }),
        (err: unknown) => {
          loading.current.flips = false;
          setPages((p) => (p.id === id ? { ...p, error: describeGrpcError(err) } : p));
        },
      );
    },
    [backend, id],
  );

  const current = pages.id === id ? pages : { ...NO_OLDER, error: null };
  return { ...current, loadPings, loadFlips };
}
