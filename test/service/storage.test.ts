// The LMDB map grows by itself past its initial size; a full disk refuses
// writes with a clear log line and a 503 JSON answer, the daemon keeps
// serving, and it writes again once space is freed, with nothing lost or
// half-written.
//
// The full disk is real: a 4 MiB tmpfs mounted for the test (needs root with
// CAP_SYS_ADMIN). Where mounting is not permitted, the same scenario runs with
// the daemon's file-size limit (RLIMIT_FSIZE, set with prlimit): writes past
// it fail at the same place (LMDB's write of its data file; LMDB reports the
// short write as EIO, as it does on the full tmpfs), which proves the same
// behaviour of checkd except the "no space" wording. The RLIMIT_FSIZE variant
// always runs as well.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { COMMIT_FAILED_MESSAGE } from '../../daemon/store/write-failure.js';
import { createProjectCli, startChild, type ChildDaemon } from '../helpers/child.js';
import { api } from '../helpers/http.js';
import { startInProcess } from '../helpers/in-process.js';
import { mountTmpfs, tmpfsPermitted } from '../helpers/mount.js';
import { openStore } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { environmentOf } from '../../daemon/store/environment.js';

const MiB = 1024 * 1024;
/** A map far smaller than daemon/store/db.ts's MAP_SIZE, so that the test can outgrow it. */
const INITIAL_MAP = 64 * MiB;

const CAN_MOUNT = tmpfsPermitted();

describe('LMDB map size', () => {
  it(`grows by itself: ${(160 * MiB) / MiB} MiB written into a store opened with a ${INITIAL_MAP / MiB} MiB map`, async () => {
    const dir = tempDir('checkd-mapsize-');
    const store = openStore(dir, { mapSize: INITIAL_MAP });
    const digests: string[] = [];
    const mapBefore = (environmentOf(store).root.getStats() as { mapSize: number }).mapSize;
    expect(mapBefore).toBeLessThanOrEqual(INITIAL_MAP);
    for (let t = 0; t < 10; t++) {
      await store.transact(() => {
        for (let i = 0; i < 16; i++) {
          const buf = randomBytes(MiB);
          digests.push(createHash('sha256').update(buf).digest('hex'));
          environmentOf(store).meta.put(`blob-${t * 16 + i}`, buf);
        }
      });
    }
    const mapAfter = (environmentOf(store).root.getStats() as { mapSize: number }).mapSize;
    expect(mapAfter).toBeGreaterThan(160 * MiB);
    expect(statSync(join(dir, 'data.mdb')).size).toBeGreaterThan(160 * MiB);
    console.info(`map size ${mapBefore / MiB} MiB -> ${Math.round(mapAfter / MiB)} MiB`);
    await store.close();
    // Reopened (again with the small initial map), every value reads back intact.
    const again = openStore(dir, { readOnly: true, mapSize: INITIAL_MAP });
    digests.forEach((digest, i) => {
      const v = environmentOf(again).meta.get(`blob-${i}`) as Uint8Array;
      expect(createHash('sha256').update(v).digest('hex'), `blob-${i}`).toBe(digest);
    });
  }, 120_000);
});

interface Limiter {
  what: string;
  /** Leave only a little room for the daemon's data file. */
  restrict(pid: number, dataDir: string): void;
  /** Make room again. */
  release(pid: number): void;
  /** Words expected in the log line that explains the failure. */
  reason: RegExp;
}

function tmpfsLimiter(mountPoint: string): Limiter {
  const filler = join(mountPoint, 'filler');
  return {
    what: 'a full 4 MiB tmpfs',
    restrict() {
      const s = statfsSync(mountPoint);
      const room = Number(s.bavail) * Number(s.bsize) - 256 * 1024;
      writeFileSync(filler, Buffer.alloc(Math.max(room, 0), 1));
    },
    release() {
      rmSync(filler);
    },
    reason: /no space left on the file system of the data dir/,
  };
}

const rlimitLimiter: Limiter = {
  what: 'a file size limit (RLIMIT_FSIZE)',
  restrict(pid, dataDir) {
    const limit = statSync(join(dataDir, 'data.mdb')).size + 256 * 1024;
    execFileSync('prlimit', ['--pid', String(pid), `--fsize=${limit}:unlimited`]);
  },
  release(pid) {
    execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:unlimited']);
  },
  // LMDB reports the short write as EIO or EFBIG (which one depends on the
  // write that hits the limit); there is plenty of space, so checkd says what LMDB said.
  reason: /writing to the data dir \S+ failed: (Input\/output error|File too large)/,
};

