// `checkd serve` (contract.md): port 0 and the ready line, defaults, flags over
// env vars over defaults, and bad flags / unusable data dirs / taken ports.
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connect, rpc } from '../grpc/support.js';
import { createProjectCli, PORT0, runCli, startChild } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, freePort, portIsFree } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { tree } from './support.js';

let tmp: string;
setupSuite(() => {
  tmp = tempDir('checkd-cli-serve-');
});
let n = 0;
/** A fresh path under the suite's temp dir (not created). */
const fresh = (name = 'data') => join(tmp, `${name}-${++n}`);

async function newCheck(url: string, key: string, body: Record<string, unknown> = {}) {
  const r = await api(url, '/api/v3/checks/', { key, body: { name: 'c', ...body } });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

describe('port 0 and the ready line', () => {
  it('prints exactly one stdout line with the real ports, which answer', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir, 'ready');
    // Default log level (info): logs must not reach stdout, which carries the ready line only.
    const d = await startChild(['--data-dir', dir, ...PORT0], { env: { CHECKD_LOG_LEVEL: undefined } });
    console.log(`checkd serve: spawn to ready line ${d.startupMs.toFixed(0)} ms (data dir with one project)`);
    expect(d.readyLine).toMatch(/^checkd ready http=127\.0\.0\.1:\d+ grpc=127\.0\.0\.1:\d+$/);
    expect(d.httpPort).toBeGreaterThan(0);
    const grpcPort = Number(d.grpc.split(':')[1]);
    expect(grpcPort).toBeGreaterThan(0);
    expect(grpcPort).not.toBe(d.httpPort);

    const status = await api(d.url, '/api/v3/status/');
    expect(status.status).toBe(200);
    expect(status.text).toBe('OK');

    const client = connect(d.grpc);
    const project = await rpc(client, 'GetProject', {}, p.api_key);
    expect(project.id).toBe(p.id);
    expect(project.name).toBe('ready');
    client.close();

    expect(d.stdoutLines).toEqual([d.readyLine]);
    const stopped = await d.stop();
    expect(stopped.code).toBe(0);
    expect(d.stdoutLines).toEqual([d.readyLine]);
    // ...and the logs went to stderr.
    expect(d.stderr()).toMatch(/"msg":"checkd started"/);
  });

  it('starts on an empty data dir well under a second (spawn to ready line)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = fresh('empty');
      const d = await startChild(['--data-dir', dir, ...PORT0]);
      times.push(d.startupMs);
      expect((await api(d.url, '/api/v3/status/')).text).toBe('OK');
      expect((await d.stop()).code).toBe(0);
    }
    console.log(`checkd serve on an empty data dir: spawn to ready line ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    // Generous sanity bound only (loaded CI); the figures are reported, not asserted.
    expect(Math.min(...times)).toBeLessThan(3000);
  });

  it('binds a unix socket for gRPC and reports it in the ready line', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const sock = join(tmp, `g-${++n}.sock`);
    const d = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', `unix:${sock}`]);
    expect(d.grpc).toBe(`unix:${sock}`);
    expect(statSync(sock).isSocket()).toBe(true);
    const client = connect(d.grpc);
    expect((await rpc(client, 'GetProject', {}, p.api_key)).id).toBe(p.id);
    client.close();
    expect((await d.stop()).code).toBe(0);
  });

  it('takes a data dir whose name has a dot (a directory, not a single-file LMDB)', async () => {
    const dir = join(tmp, `checkd.data-${++n}`);
    const p = await createProjectCli(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(join(dir, 'data.mdb')).isFile()).toBe(true);
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key })).status).toBe(200);
    expect((await d.stop()).code).toBe(0);
  });
});

describe('defaults', () => {
  it('data dir ./data, base URL http://localhost:8000, ping body limit 10000', async () => {
    const cwd = join(tmp, `cwd-${++n}`);
    mkdirSync(cwd);
    const created = await runCli(['project', 'create', '--name', 'defaults', '--json'], { cwd });
    expect(created.code, created.stderr).toBe(0);
    const doc = JSON.parse(created.stdout);
    expect(statSync(join(cwd, 'data', 'data.mdb')).isFile()).toBe(true);

    const d = await startChild(PORT0, { cwd });
    const c = await newCheck(d.url, doc.api_key);
    expect(c.ping_url).toBe(`http://localhost:8000/ping/${c.uuid}`);
    const body = 'x'.repeat(12_000);
    expect((await api(d.url, `/ping/${c.uuid}`, { rawBody: body })).status).toBe(200);
    const pings = (await api(d.url, `/api/v3/checks/${c.uuid}/pings/`, { key: doc.api_key })).json.pings;
    const stored = await api(d.url, `/api/v3/checks/${c.uuid}/pings/${pings[0].n}/body`, { key: doc.api_key });
    expect(stored.text.length).toBe(10_000);
    expect((await d.stop()).code).toBe(0);
  });

  it('API rate limit 100 per minute per key', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push((await api(d.url, '/api/v3/checks/', { key: p.api_key })).status);
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    expect(statuses[100]).toBe(429);
    expect((await d.stop()).code).toBe(0);
  });

  it('listens on 127.0.0.1:8000 and 127.0.0.1:50051 (or says that it cannot)', async () => {
    for (const [flags, what, addr] of [
      [['--grpc-listen', '127.0.0.1:0'], 'HTTP', '127.0.0.1:8000'],
      [['--listen', '127.0.0.1:0'], 'gRPC', '127.0.0.1:50051'],
    ] as const) {
      const port = Number(addr.split(':')[1]);
      const dir = fresh();
      if (await portIsFree(port)) {
        const d = await startChild(['--data-dir', dir, ...flags]);
        expect(what === 'HTTP' ? `${d.httpHost}:${d.httpPort}` : d.grpc).toBe(addr);
        expect((await d.stop()).code).toBe(0);
      } else {
        // Something else holds the default port: the failure names the default.
        const r = await runCli(['serve', '--data-dir', dir, ...flags]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`cannot listen for ${what} on ${addr}`);
      }
    }
  });
});

