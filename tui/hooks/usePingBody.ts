// The body of one ping (a job's output), from GetPingBody, as printable lines.
// A ping's body never changes, so each is kept once loaded; a failure is asked
// again when `retry` changes (the link came back).
import { useEffect, useRef, useState } from 'react';
import { bodyLines } from '../body.js';
import { describeGrpcError } from '../rpc.js';
import type { CheckdBackend } from '../watch-client.js';

/** The most of a body asked for: more than anyone pages through on a terminal. */
export const MAX_BODY_BYTES = 1 << 20;

export type BodyState =
  | { state: 'none' }
  | { state: 'loading' }
  | { state: 'error'; error: string }
  | { state: 'loaded'; lines: string[]; truncated: boolean };

/** The body of ping `n` of check `id`; 'none' while there is no such ping to show. */
export function usePingBody(backend: CheckdBackend, id: string | null, n: number | null, retry: unknown): BodyState {
  const loaded = useRef(new Map<string, BodyState>());
  const key = id !== null && n !== null ? `${id}#${n}` : null;
  const [failed, setFailed] = useState<{ key: string; error: string } | null>(null);
  const [, setVersion] = useState(0);
  useEffect(() => {
    if (key === null || id === null || n === null || loaded.current.has(key)) return;
    let cancelled = false;
    backend.getPingBody(id, n, MAX_BODY_BYTES).then(
      (res) => {
        loaded.current.set(key, { state: 'loaded', lines: bodyLines(res.body), truncated: res.truncated });
        if (!cancelled) setVersion((v) => v + 1);
      },
      (err: unknown) => !cancelled && setFailed({ key, error: describeGrpcError(err) }),
    );
    return () => {
      cancelled = true;
    };
  }, [backend, key, id, n, retry]);
  if (key === null) return { state: 'none' };
  const found = loaded.current.get(key);
  if (found) return found;
  if (failed?.key === key) return { state: 'error', error: failed.error };
  return { state: 'loading' };
}
