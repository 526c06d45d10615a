// Who undoes what a helper started (a daemon, a temp dir, a store, a receiver):
// the running test, through Vitest's onTestFinished, or the enclosing
// setupSuite block after its last test. Helpers register their own undo step
// here, so test bodies need no try/finally; a test body's own undo steps go to
// onTestFinished, a setupSuite block's to onCleanup.
import { afterAll, beforeAll, onTestFinished } from 'vitest';

export type Undo = () => unknown;

/** The undo list of the setupSuite block that is running its setup, if any. */
let suiteUndo: Undo[] | null = null;

/**
 * Run `undo` when the current test finishes (newest first), or after the suite
 * when called from setupSuite. `timeoutMs` bounds a test's undo step (default
 * the hook timeout); a suite's steps share the suite's after hook.
 */
export function onCleanup(undo: Undo, timeoutMs?: number): void {
  if (suiteUndo) {
    suiteUndo.push(undo);
    return;
  }
  try {
    onTestFinished(async () => void (await undo()), timeoutMs);
  } catch (err) {
    throw new Error('nothing would stop this: start it inside a test or in a setupSuite() block', { cause: err });
  }
}

/**
 * beforeAll for shared resources: whatever helpers start inside `setup` is
 * stopped after the last test of the enclosing describe block (or file),
 * newest first, even when the setup itself fails half-way.
 */
export function setupSuite(setup: () => Promise<void> | void, timeoutMs?: number): void {
  const undo: Undo[] = [];
  beforeAll(async () => {
    suiteUndo = undo;
    try {
      await setup();
    } finally {
      suiteUndo = null;
    }
  }, timeoutMs);
  afterAll(() => undoAll(undo));
}

async function undoAll(undo: Undo[]): Promise<void> {
  const errors: unknown[] = [];
  while (undo.length) {
    try {
      await undo.pop()!();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, 'several suite cleanups failed');
}
