// The checkd.v1 interface as both ends load it: proto/checkd/v1/checkd.proto
// read with @grpc/proto-loader. The daemon (daemon/grpc/) and checktop (tui/)
// both load it from here, so they always speak the same file.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The file's name below its import root (proto/), as protoc and reflection clients name it. */
export const PROTO_FILE = 'checkd/v1/checkd.proto';

export const SERVICE_NAME = 'checkd.v1.Checkd';

/**
 * The import root holding PROTO_FILE, found by walking up from this module:
 * it is this module's own directory in the sources (proto/), and the
 * repository's or package's proto/ from the build (dist/proto/).
 */
export function protoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const root of [dir, join(dir, 'proto')]) if (existsSync(join(root, PROTO_FILE))) return root;
    dir = dirname(dir);
  }
  throw new Error(`cannot find proto/${PROTO_FILE}`);
}

/** The proto file's absolute path. */
export function protoFile(): string {
  return join(protoRoot(), PROTO_FILE);
}

/** How messages look in JavaScript: field names as in the proto, 64-bit numbers as Number, enums as their names, defaults filled in. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export interface CheckdProto {
  definition: protoLoader.PackageDefinition;
  service: grpc.ServiceDefinition;
  client: grpc.ServiceClientConstructor;
}

let cached: CheckdProto | null = null;

export function loadCheckdProto(): CheckdProto {
  if (cached) return cached;
  const definition = protoLoader.loadSync(PROTO_FILE, { ...LOADER_OPTIONS, includeDirs: [protoRoot()] });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    checkd: { v1: { Checkd: grpc.ServiceClientConstructor } };
  };
  const client = pkg.checkd.v1.Checkd;
  cached = { definition, service: client.service, client };
  return cached;
}
