// The gRPC server around the service: standard health checking, server
// reflection, unix-socket listening, and connections that stay open between
// calls.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { existsSync, lstatSync, writeFileSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { service as healthService } from 'grpc-health-check';
import { PROTO_FILE, SERVICE_NAME } from '../../proto/checkd.js';
import { FileDescriptorProto } from 'protobufjs/ext/descriptor/index.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { setupSuite } from '../helpers/cleanup.js';
import { createCheck } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { tempDir } from '../helpers/temp.js';
import { connect, rpc, Watcher } from './support.js';

let d: InProcessDaemon;
let p: TestProject;

setupSuite(async () => {
  d = await startInProcess();
  p = await d.createProject();
});

type HealthClient = grpc.Client & {
  Check(req: { service: string }, cb: grpc.requestCallback<{ status: string }>): grpc.ClientUnaryCall;
};

function healthClient(address: string): HealthClient {
  const Ctor = grpc.makeGenericClientConstructor(healthService, 'Health');
  return new Ctor(address, grpc.credentials.createInsecure()) as unknown as HealthClient;
}

function healthCheck(c: HealthClient, service: string): Promise<{ status: string }> {
  return new Promise((resolve, reject) => c.Check({ service }, (err, res) => (err ? reject(err) : resolve(res!))));
}

describe('grpc.health.v1.Health', () => {
  it('reports SERVING for the server and for checkd.v1.Checkd (no API key needed), NOT_FOUND for others', async () => {
    const c = healthClient(d.daemon.grpcAddress);
    onTestFinished(() => c.close());
    expect(await healthCheck(c, '')).toEqual({ status: 'SERVING' });
    expect(await healthCheck(c, SERVICE_NAME)).toEqual({ status: 'SERVING' });
    const err = (await healthCheck(c, 'checkd.v9.Nope').catch((e: unknown) => e)) as grpc.ServiceError;
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });
});

/** The reflection protos shipped with @grpc/reflection. */
function reflectionClient(address: string, version: 'v1' | 'v1alpha'): grpc.Client & Record<string, any> {
  const require = createRequire(import.meta.url);
  const root = join(dirname(require.resolve('@grpc/reflection')), '../proto');
  const def = protoLoader.loadSync(join(root, `grpc/reflection/${version}/reflection.proto`), {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [root],
  });
  const pkg = grpc.loadPackageDefinition(def) as any;
  const Ctor = pkg.grpc.reflection[version].ServerReflection as grpc.ServiceClientConstructor;
  return new Ctor(address, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
}

/** One request on the bidirectional ServerReflectionInfo stream, one response. */
function reflect(c: grpc.Client & Record<string, any>, request: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const call = c.ServerReflectionInfo();
    call.on('data', (res: unknown) => {
      resolve(res);
      call.end();
    });
    call.on('error', reject);
    call.write(request);
  });
}

