// Keys from Ink to a handler, one per commit, none lost. Each key is handled in
// a layout effect after the render the previous key caused, so every key sees
// the state all earlier keys produced. Handled straight in Ink's callback,
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

/** Calls the latest `onKey` for every key, in order. */
export function useKeyQueue(onKey: KeyHandler): void {
  const onKeyRef = useRef(onKey);
  onKeyRef.current = onKey;
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
    const next = queue.current.shift();
    if (!next) return;
    onKeyRef.current(next[0], next[1]);
    // The next key after this one's render; setImmediate rather than a nested
    // update, so a long paste cannot hit React's nested-update limit.
    if (queue.current.length > 0) setImmediate(() => setTurn((t) => t + 1));
  }, [turn]);
}
