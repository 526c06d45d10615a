// The reducer's clock: every `tickMs` statuses are recomputed (grace and down
// come on time without a server event) and highlights expire.
import { useEffect, type Dispatch } from 'react';
import type { Action } from '../state.js';

export function useClockTick(dispatch: Dispatch<Action>, clock: { readonly current: () => number }, tickMs: number): void {
  useEffect(() => {
    const timer = setInterval(() => dispatch({ type: 'tick', now: clock.current() }), tickMs);
    return () => clearInterval(timer);
  }, [dispatch, clock, tickMs]);
}
