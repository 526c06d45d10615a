// Loads proto/checkd/v1/checkd.proto with @grpc/proto-loader. Shared by the
// daemon and the checktop client, so both always speak the same file.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const RELATIVE = 'proto/checkd/v1/checkd.proto';

/** The proto file, found by walking up from this module (works from daemon/ and dist/daemon/). */
export function protoFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, RELATIVE);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`cannot find ${RELATIVE}`);
}

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

let cached: { definition: protoLoader.PackageDefinition; service: grpc.ServiceDefinition; client: grpc.ServiceClientConstructor } | null = null;

export function loadCheckdProto() {
  if (cached) return cached;
  const definition = protoLoader.loadSync(protoFile(), LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    checkd: { v1: { Checkd: grpc.ServiceClientConstructor } };
  };
  const client = pkg.checkd.v1.Checkd;
  cached = { definition, service: client.service, client };
  return cached;
}

export const SERVICE_NAME = 'checkd.v1.Checkd';

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
