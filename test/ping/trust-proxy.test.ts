// remote_addr with --trust-proxy (ping-protocol §5.1 as adopted by contract.md):
// X-Forwarded-For is honoured only when the daemon is told it sits behind a proxy.
import { describe, expect, it } from 'vitest';
import { createCheck, ping } from '../helpers/http.js';
import { useDaemon } from '../helpers/in-process.js';
import { listPings } from './support.js';

const env = useDaemon({ trustProxy: true });

async function recorded(xff: string | undefined): Promise<string | null> {
  const c = await createCheck(env.url, env.p.apiKey);
  await ping(env.url, c.uuid, { headers: xff === undefined ? {} : { 'X-Forwarded-For': xff } });
  return (await listPings(env, c.uuid))[0].remote_addr;
}

describe('with --trust-proxy', () => {
  it('takes the first X-Forwarded-For element', async () => {
    expect(await recorded('1.1.1.1')).toBe('1.1.1.1');
    expect(await recorded('1.1.1.1,2.2.2.2')).toBe('1.1.1.1');
    expect(await recorded(' 3.3.3.3 , 2.2.2.2')).toBe('3.3.3.3');
  });

  it('strips a port from IPv4, normalises IPv6, keeps IPv4-mapped IPv6 mapped', async () => {
    expect(await recorded('1.1.1.1:1234')).toBe('1.1.1.1');
    expect(await recorded('2001::1')).toBe('2001::1');
    expect(await recorded('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(await recorded('::ffff:1.1.1.1')).toBe('::ffff:1.1.1.1');
  });

  it('normalises IPv6 written with a dotted IPv4 tail; a mapped address is always written dotted', async () => {
    expect(await recorded('0:0:0:0:0:ffff:1.1.1.1')).toBe('::ffff:1.1.1.1');
    expect(await recorded('::FFFF:101:101')).toBe('::ffff:1.1.1.1');
    expect(await recorded('::ffff:c0a8:ff0a')).toBe('::ffff:192.168.255.10');
    expect(await recorded('::1.2.3.4')).toBe('::102:304');
    expect(await recorded('2001:DB8::1.2.3.4')).toBe('2001:db8::102:304');
  });

  it('falls back to the peer address without the header; stores an odd value verbatim', async () => {
    expect(await recorded(undefined)).toBe('127.0.0.1');
    expect(await recorded('unknown')).toBe('unknown');
  });

  it('scheme still comes from X-Forwarded-Proto', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '9.9.9.9' } });
    const [p] = await listPings(env, c.uuid);
    expect(p).toMatchObject({ scheme: 'https', remote_addr: '9.9.9.9' });
  });
});
