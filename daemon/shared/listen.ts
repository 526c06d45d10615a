// Listening: the error that says which listener could not bind and why, and a
// probe of the TCP addresses before start-up opens the data dir, so that a port
// in use or an address this machine does not have fails with nothing written.
import { createServer } from 'node:net';
import type { ServeConfig } from '../config/serve.js';
import { parseHostPort } from '../config/values.js';

export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(what: 'HTTP' | 'gRPC', address: string, cause: unknown) {
    super(`cannot listen for ${what} on ${address}: ${describeListenError(cause)}`, { cause });
  }
}

function describeListenError(err: unknown): string {
  // grpc-js wraps the socket errors: "No address added ... errors: [listen EADDRINUSE: ...]".
  const text = err instanceof Error ? err.message : String(err);
  const code = (err as NodeJS.ErrnoException | null)?.code ?? /\b(E[A-Z]+)\b/.exec(text)?.[1];
  switch (code) {
    case 'EADDRINUSE':
      return 'address already in use (is another checkd running?)';
    case 'EADDRNOTAVAIL':
      return 'address not available on this machine';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name does not resolve';
    default:
      return text;
  }
}

/** Bind and release one TCP address; port 0 always binds and is not probed. */
async function probe(what: 'HTTP' | 'gRPC', host: string, port: number, shown: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (err) {
    throw new ListenError(what, shown, err);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Both TCP listen addresses, bound for a moment before anything is opened.
 * A race (the port taken between probe and bind) still fails the real bind.
 */
export async function probeListenAddresses(config: Pick<ServeConfig, 'listen' | 'grpcListen'>): Promise<void> {
  const { host, port } = config.listen;
  await probe('HTTP', host, port, `${host}:${port}`);
  if (config.grpcListen.startsWith('unix:')) return;
  const grpc = parseHostPort(config.grpcListen, '--grpc-listen');
  await probe('gRPC', grpc.host, grpc.port, config.grpcListen);
}
