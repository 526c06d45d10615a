// The gRPC server: standard health service now; the checkd.v1 service is added
// by addServices. Keepalive settings let a Watch stream live for days through
// NAT and SSH tunnels.
import { lstatSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
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

export async function startGrpcServer(
  address: string,
  addServices: (server: grpc.Server, health: HealthImplementation) => void = () => {},
): Promise<GrpcServerHandle> {
  if (address.startsWith('unix:')) await removeStaleSocket(address.slice('unix:'.length));
  const server = new grpc.Server(SERVER_OPTIONS);
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  addServices(server, health);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const bound = address.startsWith('unix:') ? address : address.replace(/:\d+$/, `:${port}`);
  health.setStatus('', 'SERVING');
  return {
    server,
    health,
    address: bound,
    shutdown: () =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        const timer = setTimeout(() => server.forceShutdown(), 3000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/**
 * A socket file left by a daemon that was killed would make bind fail with
 * EADDRINUSE; only a socket is removed, never another kind of file, and never
 * one that a live process still answers on (another daemon's): that bind then
 * fails as a TCP address in use does.
 */
async function removeStaleSocket(path: string): Promise<void> {
  try {
    if (!lstatSync(path).isSocket()) return;
  } catch {
    return; // absent: nothing to clean
  }
  if (await answers(path)) return;
  try {
    unlinkSync(path);
  } catch {
    // gone meanwhile
  }
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
