// The Watch stream's _writev (daemon/grpc/batched-writes.ts) against the real
// grpc-js server and client: it must take hold on the grpc-js version in the
// lockfile (else streams silently fall back to one message per loop turn),
// keep every message in order, let end() send the status only after them all,
// and leave backpressure to the Writable.
import * as http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { batchWrites } from '../../daemon/grpc/batched-writes.js';
import { onCleanup } from '../helpers/cleanup.js';

const passThrough = (b: Buffer) => b;
const definition: grpc.ServiceDefinition = {
  Stream: {
    path: '/test.Batched/Stream',
    requestStream: false,
    responseStream: true,
    requestSerialize: passThrough,
    requestDeserialize: passThrough,
    responseSerialize: passThrough,
    responseDeserialize: passThrough,
    originalName: 'stream',
  },
};

type Handler = (call: grpc.ServerWritableStream<Buffer, Buffer>) => void;

type StreamClient = grpc.Client & { Stream(req: Buffer): grpc.ClientReadableStream<Buffer> };

async function serve(handler: Handler): Promise<{ client: StreamClient; port: number }> {
  const server = new grpc.Server();
  server.addService(definition, { Stream: handler });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const Client = grpc.makeGenericClientConstructor(definition, 'Batched');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as StreamClient;
  onCleanup(() => {
    client.close();
    server.forceShutdown();
  });
  return { client, port };
}

const message = (i: number) => {
  const b = Buffer.alloc(300);
  b.writeUInt32BE(i, 0);
  return b;
};

describe('batched writes on a grpc-js server stream', () => {
  it('takes hold, and every message arrives in order before the status', async () => {
    let installed = false;
    let refused = 0;
    const { client } = await serve((call) => {
      batchWrites(call);
      installed = typeof (call as unknown as { _writev?: unknown })._writev === 'function';
      // Written in one go: the Writable buffers them and hands them on together.
      for (let i = 0; i < 2000; i++) if (!call.write(message(i))) refused++;
      call.end();
    });
    const got: number[] = [];
    const stream = client.Stream(Buffer.alloc(0));
    stream.on('data', (b: Buffer) => got.push(b.readUInt32BE(0)));
    const status = await new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
    expect(installed).toBe(true);
    expect(status.code).toBe(grpc.status.OK);
    expect(got).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    // 600 kB written at once is far past the Writable's high-water mark.
    expect(refused).toBeGreaterThan(0);
  });

  it('keeps backpressure: a peer that stops reading holds the writer back, then gets it all', async () => {
    const N = 20_000; // 6 MB: far beyond the HTTP/2 windows and socket buffers
    let written = 0;
    const { port } = await serve((call) => {
      batchWrites(call);
      const more = () => {
        while (written < N) if (!call.write(message(written++))) return void call.once('drain', more);
        call.end();
      };
      more();
    });
    // A plain HTTP/2 client: unlike grpc-js's, it reads nothing while paused,
    // so the windows fill as they would for a stuck process.
    const session = http2.connect(`http://127.0.0.1:${port}`);
    onCleanup(() => session.destroy());
    const req = session.request({ ':method': 'POST', ':path': '/test.Batched/Stream', 'content-type': 'application/grpc', te: 'trailers' });
    req.end(Buffer.from([0, 0, 0, 0, 0])); // one empty request message
    req.pause();
    await new Promise((r) => setTimeout(r, 500));
    const heldAt = written;
    expect(heldAt).toBeGreaterThan(0);
    expect(heldAt).toBeLessThan(N);

    // Resumed, it gets every message in order, then the status.
    let buffered = Buffer.alloc(0);
    let next = 0;
    let inOrder = true;
    req.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
        const len = buffered.readUInt32BE(1);
        if (buffered.readUInt32BE(5) !== next) inOrder = false;
        next++;
        buffered = buffered.subarray(5 + len);
      }
    });
    const trailers = new Promise<http2.IncomingHttpHeaders>((resolve) => req.on('trailers', resolve));
    req.resume();
    expect((await trailers)['grpc-status']).toBe('0');
    expect(next).toBe(N);
    expect(inOrder).toBe(true);
  });
});
