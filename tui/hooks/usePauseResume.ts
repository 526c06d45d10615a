// Pause and resume from the keyboard: refused with a reason when they cannot
// apply, otherwise asked as y/n (by the app), then called; the answer is shown
// at once and the Watch event that follows says the same.
import { useCallback, type Dispatch } from 'react';
import { describeGrpcError } from '../rpc.js';
import type { Action } from '../state.js';
import type { CheckdBackend } from '../watch-client.js';
import type { CheckMsg } from '../wire.js';
import type { Say } from './useMessage.js';

export type PauseOrResume = 'pause' | 'resume';

/** Why `action` cannot apply to `check`, or null when it can. */
export function refusal(action: PauseOrResume, check: CheckMsg, readOnly: boolean): string | null {
  if (readOnly) return 'this API key is read-only: pause and resume need a read-write key';
  const paused = check.stored_status === 'paused';
  if (action === 'pause' && paused) return `${check.name} is already paused`;
  if (action === 'resume' && !paused) return `${check.name} is not paused`;
  return null;
}

/** Runs a confirmed pause or resume of check `id` (called `name` in messages). */
export function usePauseResume(
  backend: CheckdBackend,
  dispatch: Dispatch<Action>,
  clock: () => number,
  say: Say,
): (action: PauseOrResume, id: string, name: string) => void {
  return useCallback(
    (action, id, name) => {
      const call = action === 'pause' ? backend.pauseCheck(id) : backend.resumeCheck(id);
      say(`${action === 'pause' ? 'pausing' : 'resuming'} ${name}…`);
      call.then(
        (check) => {
          dispatch({ type: 'check', check, now: clock() });
          say(`${action === 'pause' ? 'paused' : 'resumed'} ${name}`);
        },
        (err: unknown) => say(`${action} failed: ${describeGrpcError(err)}`, 'error'),
      );
    },
    [backend, dispatch, clock, say],
  );
}
