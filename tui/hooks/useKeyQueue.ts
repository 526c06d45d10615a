// Keys from Ink to a handler, one per commit, none lost. Each key is handled in
// a layout effect after the render the previous key caused, so every key sees
// the state all earlier keys produced; keys typed before the table is ready
// wait for it. Handled straight in Ink's callback,
// keys would use the last render's closures: keys typed quickly, or arriving
// in one read over SSH ("jj", "/db⏎", which Ink hands over as one string),
// got lost.
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { useInput, type Key } from 'ink';

export type KeyHandler = (input: string, key: Key) => void;

/** One Key per character of a coalesced read; Enter and Backspace keep their meaning. */
export function splitKeys(input: string, base: Key): [string, Key][] {
  return Array.from(input, (ch): [string, Key] => {
    const k: Key = { ...base, return: false, backspace: false, delete: false, shift: /[A-Z]/.test(ch) };
    if (ch === '\r' || ch === '\n') return ['', { ...k, return: true }];
    if (ch === '\x7f') return ['', { ...k, delete: true }];
    if (ch === '\b') return ['', { ...k, backspace: true }];
    return [ch, k];
  });
}

export interface KeyQueueOptions {
  /**
   * False while keys should wait (the table is still loading: a move typed
   * ahead would move over nothing). They are handled, in order, once it is true.
   */
  ready?: boolean;
  /** Keys that never wait (quit), taken out of the queue at once. */
  urgent?: (input: string, key: Key) => boolean;
}

/** Calls the latest `onKey` for every key, in order; while not ready, only for urgent ones. */
export function useKeyQueue(onKey: KeyHandler, { ready = true, urgent = () => false }: KeyQueueOptions = {}): void {
  const onKeyRef = useRef(onKey);
  onKeyRef.current = onKey;
  const urgentRef = useRef(urgent);
  urgentRef.current = urgent;
  const queue = useRef<[string, Key][]>([]);
  const [turn, setTurn] = useState(0);
  useInput(
    useCallback((input: string, key: Key) => {
      if (input.length > 1 && !key.ctrl && !key.meta) queue.current.push(...splitKeys(input, key));
      else queue.current.push([input, key]);
      setTurn((t) => t + 1);
    }, []),
  );
  // A layout effect runs right after the commit, before anything else can happen.
  useLayoutEffect(() => {
    const isUrgent = ([input, key]: [string, Key]) => urgentRef.current(input, key);
    const at = ready ? 0 : queue.current.findIndex(isUrgent);
    if (at < 0 || at >= queue.current.length) return;
    const [next] = queue.current.splice(at, 1);
    onKeyRef.current(next![0], next![1]);
    // The next key after this one's render; setImmediate rather than a nested
    // update, so a long paste cannot hit React's nested-update limit.
    if (ready ? queue.current.length > 0 : queue.current.some(isUrgent)) setImmediate(() => setTurn((t) => t + 1));
  }, [turn, ready]);
}