async function fullDiskScenario(dataDir: string, limiter: Limiter): Promise<void> {
  const p = await createProjectCli(dataDir, 'disk', ['--ping-log-limit', '100000']);
  // No reserve: this is the path of a write the disk refuses, which the
  // storage alarm (disk-alarm.test.ts) keeps from being reached in the first place.
  const d: ChildDaemon = await startChild(['--data-dir', dataDir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0', '--storage-reserve', '0']);
  const check = await api(d.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'disk', timeout: 3600 } });
  expect(check.status).toBe(201);
  const uuid = (check.json as { ping_url: string }).ping_url.split('/').pop()!;

  limiter.restrict(d.proc.pid!, dataDir);

  // Pings with 8 KB bodies until the writes are refused.
  const acked: string[] = [];
  const refused: Array<{ body: string; status: number; json: unknown; retryAfter: string | null }> = [];
  for (let i = 0; i < 3000 && refused.length < 5; i++) {
    const body = `ping-${i}-`.padEnd(8000, 'x');
    const r = await fetch(`${d.url}/ping/${uuid}`, { method: 'POST', body });
    const text = await r.text();
    if (r.status === 200) acked.push(body);
    else refused.push({ body, status: r.status, json: JSON.parse(text), retryAfter: r.headers.get('retry-after') });
  }
  expect(refused.length, `no write was refused after ${acked.length} pings`).toBe(5);
  expect(acked.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect(r.status).toBe(503);
    expect(r.json).toEqual({ error: expect.stringMatching(/^storage unavailable/) });
    expect(r.retryAfter).toBe('30');
  }

  // Still serving: reads work, API writes get the same clear 503.
  expect(d.proc.exitCode).toBeNull();
  const list = await api(d.url, '/api/v3/checks/', { key: p.api_key });
  expect(list.status).toBe(200);
  expect((await api(d.url, '/metrics')).status).toBe(200);
  const write = await api(d.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'while full', timeout: 3600 } });
  expect([write.status, write.json]).toEqual([503, { error: expect.stringMatching(/^storage unavailable/) }]);
  // The log says why, in one line an operator understands.
  await new Promise((r) => setTimeout(r, 200));
  expect(d.stderr()).toContain('write refused, storage unavailable');
  expect(d.stderr()).toMatch(limiter.reason);

  // Room again: writes succeed, without a restart.
  limiter.release(d.proc.pid!);
  let again = 0;
  for (let i = 0; i < 50 && again === 0; i++) {
    const body = `after-${i}-`.padEnd(8000, 'y');
    const r = await fetch(`${d.url}/ping/${uuid}`, { method: 'POST', body });
    await r.text();
    if (r.status === 200) {
      acked.push(body);
      again++;
    } else await new Promise((res) => setTimeout(res, 100));
  }
  expect(again, 'writes did not resume after space was freed').toBe(1);
  for (let i = 0; i < 20; i++) {
    const body = `more-${i}-`.padEnd(8000, 'z');
    const r = await fetch(`${d.url}/ping/${uuid}`, { method: 'POST', body });
    await r.text();
    expect(r.status).toBe(200);
    acked.push(body);
  }
  expect((await d.stop('SIGTERM')).code).toBe(0);

  // Nothing lost, nothing half-written: exactly the acknowledged pings are
  // stored, and the check's counter agrees with them.
  const store = openStore(dataDir, { readOnly: true });
  const stored = store.listPings(uuid, 1_000_000).map((x) => Buffer.from(x.body ?? []).toString());
  expect(new Set(stored)).toEqual(new Set(acked));
  expect(stored).toHaveLength(acked.length);
  expect(store.getCheck(uuid)?.nPings).toBe(acked.length);
  console.info(`${limiter.what}: ${acked.length} pings stored, writes refused with 503 while full, resumed after`);
}

describe('a full disk', () => {
  it(`refuses writes with 503 JSON, keeps serving, recovers once space is freed (${CAN_MOUNT ? 'a real full tmpfs' : 'mount not permitted here: RLIMIT_FSIZE'})`, async () => {
    const tmp = tempDir('checkd-full-');
    if (!CAN_MOUNT) {
      await fullDiskScenario(join(tmp, 'data'), rlimitLimiter);
      return;
    }
    const mnt = join(tmp, 'mnt');
    mkdirSync(mnt);
    mountTmpfs(mnt, '4m');
    await fullDiskScenario(join(mnt, 'data'), tmpfsLimiter(mnt));
  }, 60_000);

  it('the same with a file size limit (RLIMIT_FSIZE, EFBIG): no privileges needed', async () => {
    const tmp = tempDir('checkd-fsize-');
    await fullDiskScenario(join(tmp, 'data'), rlimitLimiter);
  }, 60_000);

  it('a commit failure at the store boundary (simulated ENOSPC) gives 503 JSON, and the next write goes through', async () => {
    const d = await startInProcess();
    const p = await d.createProject();
    const created = await api(d.url, '/api/v3/checks/', { key: p.apiKey, body: { name: 'sim' } });
    const uuid = (created.json as { ping_url: string }).ping_url.split('/').pop()!;
    const store = d.daemon.store;
    const real = store.transact.bind(store);
    const realPing = store.transactPing.bind(store);
    // What lmdb-js rejects a failed commit's writes with.
    const fail = () => {
      const cause = Promise.reject(Object.assign(new Error('No space left on device'), { code: 'ENOSPC' }));
      cause.catch(() => {});
      return Promise.reject(Object.assign(new Error(COMMIT_FAILED_MESSAGE), { commitError: cause }));
    };
    const restore = () => {
      store.transact = real;
      store.transactPing = realPing;
    };
    onTestFinished(restore);
    store.transact = (() => fail()) as typeof store.transact;
    store.transactPing = (() => fail()) as typeof store.transactPing;
    const ping = await api(d.url, `/ping/${uuid}`);
    expect([ping.status, ping.json]).toEqual([503, { error: expect.stringMatching(/^storage unavailable/) }]);
    const write = await api(d.url, `/api/v3/checks/${uuid}`, { key: p.apiKey, body: { name: 'renamed' } });
    expect([write.status, write.json]).toEqual([503, { error: expect.stringMatching(/^storage unavailable/) }]);
    expect((await api(d.url, '/api/v3/checks/', { key: p.apiKey })).status).toBe(200);
    restore();
    expect((await api(d.url, `/ping/${uuid}`)).status).toBe(200);
    expect(store.getCheck(uuid)?.nPings).toBe(1);
    expect(store.getCheck(uuid)?.name).toBe('sim');
  });
});