describe('flags win over env vars, env vars over defaults', () => {
  /** Serves `dir` once per case (extra flags, env) and expects what `probe` reads from the running daemon. */
  async function expectServed<T>(dir: string, probe: (url: string) => Promise<T>, cases: Array<[string[], NodeJS.ProcessEnv, T]>) {
    for (const [flags, env, expected] of cases) {
      const d = await startChild(['--data-dir', dir, ...PORT0, ...flags], { env });
      expect(await probe(d.url), JSON.stringify({ flags, env })).toEqual(expected);
      expect((await d.stop()).code).toBe(0);
    }
  }

  it('--data-dir / CHECKD_DATA_DIR', async () => {
    const fromEnv = fresh('env');
    const fromFlag = fresh('flag');
    const unused = fresh('unused');
    const a = await startChild(PORT0, { env: { CHECKD_DATA_DIR: fromEnv } });
    expect((await a.stop()).code).toBe(0);
    expect(statSync(join(fromEnv, 'data.mdb')).isFile()).toBe(true);
    const b = await startChild(['--data-dir', fromFlag, ...PORT0], { env: { CHECKD_DATA_DIR: unused } });
    expect((await b.stop()).code).toBe(0);
    expect(statSync(join(fromFlag, 'data.mdb')).isFile()).toBe(true);
    expect(tree(unused)).toEqual([]);
  });

  it('--listen / CHECKD_LISTEN (a bad env value is not even read when the flag is given)', async () => {
    const dir = fresh();
    const a = await startChild(['--data-dir', dir, '--grpc-listen', '127.0.0.1:0'], { env: { CHECKD_LISTEN: '127.0.0.2:0' } });
    expect(a.httpHost).toBe('127.0.0.2');
    expect((await api(a.url, '/api/v3/status/')).text).toBe('OK');
    expect((await a.stop()).code).toBe(0);

    const b = await startChild(['--data-dir', dir, ...PORT0], { env: { CHECKD_LISTEN: '127.0.0.2:0' } });
    expect(b.httpHost).toBe('127.0.0.1');
    expect((await b.stop()).code).toBe(0);

    const port = await freePort();
    const c = await startChild(['--data-dir', dir, '--listen', `127.0.0.1:${port}`, '--grpc-listen', '127.0.0.1:0'], {
      env: { CHECKD_LISTEN: 'not an address' },
    });
    expect(c.httpPort).toBe(port);
    expect((await c.stop()).code).toBe(0);
  });

  it('--grpc-listen / CHECKD_GRPC_LISTEN', async () => {
    const dir = fresh();
    const sock = join(tmp, `env-${++n}.sock`);
    const a = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0'], { env: { CHECKD_GRPC_LISTEN: `unix:${sock}` } });
    expect(a.grpc).toBe(`unix:${sock}`);
    expect((await a.stop()).code).toBe(0);
    const b = await startChild(['--data-dir', dir, ...PORT0], { env: { CHECKD_GRPC_LISTEN: `unix:${sock}` } });
    expect(b.grpc).toMatch(/^127\.0\.0\.1:\d+$/);
    expect((await b.stop()).code).toBe(0);
  });

  it('--base-url / CHECKD_BASE_URL, seen in ping_url of a created check', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const a = await startChild(['--data-dir', dir, ...PORT0], { env: { CHECKD_BASE_URL: 'https://env.example.com/hc/' } });
    const c1 = await newCheck(a.url, p.api_key, { name: 'one' });
    expect(c1.ping_url).toBe(`https://env.example.com/hc/ping/${c1.uuid}`);
    expect((await a.stop()).code).toBe(0);

    const b = await startChild(['--data-dir', dir, ...PORT0, '--base-url', 'http://flag.example.net:8080'], {
      env: { CHECKD_BASE_URL: 'https://env.example.com/hc/' },
    });
    const c2 = await newCheck(b.url, p.api_key, { name: 'two' });
    expect(c2.ping_url).toBe(`http://flag.example.net:8080/ping/${c2.uuid}`);
    // Stored checks are shown with the base URL of the running daemon.
    expect((await api(b.url, `/api/v3/checks/${c1.uuid}`, { key: p.api_key })).json.ping_url).toBe(
      `http://flag.example.net:8080/ping/${c1.uuid}`,
    );
    expect((await b.stop()).code).toBe(0);
  });

  it('--api-rate-limit / CHECKD_API_RATE_LIMIT', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const burst = async (url: string) => {
      const out: number[] = [];
      for (let i = 0; i < 5; i++) out.push((await api(url, '/api/v3/checks/', { key: p.api_key })).status);
      return out;
    };
    await expectServed(dir, burst, [
      [[], { CHECKD_API_RATE_LIMIT: '3' }, [200, 200, 200, 429, 429]],
      [['--api-rate-limit', '0'], { CHECKD_API_RATE_LIMIT: '3' }, [200, 200, 200, 200, 200]],
    ]);
  });

  it('--ping-body-limit / CHECKD_PING_BODY_LIMIT', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const storedLength = async (url: string) => {
      const c = await newCheck(url, p.api_key, { name: `b${++n}` });
      expect((await api(url, `/ping/${c.uuid}`, { rawBody: 'y'.repeat(100) })).status).toBe(200);
      const pings = (await api(url, `/api/v3/checks/${c.uuid}/pings/`, { key: p.api_key })).json.pings;
      return (await api(url, `/api/v3/checks/${c.uuid}/pings/${pings[0].n}/body`, { key: p.api_key })).text.length;
    };
    await expectServed(dir, storedLength, [
      [[], { CHECKD_PING_BODY_LIMIT: '5' }, 5],
      [['--ping-body-limit', '8'], { CHECKD_PING_BODY_LIMIT: '5' }, 8],
    ]);
  });

  it('--badge-label / CHECKD_BADGE_LABEL, the label of the * badge (checkd by default)', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const label = async (url: string) => {
      const map = (await api(url, '/api/v3/badges/', { key: p.api_key })).json.badges;
      const shields = new URL(map['*'].shields);
      return (await api(url, shields.pathname)).json.label;
    };
    await expectServed(dir, label, [
      [[], {}, 'checkd'],
      [[], { CHECKD_BADGE_LABEL: 'Acme ops' }, 'Acme ops'],
      [['--badge-label', 'status'], { CHECKD_BADGE_LABEL: 'Acme ops' }, 'status'],
    ]);
  });

  it('--trust-proxy / CHECKD_TRUST_PROXY (off by default)', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const remoteAddr = async (url: string) => {
      const c = await newCheck(url, p.api_key, { name: `t${++n}` });
      await api(url, `/ping/${c.uuid}`, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
      return (await api(url, `/api/v3/checks/${c.uuid}/pings/`, { key: p.api_key })).json.pings[0].remote_addr;
    };
    await expectServed(dir, remoteAddr, [
      [[], {}, '127.0.0.1'],
      [[], { CHECKD_TRUST_PROXY: 'true' }, '203.0.113.7'],
      [['--trust-proxy'], { CHECKD_TRUST_PROXY: '0' }, '203.0.113.7'],
    ]);
  });
});

