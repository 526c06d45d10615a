// A start that fails on a listener (daemon.ts): the ListenError reaches the
// caller, and what had been started is undone, so the HTTP port is free again
// and the data dir starts and stops normally afterwards.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListenError } from '../../daemon/shared/listen.js';
import { freePort, startInProcess, tempDir, type InProcessDaemon } from '../helpers/daemon.js';

async function canBind(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('a start that fails on a listener', () => {
  let first: InProcessDaemon;
  const dirs: Array<{ path: string; cleanup(): void }> = [];
  beforeAll(async () => {
    first = await startInProcess();
  });
  afterAll(async () => {
    await first.stop();
    for (const d of dirs) d.cleanup();
  });

  it('HTTP port in use: ListenError, and the data dir starts again afterwards', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const taken = Number(first.daemon.httpAddress.split(':')[1]);
    const err = await startInProcess({ dataDir: dir.path, listen: { host: '127.0.0.1', port: taken } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toContain(`cannot listen for HTTP on 127.0.0.1:${taken}`);
    const again = await startInProcess({ dataDir: dir.path });
    expect((await fetch(`${again.url}/api/v3/status/`)).status).toBe(200);
    await again.stop();
  });

  it('gRPC port in use: ListenError, the HTTP port it had bound is released, the data dir starts again', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const port = await freePort();
    const err = await startInProcess({
      dataDir: dir.path,
      listen: { host: '127.0.0.1', port },
      grpcListen: first.daemon.grpcAddress,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toContain(`cannot listen for gRPC on ${first.daemon.grpcAddress}`);
    expect(await canBind(port)).toBe(true);
    const again = await startInProcess({ dataDir: dir.path, listen: { host: '127.0.0.1', port } });
    expect(again.daemon.httpAddress).toBe(`127.0.0.1:${port}`);
    await again.stop();
  });
});
