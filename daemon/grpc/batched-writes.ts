// grpc-js's server stream is a Writable without _writev: it hands gRPC one
// message at a time and waits for HTTP/2 to flush it before the next, so a
// stream moves one message per turn of the event loop. With many watchers,
// each turn writes to every connection, and a burst of events queued behind
// that pace for tens of milliseconds. Giving the stream a _writev lets the
// Writable pass everything it has buffered at once; HTTP/2 then frames it in
// one write. Backpressure stays the Writable's own (write() returns false,
// 'drain'), and end() still waits for every message before the status.
import type { Writable } from 'node:stream';

interface MessageSender {
  sendMessage(message: unknown, callback: () => void): void;
}

/** The call grpc-js wraps in its stream (the same one its _write sends through). */
function senderOf(stream: Writable): MessageSender | null {
  const inner = (stream as unknown as { call?: Partial<MessageSender> }).call;
  return inner && typeof inner.sendMessage === 'function' ? (inner as MessageSender) : null;
}

/**
 * Let `stream` (a grpc-js server stream) write its buffered messages together.
 * Leaves it as it is when grpc-js's shape is not the one this was written for.
 */
export function batchWrites(stream: Writable): void {
  const sender = senderOf(stream);
  if (!sender) return;
  stream._writev = (chunks, callback) => {
    let left = chunks.length;
    // grpc-js calls back only on success; on failure it ends the call itself.
    const sent = () => {
      if (--left === 0) callback();
    };
    for (const { chunk } of chunks) sender.sendMessage(chunk, sent);
  };
}