describe('bad flags and env values: exit 2, a message on stderr, nothing written', () => {
  const cases: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['listen without a port', ['--listen', 'localhost'], {}, /--listen.*HOST:PORT/],
    ['listen port 99999', ['--listen', '127.0.0.1:99999'], {}, /--listen.*99999/],
    ['listen port not a number', ['--listen', '127.0.0.1:http'], {}, /--listen/],
    ['listen without a host', ['--listen', ':8000'], {}, /--listen/],
    ['listen on a bad IPv4 address', ['--listen', '999.1.1.1:8000'], {}, /--listen.*999\.1\.1\.1/],
    ['listen on a host name that does not resolve', ['--listen', 'no-such-host.invalid:8000'], {}, /--listen.*resolve/],
    ['listen with an empty value', ['--listen', ''], {}, /--listen/],
    ['grpc-listen without a port', ['--grpc-listen', 'grpc'], {}, /--grpc-listen/],
    ['grpc-listen port 70000', ['--grpc-listen', '127.0.0.1:70000'], {}, /--grpc-listen/],
    ['grpc-listen empty unix path', ['--grpc-listen', 'unix:'], {}, /--grpc-listen.*empty/],
    ['grpc-listen unix socket in a missing directory', ['--grpc-listen', 'unix:/nonexistent-dir/checkd.sock'], {}, /--grpc-listen.*nonexistent-dir/],
    ['base-url that is not a URL', ['--base-url', 'not a url'], {}, /--base-url/],
    ['base-url with another scheme', ['--base-url', 'ftp://example.com'], {}, /--base-url.*http/],
    ['base-url with a query', ['--base-url', 'https://example.com/?a=1'], {}, /--base-url/],
    ['negative api-rate-limit', ['--api-rate-limit', '-1'], {}, /--api-rate-limit|error:/],
    ['non-numeric api-rate-limit', ['--api-rate-limit', 'many'], {}, /--api-rate-limit.*many/],
    ['fractional api-rate-limit', ['--api-rate-limit', '1.5'], {}, /--api-rate-limit/],
    ['non-numeric ping-body-limit', ['--ping-body-limit', '10k'], {}, /--ping-body-limit.*10k/],
    ['negative ping-body-limit', ['--ping-body-limit=-5'], {}, /--ping-body-limit/],
    ['unknown flag', ['--port', '8000'], {}, /unknown option '--port'/],
    ['stray argument', ['now'], {}, /too many arguments|unexpected/],
    ['flag without its value', ['--listen'], {}, /argument missing|--listen/],
    ['bad log level', ['--log-level', 'loud'], {}, /--log-level/],
    ['CHECKD_LISTEN bad', [], { CHECKD_LISTEN: '127.0.0.1' }, /CHECKD_LISTEN/],
    ['CHECKD_GRPC_LISTEN bad', [], { CHECKD_GRPC_LISTEN: 'localhost:123456' }, /CHECKD_GRPC_LISTEN/],
    ['CHECKD_BASE_URL bad', [], { CHECKD_BASE_URL: 'example.com' }, /CHECKD_BASE_URL/],
    ['CHECKD_API_RATE_LIMIT bad', [], { CHECKD_API_RATE_LIMIT: '-3' }, /CHECKD_API_RATE_LIMIT/],
    ['CHECKD_PING_BODY_LIMIT bad', [], { CHECKD_PING_BODY_LIMIT: 'lots' }, /CHECKD_PING_BODY_LIMIT/],
    ['CHECKD_TRUST_PROXY bad', [], { CHECKD_TRUST_PROXY: 'maybe' }, /CHECKD_TRUST_PROXY/],
    ['an empty badge-label', ['--badge-label', ' '], {}, /--badge-label/],
    ['a badge-label over 100 characters', ['--badge-label', 'x'.repeat(101)], {}, /--badge-label.*100/],
    ['CHECKD_BADGE_LABEL with a newline', [], { CHECKD_BADGE_LABEL: 'a\nb' }, /CHECKD_BADGE_LABEL.*control/],
  ];

  for (const [name, flags, env, message] of cases) {
    it(name, async () => {
      const parent = fresh('parent');
      mkdirSync(parent);
      const dir = join(parent, 'data');
      const r = await runCli(['serve', '--data-dir', dir, ...flags], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
      expect(tree(parent)).toEqual([]);
    });
  }

  it('an empty --data-dir', async () => {
    const r = await runCli(['serve', '--data-dir', '', ...PORT0]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--data-dir.*empty/);
  });
});