describe('server reflection', () => {
  for (const version of ['v1', 'v1alpha'] as const) {
    it(`${version}: lists checkd.v1.Checkd and serves its file descriptor`, async () => {
      const c = reflectionClient(d.daemon.grpcAddress, version);
      onTestFinished(() => c.close());
      const listed = await reflect(c, { list_services: '' });
      const names = listed.list_services_response.service.map((s: { name: string }) => s.name);
      expect(names).toContain(SERVICE_NAME);

      const file = await reflect(c, { file_containing_symbol: SERVICE_NAME });
      const descriptors: Buffer[] = file.file_descriptor_response.file_descriptor_proto;
      expect(descriptors.length).toBeGreaterThan(0);
      // Serialized FileDescriptorProtos (file names are synthesized by @grpc/reflection).
      const text = Buffer.concat(descriptors).toString('latin1');
      for (const name of ['checkd.v1', 'Checkd', 'Watch', 'WatchEvent', 'since_revision', 'EVENT_TYPE_HEARTBEAT']) {
        expect(text).toContain(name);
      }
    });

    it(`${version}: lists every service served, health and reflection too, and names files by their import path`, async () => {
      const c = reflectionClient(d.daemon.grpcAddress, version);
      try {
        const listed = await reflect(c, { list_services: '' });
        const names = listed.list_services_response.service.map((s: { name: string }) => s.name).sort();
        expect(names).toEqual(
          [SERVICE_NAME, 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'].sort(),
        );
        // protobufjs's descriptor types, as @grpc/reflection itself reads them.
        const decode = (bin: Buffer): any => FileDescriptorProto.decode(bin);
        const fileName = async (symbol: string) => {
          const res = await reflect(c, { file_containing_symbol: symbol });
          return decode(res.file_descriptor_response.file_descriptor_proto[0]).name;
        };
        expect(await fileName(SERVICE_NAME)).toBe(PROTO_FILE);
        expect(PROTO_FILE).toBe('checkd/v1/checkd.proto');
        expect(existsSync(join(REPO_ROOT, 'proto', PROTO_FILE))).toBe(true);
        expect(await fileName('grpc.health.v1.Health')).toBe('grpc/health/v1/health.proto');
        expect(await fileName(`grpc.reflection.${version}.ServerReflection`)).toBe(`grpc/reflection/${version}/reflection.proto`);
        // The file is found by that name, and holds the whole service with the fields added since v1 began.
        const byName = await reflect(c, { file_by_filename: PROTO_FILE });
        const file = decode(byName.file_descriptor_response.file_descriptor_proto[0]);
        expect(file.name).toBe(PROTO_FILE);
        expect(file.package).toBe('checkd.v1');
        expect(file.service[0]!.method.map((m: { name: string }) => m.name)).toEqual(
          expect.arrayContaining(['GetCheck', 'ListPings', 'ListFlips', 'GetPingBody', 'Watch']),
        );
      } finally {
        c.close();
      }
    });
  }
});

describe('connections', () => {
  it('stay open between calls instead of being closed as soon as they are idle', async () => {
    const client = connect(d.daemon.grpcAddress);
    const channel = client.getChannel();
    const states: string[] = [];
    let watching = true;
    const follow = (current: grpc.connectivityState) => {
      states.push(grpc.connectivityState[current]);
      channel.watchConnectivityState(current, Date.now() + 60_000, () => {
        if (watching) follow(channel.getConnectivityState(false));
      });
    };
    onTestFinished(() => void (watching = false));
    follow(channel.getConnectivityState(false));
    for (let i = 0; i < 4; i++) {
      await rpc(client, 'GetProject', {}, p.apiKey);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(states).toEqual(['IDLE', 'CONNECTING', 'READY']);
  });
});

/** Leave a socket file behind the way a killed daemon does: bound, then SIGKILLed. */
async function staleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout, 'data');
  child.kill('SIGKILL');
  await once(child, 'exit');
  expect(lstatSync(path).isSocket()).toBe(true);
}

describe('unix socket', () => {
  it('serves the same API on unix:/path, also over a stale socket file of a killed process', async () => {
    const dir = tempDir('checkd-sock-');
    const sock = join(dir, 'grpc.sock');
    for (let round = 0; round < 2; round++) {
      if (round === 1) await staleSocket(sock);
      const u = await startInProcess({ grpcListen: `unix:${sock}`, dataDir: join(dir, 'data') });
      expect(u.daemon.grpcAddress).toBe(`unix:${sock}`);
      expect(existsSync(sock)).toBe(true);
      const proj = round === 0 ? await u.createProject({ name: 'over-unix' }) : null;
      const key = proj?.apiKey ?? readFileSync(join(dir, 'key'), 'utf8');
      if (proj) writeFileSync(join(dir, 'key'), proj.apiKey);
      const client = connect(u.daemon.grpcAddress);
      expect(await rpc(client, 'GetProject', {}, key)).toMatchObject({ name: 'over-unix' });
      if (round === 0) await createCheck(u.url, key, { name: 'via-http' });
      const w = new Watcher(client, key);
      await w.until(() => w.events.length >= 1, 'the snapshot');
      expect(w.events[0]!.checks.map((c) => c.name)).toEqual(['via-http']);
      w.cancel();
      const health = healthClient(u.daemon.grpcAddress);
      expect(await healthCheck(health, SERVICE_NAME)).toEqual({ status: 'SERVING' });
      health.close();
      // The next round binds the same socket path.
      client.close();
      await u.stop();
    }
  });

  it('refuses to replace a path that is not a socket', async () => {
    const dir = tempDir('checkd-sock-');
    const path = join(dir, 'not-a-socket');
    writeFileSync(path, 'precious');
    await expect(startInProcess({ grpcListen: `unix:${path}`, dataDir: join(dir, 'data') })).rejects.toThrow();
    expect(readFileSync(path, 'utf8')).toBe('precious');
  });
});
