// The gRPC server's listening sockets and connections, owned here rather than
// by grpc-js, which is handed each accepted connection. At shutdown a
// connection whose peer stopped reading cannot be closed gracefully: its
// unsent bytes never drain, and grpc-js's forced close still waits for them
// (Node ends an HTTP/2 session's socket only once it has flushed), so the
// daemon never exited. Owning the sockets, shutdown can destroy them.
import { lstatSync, unlinkSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { parseHostPort } from '../config/values.js';

export interface GrpcListener {
  /** The address actually bound (port 0 resolved). */
  address: string;
  /** No new connections; the open ones stay. */
  stopAccepting(): Promise<void>;
  /** Cut every open connection at once, flushed or not. */
  destroyConnections(): void;
}

/**
 * Listen on `address` (host:port or unix:path, as grpc-js takes it) and hand
 * each connection to `accept`. A host name is bound on every address it
 * resolves to, as grpc-js binds it; the listener fails only if none binds.
 */
export async function listenForGrpc(address: string, accept: (socket: Socket) => void): Promise<GrpcListener> {
  const sockets = new Set<Socket>();
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    // As gRPC's own servers do: an event must not wait on Nagle for the ACK of the one before.
    socket.setNoDelay(true);
    socket.once('close', () => sockets.delete(socket));
    accept(socket);
  };
  let servers: Server[];
  let bound: string;
  if (address.startsWith('unix:')) {
    const path = address.startsWith('unix://') ? address.slice('unix://'.length) : address.slice('unix:'.length);
    await removeStaleSocket(path);
    servers = [await listen(onConnection, { path })];
    bound = address;
  } else {
    const { host, port } = parseHostPort(address, '--grpc-listen');
    const hosts = [...new Set((await lookup(host, { all: true, verbatim: true })).map((a) => a.address))];
    servers = [];
    let firstError: unknown = null;
    let actualPort = port;
    for (const h of hosts) {
      try {
        const server = await listen(onConnection, { host: h, port: actualPort, exclusive: true });
        servers.push(server);
        // The first address decides the port of the others, as grpc-js does for port 0.
        const a = server.address();
        if (a && typeof a === 'object') actualPort = a.port;
      } catch (err) {
        firstError ??= err;
      }
    }
    if (servers.length === 0) throw firstError ?? new Error(`${host} resolves to no address`);
    bound = address.replace(/:\d+$/, `:${actualPort}`);
  }
  return {
    address: bound,
    stopAccepting: () => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => {}),
    destroyConnections: () => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}

function listen(onConnection: (socket: Socket) => void, options: { path: string } | { host: string; port: number; exclusive: boolean }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(onConnection);
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
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