describe('unusable data dir: exit 2, a message on stderr, nothing written', () => {
  it('a path under a regular file', async () => {
    const parent = fresh('parent');
    mkdirSync(parent);
    writeFileSync(join(parent, 'file'), 'x');
    for (const dir of [join(parent, 'file', 'data'), join(parent, 'file', 'a', 'b')]) {
      const r = await runCli(['serve', '--data-dir', dir, ...PORT0]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^checkd: data dir .* is not usable/);
      expect(r.stdout).toBe('');
      expect(tree(parent)).toEqual(['file 1']);
    }
  });

  it('a path below /proc, where a recursive mkdir never returns: a plain error at once', async () => {
    for (const args of [['serve', ...PORT0], ['project', 'create', '--name', 'x']]) {
      const r = await runCli([...args, '--data-dir', '/proc/checkd-no-such/data']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^checkd: data dir \/proc\/checkd-no-such\/data is not usable: .*no such file or directory/);
    }
  });

  it('a regular file', async () => {
    const file = fresh('file');
    writeFileSync(file, 'not a dir');
    const r = await runCli(['serve', '--data-dir', file, ...PORT0]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/data dir .* is not usable: it exists and is not a directory/);
    expect(readFileSync(file, 'utf8')).toBe('not a dir');
  });

  it('a data.mdb that is not an LMDB file (no crash, file untouched)', async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, 'data.mdb'), Buffer.alloc(65536, 0x5a));
    const before = tree(dir);
    const r = await runCli(['serve', '--data-dir', dir, ...PORT0]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not an LMDB data file/);
    expect(tree(dir)).toEqual(before);
  });

  it('the same checks apply to the admin commands', async () => {
    const parent = fresh('parent');
    mkdirSync(parent);
    writeFileSync(join(parent, 'file'), 'x');
    for (const args of [['project', 'create', '--name', 'x'], ['project', 'list']]) {
      const r = await runCli([...args, '--data-dir', join(parent, 'file', 'data')]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/data dir .* is not usable/);
      expect(tree(parent)).toEqual(['file 1']);
    }
  });
});

