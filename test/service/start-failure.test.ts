// A start that fails on a listener (daemon.ts): the ListenError reaches the
// caller, and what had been started is undone, so the HTTP port is free again
// and the data dir starts and stops normally afterwards.
import { describe, expect, it } from 'vitest';
import { ListenError } from '../../daemon/shared/listen.js';
import { setupSuite } from '../helpers/cleanup.js';
import { freePort, portIsFree } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon } from '../helpers/in-process.js';
import { tempDir } from '../helpers/temp.js';

describe('a start that fails on a listener', () => {
  let first: InProcessDaemon;
  setupSuite(async () => {
    first = await startInProcess();
  });

  it('HTTP port in use: ListenError, and the data dir starts again afterwards', async () => {
    const dir = tempDir();
    const taken = Number(first.daemon.httpAddress.split(':')[1]);
    const err = await startInProcess({ dataDir: dir, listen: { host: '127.0.0.1', port: taken } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toContain(`cannot listen for HTTP on 127.0.0.1:${taken}`);
    const again = await startInProcess({ dataDir: dir });
    expect((await fetch(`${again.url}/api/v3/status/`)).status).toBe(200);
  });

  it('gRPC port in use: ListenError, the HTTP port it had bound is released, the data dir starts again', async () => {
    const dir = tempDir();
    const port = await freePort();
    const err = await startInProcess({
      dataDir: dir,
      listen: { host: '127.0.0.1', port },
      grpcListen: first.daemon.grpcAddress,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toContain(`cannot listen for gRPC on ${first.daemon.grpcAddress}`);
    expect(await portIsFree(port)).toBe(true);
    const again = await startInProcess({ dataDir: dir, listen: { host: '127.0.0.1', port } });
    expect(again.daemon.httpAddress).toBe(`127.0.0.1:${port}`);
  });
});
