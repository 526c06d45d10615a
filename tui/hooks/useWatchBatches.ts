// The backend's Watch into the reducer. Events are queued and applied in
// batches, at most one per frame (EVENT_FRAME_MS), so a stream of pings costs
// a few sorts and frames a second, not one each; the first event after a
// quiet frame is applied on the next turn.
import { useEffect, type Dispatch } from 'react';
import type { Action } from '../state.js';
import type { CheckdBackend } from '../watch-client.js';
import type { WatchEventMsg } from '../wire.js';

/** The shortest time between two batches of Watch events applied: ten frames a second at most. */
export const EVENT_FRAME_MS = 100;

/** `clock` is read through a ref so that a new clock function never resubscribes the Watch. */
export function useWatchBatches(backend: CheckdBackend, dispatch: Dispatch<Action>, clock: { readonly current: () => number }): void {
  useEffect(() => {
    let queue: WatchEventMsg[] = [];
    // Each kind cleared by its own function: clearImmediate given a Timeout
    // would miscount Node's pending immediates.
    let timer: { kind: 'timeout'; handle: NodeJS.Timeout } | { kind: 'immediate'; handle: NodeJS.Immediate } | null = null;
    let lastFlush = -Infinity;
    const cancel = () => {
      if (timer?.kind === 'timeout') clearTimeout(timer.handle);
      else if (timer?.kind === 'immediate') clearImmediate(timer.handle);
      timer = null;
    };
    const flush = () => {
      cancel();
      if (queue.length === 0) return;
      lastFlush = performance.now();
      const events = queue;
      queue = [];
      dispatch({ type: 'events', events, now: clock.current() });
    };
    const unsubscribe = backend.subscribe((update) => {
      if (update.type === 'event') {
        queue.push(update.event);
        if (timer === null) {
          const wait = lastFlush + EVENT_FRAME_MS - performance.now();
          timer = wait > 0 ? { kind: 'timeout', handle: setTimeout(flush, wait) } : { kind: 'immediate', handle: setImmediate(flush) };
        }
        return;
      }
      flush(); // keep order: events received before a state change are applied first
      if (update.type === 'project') dispatch({ type: 'project', project: update.project });
      else dispatch({ type: 'connection', connection: update.connection });
    });
    return () => {
      unsubscribe();
      cancel();
      queue = [];
    };
  }, [backend, dispatch, clock]);
}
