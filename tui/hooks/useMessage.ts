// The footer's message of the moment ("paused backup-db", an error): shown
// until MESSAGE_MS have passed or the next key.
import { useCallback, useState } from 'react';

const MESSAGE_MS = 4000;

export interface Message {
  text: string;
  tone: 'info' | 'error';
  /** Local time until which it is shown. */
  until: number;
}

export type Say = (text: string, tone?: Message['tone']) => void;

export function useMessage(clock: () => number): { message: Message | null; say: Say; clear: () => void } {
  const [message, setMessage] = useState<Message | null>(null);
  const say = useCallback<Say>((text, tone = 'info') => setMessage({ text, tone, until: clock() + MESSAGE_MS }), [clock]);
  const clear = useCallback(() => setMessage(null), []);
  return { message, say, clear };
}
