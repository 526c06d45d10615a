// What one delivery attempt answers, and the HTTP request and answer the
// transports and the service integrations share (transports.ts makes the
// request; kinds/ build it and read the answer).

export type DeliveryResult =
  | {
      ok: true;
      noop?: boolean;
      /** The channel's value as the service says it is now (a Telegram chat that moved): to be stored. */
      channelValue?: string;
    }
  | {
      ok: false;
      error: string;
      /** Retrying cannot help (4xx, bad configuration): give up at once. */
      permanent: boolean;
      /** The service (or its stated rate limit) asks to wait this long before the next attempt. */
      retryAfterMs?: number;
      channelValue?: string;
    };

export interface HttpCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

/** The final answer to an HTTP request (after redirects), or why there is none. */
export type HttpOutcome =
  | { ok: true; status: number; body: string; headers: Headers }
  | { ok: false; error: string; permanent: boolean };
