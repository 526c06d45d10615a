// Logs go to the journal, which many people can read: no API key may reach
// them, even at --log-level debug, wherever the client put the key (header,
// JSON body, broken JSON body, query string of an API call or a ping, gRPC
// metadata), whether the key is valid, read-only or unknown.
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProjectCli, runCli, startChild, type ChildDaemon } from '../helpers/child.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { connect, rpc, rpcError } from '../grpc/support.js';

function randomKey(prefix: 'hcw_' | 'hcr_'): string {
  return prefix + randomBytes(21).toString('base64url').slice(0, 28);
}

describe('log redaction', () => {
  it('no API key appears in stdout or stderr at --log-level debug', async () => {
    const dir = tempDir('checkd-redact-');
    const p = await createProjectCli(dir, 'redact');
    const added = await runCli(['key', 'create', '--project', p.id, '--data-dir', dir, '--json']);
    const extra = (JSON.parse(added.stdout) as { api_key: string }).api_key;
    const unknownRw = randomKey('hcw_');
    const unknownRo = randomKey('hcr_');
    const keys = [p.api_key, p.api_key_readonly, extra, unknownRw, unknownRo];

    const d: ChildDaemon = await startChild(
      ['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0', '--log-level', 'debug'],
      { env: { CHECKD_LOG_LEVEL: 'debug' } },
    );
    const closed = once(d.proc, 'close');
    let requests = 0;
    const call = async (...args: Parameters<typeof api>) => {
      requests++;
      return api(...args);
    };

    // Key in the header.
    expect((await call(d.url, '/api/v3/checks/', { key: p.api_key })).status).toBe(200);
    expect((await call(d.url, '/api/v3/checks/', { key: p.api_key_readonly })).status).toBe(200);
    expect((await call(d.url, '/api/v3/checks/', { key: unknownRw })).status).toBe(401);
    // Key in the JSON body.
    const c = await call(d.url, '/api/v3/checks/', { body: { api_key: p.api_key, name: 'redact me', slug: 'redact-me', timeout: 60 } });
    expect(c.status).toBe(201);
    const uuid = (c.json as { ping_url: string }).ping_url.split('/').pop()!;
    expect((await call(d.url, '/api/v1/checks/', { body: { api_key: p.api_key_readonly, name: 'x' } })).status).toBeGreaterThanOrEqual(400);
    expect((await call(d.url, `/api/v3/checks/${uuid}`, { body: { api_key: extra, desc: 'updated' } })).status).toBe(200);
    expect((await call(d.url, `/api/v3/checks/${uuid}/pause`, { method: 'POST', body: { api_key: unknownRo } })).status).toBe(401);
    // Key in a body that is not valid JSON.
    const broken = await call(d.url, '/api/v3/checks/', {
      rawBody: `{"api_key": "${p.api_key}", "name": `,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    // Key in the query string: API, pings (UUID and slug), metrics, an unknown path.
    expect((await call(d.url, `/api/v3/checks/?api_key=${p.api_key}`)).status).toBeLessThan(500);
    expect((await call(d.url, `/ping/${uuid}?api_key=${p.api_key}`)).status).toBe(200);
    expect((await call(d.url, `/ping/${p.ping_key}/redact-me/fail?api_key=${extra}`, { method: 'POST', rawBody: `api_key=${extra}` })).status).toBe(200);
    expect((await call(d.url, `/ping/${uuid}/start?x=1&API_KEY=${unknownRw}`)).status).toBe(200);
    expect((await call(d.url, `/metrics?api_key=${p.api_key}`)).status).toBe(200);
    // ... with the name percent-encoded, or after a ';'.
    expect((await call(d.url, `/api/v3/checks/?api%5Fkey=${p.api_key}`)).status).toBeLessThan(500);
    expect((await call(d.url, `/ping/${uuid}?%61pi_key=${extra}`)).status).toBe(200);
    expect((await call(d.url, `/ping/${uuid}?x=1;api_key=${unknownRo}`)).status).toBe(200);
    expect((await call(d.url, `/no/such/path?api_key=${p.api_key_readonly}`)).status).toBe(404);

    // gRPC: the key travels in metadata.
    const client = connect(d.grpc);
    await rpc(client, 'GetProject', {}, p.api_key_readonly);
    await rpcError(client, 'GetProject', {}, unknownRo);
    await rpc(client, 'PauseCheck', { id: uuid }, p.api_key);
    client.close();

    expect((await d.stop('SIGTERM')).code).toBe(0);
    await closed;
    const out = `${d.stdoutLines.join('\n')}\n${d.stderr()}`;

    // The test saw real debug logging: one line per HTTP request, the query redacted.
    const requestLines = out.split('\n').filter((l) => l.includes('"msg":"request"'));
    expect(requestLines.length, out).toBeGreaterThanOrEqual(requests);
    expect(out).toContain('api_key=[redacted]');
    expect(out).toMatch(/API_KEY=\[redacted\]/);

    for (const key of keys) {
      for (const needle of [key, key.slice(4)]) {
        const at = out.indexOf(needle);
        expect(at, `key material ${needle} logged: ...${out.slice(Math.max(0, at - 200), at + 60)}...`).toBe(-1);
      }
    }
  });
});
