// The gRPC server: standard health service now; the checkd.v1 service is added
// by addServices. Keepalive settings let a Watch stream live for days through
// NAT and SSH tunnels.
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { listenForGrpc } from './listener.js';
import type { Logger } from '../shared/log.js';

export interface GrpcServerHandle {
  server: grpc.Server;
  health: HealthImplementation;
  /** The address actually bound (port 0 resolved). */
  address: string;
  shutdown(): Promise<void>;
}

export const KEEPALIVE_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': 10_000,
  // No 'grpc.max_connection_idle_ms': grpc-js treats any value below 2^31-1 as
  // a real limit, so 0 closed every connection the moment it had no call
  // (each unary call reconnected). Left unset, idle connections stay open.
};

/** Largest request message: every request is a few ids and numbers. */
export const MAX_REQUEST_BYTES = 64 * 1024;

const SERVER_OPTIONS: grpc.ServerOptions = {
  ...KEEPALIVE_OPTIONS,
  // grpc-js reads a whole message before any handler can look at the key: with
  // its 4 MiB default, unauthenticated streams each holding a message a byte
  // short took gigabytes. Answers (snapshots, pages) are not limited by this.
  'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
  'grpc.max_concurrent_streams': 100,
};

/**
 * grpc-js writes its own messages to stderr as plain text ("E No address
 * added..."); the daemon's stderr carries JSON lines only, so they go through
 * the daemon's logger instead.
 */
export function logGrpcThrough(logger: Logger): void {
  grpc.setLogger({
    error: (...args: unknown[]) => logger.warn(format(...args)),
    info: (...args: unknown[]) => logger.info(format(...args)),
    debug: (...args: unknown[]) => logger.debug(format(...args)),
  });
}

/**
 * How long shutdown lets calls end by themselves (a Watch is told UNAVAILABLE
 * at once) before every connection is cut: far below systemd's TimeoutStopSec
 * (30 s), together with HTTP's own grace.
 */
export const GRPC_SHUTDOWN_GRACE_MS = 3000;

export async function startGrpcServer(
  address: string,
  addServices: (server: grpc.Server, health: HealthImplementation) => void = () => {},
): Promise<GrpcServerHandle> {
  const server = new grpc.Server(SERVER_OPTIONS);
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  addServices(server, health);
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  let listener: Awaited<ReturnType<typeof listenForGrpc>>;
  try {
    listener = await listenForGrpc(address, (socket) => injector.injectConnection(socket));
  } catch (err) {
    server.forceShutdown();
    throw err;
  }
  health.setStatus('', 'SERVING');
  let stopping: Promise<void> | null = null;
  return {
    server,
    health,
    address: listener.address,
    shutdown: () =>
      (stopping ??= new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        const closed = listener.stopAccepting();
        const done = () => {
          clearTimeout(timer);
          listener.destroyConnections();
          void closed.then(() => resolve());
        };
        // Connections still open then are cut whether they flushed or not: grpc-js's
        // own forced close would wait for a peer that stopped reading.
        const timer = setTimeout(() => {
          server.forceShutdown();
          done();
        }, GRPC_SHUTDOWN_GRACE_MS);
        server.tryShutdown(done);
      })),
  };
}