describe('a port that is taken: start-up fails clearly', () => {
  /** A port held by another listener until the test finishes. */
  async function block(): Promise<number> {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    onTestFinished(async () => {
      blocker.close();
      await once(blocker, 'close');
    });
    return (blocker.address() as { port: number }).port;
  }

  it('HTTP port in use: non-zero exit, message naming the address, no ready line', async () => {
    const p = await block();
    const dir = fresh();
    const r = await runCli(['serve', '--data-dir', dir, '--listen', `127.0.0.1:${p}`, '--grpc-listen', '127.0.0.1:0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`checkd: cannot listen for HTTP on 127.0.0.1:${p}: address already in use`);
    expect(r.stdout).not.toMatch(/checkd ready/);
    // Found before the data dir is opened: nothing written.
    expect(existsSync(dir)).toBe(false);
  });

  it('an address this machine does not have: exit 1, said so, nothing written', async () => {
    const existing = fresh();
    await createProjectCli(existing);
    const before = readFileSync(join(existing, 'data.mdb'));
    for (const [flags, what] of [
      [['--listen', '192.0.2.1:18080', '--grpc-listen', '127.0.0.1:0'], 'HTTP on 192.0.2.1:18080'],
      [['--listen', '127.0.0.1:0', '--grpc-listen', '192.0.2.1:18081'], 'gRPC on 192.0.2.1:18081'],
    ] as const) {
      const dir = fresh();
      const r = await runCli(['serve', '--data-dir', dir, ...flags]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`checkd: cannot listen for ${what}: address not available on this machine`);
      expect(existsSync(dir)).toBe(false);
      expect((await runCli(['serve', '--data-dir', existing, ...flags])).code).toBe(1);
      expect(readFileSync(join(existing, 'data.mdb')).equals(before)).toBe(true);
    }
  });

  it('gRPC port in use: non-zero exit, message naming the address, no ready line', async () => {
    const p = await block();
    const dir = fresh();
    const r = await runCli(['serve', '--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', `127.0.0.1:${p}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`checkd: cannot listen for gRPC on 127.0.0.1:${p}: address already in use`);
    expect(r.stdout).not.toMatch(/checkd ready/);
    // grpc-js's own complaint comes through the logger: every line but checkd's last word is JSON.
    const lines = r.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('checkd: '))).toHaveLength(1);
    for (const line of lines.filter((l) => !l.startsWith('checkd: '))) expect(() => JSON.parse(line), line).not.toThrow();
    // Found before the data dir is opened: nothing written.
    expect(existsSync(dir)).toBe(false);
  });

  it("a second daemon on the same unix socket fails and leaves the first one's socket alone", async () => {
    const sock = `${fresh()}.sock`;
    const dirA = fresh();
    const p = await createProjectCli(dirA);
    const a = await startChild(['--data-dir', dirA, '--listen', '127.0.0.1:0', '--grpc-listen', `unix:${sock}`]);
    const r = await runCli(['serve', '--data-dir', fresh(), '--listen', '127.0.0.1:0', '--grpc-listen', `unix:${sock}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`checkd: cannot listen for gRPC on unix:${sock}: address already in use`);
    expect(r.stdout).not.toMatch(/checkd ready/);
    // The first daemon still answers on its socket.
    const client = connect(`unix:${sock}`);
    expect(await rpc(client, 'GetProject', {}, p.api_key)).toMatchObject({ name: 'p' });
    client.close();
    expect((await a.stop()).code).toBe(0);
  });

  it('a stale socket file left by a killed daemon is replaced', async () => {
    const sock = `${fresh()}.sock`;
    const a = await startChild(['--data-dir', fresh(), '--listen', '127.0.0.1:0', '--grpc-listen', `unix:${sock}`]);
    expect((await a.stop('SIGKILL')).signal).toBe('SIGKILL');
    expect(lstatSync(sock).isSocket()).toBe(true);
    const b = await startChild(['--data-dir', fresh(), '--listen', '127.0.0.1:0', '--grpc-listen', `unix:${sock}`]);
    expect(b.grpc).toBe(`unix:${sock}`);
    expect((await b.stop()).code).toBe(0);
  });

  it('a second daemon on the same addresses fails while the first keeps serving', async () => {
    const dir = fresh();
    const a = await startChild(['--data-dir', dir, ...PORT0]);
    const r = await runCli(['serve', '--data-dir', dir, '--listen', `127.0.0.1:${a.httpPort}`, '--grpc-listen', '127.0.0.1:0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('address already in use');
    expect((await api(a.url, '/api/v3/status/')).text).toBe('OK');
    expect((await a.stop()).code).toBe(0);
  });
});
