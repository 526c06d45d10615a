// The server's side of the proto (proto/checkd.ts loads it for both ends):
// Watch events encoded once for every stream, and what reflection serves.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { LOADER_OPTIONS, loadCheckdProto, PROTO_FILE } from '../../proto/checkd.js';

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

/**
 * Server reflection over every service the server runs: checkd.v1.Checkd,
 * grpc.health.v1.Health and reflection itself (v1 and v1alpha), each file
 * under the name its import path gives it (checkd/v1/checkd.proto, as protoc
 * and generated clients know it; proto-loader would name it after its
 * package, checkd_v1.proto).
 */
export function reflectionService(): ReflectionService {
  const reflectionProtos = join(dirname(createRequire(import.meta.url).resolve('@grpc/reflection')), '../proto');
  const files: Array<[protoLoader.PackageDefinition, string]> = [
    [loadCheckdProto().definition, PROTO_FILE],
    [protoLoader.loadSync(healthProtoPath, LOADER_OPTIONS), 'grpc/health/v1/health.proto'],
  ];
  for (const version of ['v1', 'v1alpha']) {
    const file = `grpc/reflection/${version}/reflection.proto`;
    files.push([protoLoader.loadSync(file, { ...LOADER_OPTIONS, includeDirs: [reflectionProtos] }), file]);
  }
  const definition: protoLoader.PackageDefinition = {};
  for (const [def, name] of files) Object.assign(definition, named(def, name));
  return new ReflectionService(definition);
}

/** `def` with its file descriptors renamed `name`. */
function named(def: protoLoader.PackageDefinition, name: string): protoLoader.PackageDefinition {
  // FileDescriptorProto.name is field 1, a string; of a field that is not
  // repeated, protobuf parsers keep the last value, so one appended wins.
  const nameField = Buffer.concat([Buffer.from([0x0a]), varint(Buffer.byteLength(name)), Buffer.from(name)]);
  const out: protoLoader.PackageDefinition = {};
  for (const [symbol, value] of Object.entries(def)) {
    const protos = (value as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    out[symbol] = Array.isArray(protos)
      ? ({ ...value, fileDescriptorProtos: protos.map((bin: Buffer) => Buffer.concat([bin, nameField])) } as protoLoader.AnyDefinition)
      : value;
  }
  return out;
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  for (; n >= 0x80; n >>>= 7) bytes.push((n & 0x7f) | 0x80);
  bytes.push(n);
  return Buffer.from(bytes);
}
