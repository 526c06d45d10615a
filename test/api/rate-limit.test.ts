// Request rate limit (seed "Limits", README decision, api-details §19): per API
// key across all API endpoints and versions; 429 past the limit; 0 disables it;
// pings are never limited.
import { describe, expect, it } from 'vitest';
import { api, createCheck } from '../helpers/http.js';
import { useApiDaemon, v3 } from './support.js';

const limited = useApiDaemon({ apiRateLimit: 5 });
const unlimited = useApiDaemon({ apiRateLimit: 0 });

describe('apiRateLimit: 5', () => {
  it('the 6th request with one key within a minute gets 429; another key still gets 200', async () => {
    const a = await limited.d.createProject({ name: 'a' });
    const b = await limited.d.createProject({ name: 'b' });
    for (let i = 0; i < 5; i++) {
      expect((await api(limited.url, v3('/checks/'), { key: a.apiKey })).status, `request ${i + 1}`).toBe(200);
    }
    const sixth = await api(limited.url, v3('/checks/'), { key: a.apiKey });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('content-type')).toMatch(/^application\/json/);
    expect(typeof sixth.json.error).toBe('string');
    expect(sixth.headers.get('access-control-allow-origin')).toBe('*');
    expect((await api(limited.url, v3('/checks/'), { key: a.apiKey })).status).toBe(429);
    expect((await api(limited.url, v3('/checks/'), { key: b.apiKey })).status).toBe(200);
    // The read-only key of project a is a different key with its own budget.
    expect((await api(limited.url, v3('/checks/'), { key: a.apiKeyReadonly })).status).toBe(200);
  });

  it('counts every endpoint and API version against the same key', async () => {
    const p = await limited.d.createProject({ name: 'mixed' });
    const seq: Array<[string, string]> = [
      ['GET', v3('/checks/')],
      ['GET', v3('/channels/')],
      ['GET', v3('/badges/')],
      ['GET', '/api/v1/checks/'],
      ['POST', v3('/checks/')],
    ];
    for (const [method, path] of seq) {
      const r = await api(limited.url, path, { method, key: p.apiKey });
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
    }
    expect((await api(limited.url, '/api/v2/badges/', { key: p.apiKey })).status).toBe(429);
  });

  it('a key sent in the JSON body counts as that key', async () => {
    const p = await limited.d.createProject({ name: 'body' });
    for (let i = 0; i < 3; i++) {
      expect((await api(limited.url, v3('/checks/'), { body: { api_key: p.apiKey } })).status).toBe(201);
    }
    expect((await api(limited.url, v3('/checks/'), { key: p.apiKey })).status).toBe(200);
    expect((await api(limited.url, v3('/checks/'), { key: p.apiKey, body: {} })).status).toBe(201);
    const r = await api(limited.url, v3('/checks/'), { body: { api_key: p.apiKey } });
    expect(r.status).toBe(429);
  });

  it('a limited response is not a write: the 429 create stored nothing', async () => {
    const p = await limited.d.createProject({ name: 'nowrite' });
    for (let i = 0; i < 5; i++) await api(limited.url, v3('/checks/'), { key: p.apiKey, body: { name: `c${i}` } });
    expect((await api(limited.url, v3('/checks/'), { key: p.apiKey, body: { name: 'late' } })).status).toBe(429);
    const names = limited.d.daemon.store.listChecks(p.id).map((c) => c.name);
    expect(names).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('pings are never limited', async () => {
    const p = await limited.d.createProject({ name: 'pings' });
    const c = await createCheck(limited.url, p.apiKey);
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${limited.url}/ping/${c.uuid}`);
      await res.text();
      expect(res.status).toBe(200);
    }
  });
});

describe('apiRateLimit: 0', () => {
  it('never limits', async () => {
    const p = await unlimited.d.createProject({ name: 'free' });
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) {
      statuses.add((await api(unlimited.url, v3(i % 2 ? '/checks/' : '/badges/'), { key: p.apiKey })).status);
    }
    expect([...statuses]).toEqual([200]);
  });
});
