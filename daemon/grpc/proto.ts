// The server's side of the proto (proto/checkd.ts loads it for both ends):
// Watch events encoded once for every stream.
import type * as grpc from '@grpc/grpc-js';
import { loadCheckdProto } from '../../proto/checkd.js';

/** The wire bytes of one WatchEvent, as gRPC would serialize it. */
export function encodeWatchEvent(msg: object): Buffer {
  return loadCheckdProto().service.Watch!.responseSerialize(msg);
}

/**
 * The service definition for the server: identical, except that Watch also
 * accepts events already encoded (a Buffer), which the watch hub encodes once
 * for all its streams instead of once per stream.
 */
export function serverServiceDefinition(): grpc.ServiceDefinition {
  const service = loadCheckdProto().service;
  const watch = service.Watch!;
  const serialize = watch.responseSerialize;
  return {
    ...service,
    Watch: { ...watch, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : serialize(value)) },
  };
}
