// The value of a `telegram` channel: the chat (and forum topic) the daemon's
// bot sends to, as upstream stores it or as a bare chat id. Pure.
import { onlyKeys, parseJsonObject, str, ValueError } from '../value-rules.js';

const KIND = 'telegram';

export interface TelegramConf {
  chatId: number;
  threadId: number | null;
  /** The stored JSON object (null for a bare chat id), kept whole when the chat id moves. */
  doc: Record<string, unknown> | null;
}

function chatId(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new ValueError(`--value for a telegram channel: ${what} must be a whole number`);
  return v;
}

/** `{"id": <chat id>, "thread_id": <topic id or null>, "type", "name"}`, or a bare chat id. */
export function parseTelegramValue(value: string): TelegramConf {
  if (/^-?\d+$/.test(value)) return { chatId: chatId(Number(value), 'the chat id'), threadId: null, doc: null };
  const doc = parseJsonObject(KIND, value);
  onlyKeys(KIND, doc, ['id', 'type', 'name', 'thread_id']);
  str(KIND, doc, 'type', '');
  str(KIND, doc, 'name', '');
  const threadId = doc.thread_id === undefined || doc.thread_id === null ? null : chatId(doc.thread_id, '"thread_id"');
  return { chatId: chatId(doc.id, '"id"'), threadId, doc };
}

/** The value with the chat's new id (a group that became a supergroup), in the form it was stored in. */
export function movedTelegramValue(conf: TelegramConf, newId: number): string {
  return conf.doc ? JSON.stringify({ ...conf.doc, id: newId }) : String(newId);
}
