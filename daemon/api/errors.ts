// The HTTP layer's one error type. Routes and hooks throw an HttpError for every
// refusal; the app's error handler (server.ts) sends it, so each refusal's exact
// status, body and type are spelled here and sent from one place.
import type { FastifyReply } from 'fastify';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    /** Sent as is with `type`; an object is sent as Fastify's JSON (`application/json; charset=utf-8`). */
    readonly body: string | Record<string, unknown> = '',
    readonly type = 'text/plain',
    /** Headers of this answer besides the type (the route's own, set before, stay too). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body === 'string' ? body || `HTTP ${statusCode}` : JSON.stringify(body));
  }

  /** The API's JSON refusal, `{"error": message}`. */
  static json(statusCode: number, message: string): HttpError {
    return new HttpError(statusCode, { error: message });
  }

  /**
   * An empty text/plain answer: the path matches no route (404), a check of
   * another project (403)... as upstream answers them, with no message.
   */
  static empty(statusCode: number): HttpError {
    return new HttpError(statusCode);
  }

  /** 405 with the methods the path does serve. */
  static methodNotAllowed(allow: string): HttpError {
    return new HttpError(405, '', 'text/plain', { Allow: allow });
  }
}

export function sendHttpError(reply: FastifyReply, err: HttpError): FastifyReply {
  reply.code(err.statusCode).headers(err.headers);
  if (typeof err.body === 'string') reply.type(err.type);
  return reply.send(err.body);
}
