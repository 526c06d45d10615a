// group: a flip reaches every member of the group through the member's own
// channel, once even when the member is also assigned directly; vanished
// members are skipped; a member's failure is the member's (retried or not by
// its own rules), never the group's.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { ping } from '../../helpers/http.js';
import { goDown } from '../support.js';
import { channel, deliveryStatus, downThenUp, jsonOf, makeCheck, startHarness, waitForState, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { groupMembersError, parseGroupValue } from '../../../daemon/domain/integrations/group.js';

let h: Harness;

setupSuite(async () => {
  h = await startHarness();
});

describe('group', () => {
  it('value: channel ids separated by commas; members of the same project, no groups', async () => {
    const a = '11111111-1111-4111-8111-111111111111';
    const b = '22222222-2222-4222-8222-222222222222';
    expect(validateChannel('group', `${a},${b}`)).toMatchObject({ ok: true });
    expect(parseGroupValue(`${a}, ${b},${a}`)).toEqual([a, b]);
    expect(validateChannel('group', '')).toMatchObject({ ok: false, error: expect.stringMatching(/channel ids separated by commas/) });
    expect(validateChannel('group', `${a};${b}`)).toMatchObject({ ok: false });

    const member = await channel(h, 'spike', `${h.rx.url}/m0`);
    const inner = await channel(h, 'group', member.id);
    const other = await h.d.createProject({ name: 'other' });
    const foreign = await h.d.daemon.store.createChannel({ projectId: other.id, kind: 'spike', name: '', value: `${h.rx.url}/x` }, Date.now());
    const get = (id: string) => h.d.daemon.store.getChannel(id);
    expect(groupMembersError([member.id], h.p.id, get)).toBeNull();
    expect(groupMembersError([a], h.p.id, get)).toMatch(/no channel 11111111-.* in this project/);
    expect(groupMembersError([foreign.id], h.p.id, get)).toMatch(/in this project/);
    expect(groupMembersError([inner.id], h.p.id, get)).toMatch(/groups cannot contain groups/);
  });

  it('each member gets down and up once, through its own kind; the group records its own delivery', async () => {
    const spike = await channel(h, 'spike', `${h.rx.url}/g1/spike`);
    const vo = await channel(h, 'victorops', `${h.rx.url}/g1/vo`);
    const gone = '33333333-3333-4333-8333-333333333333';
    const group = await channel(h, 'group', `${spike.id},${gone},${vo.id}`, 'on call');
    // The spike channel is also assigned directly: it is still told once.
    const { downs, ups } = await downThenUp(h, `${group.id},${spike.id}`, '/g1/');
    expect(downs.map((r) => r.path).sort()).toEqual(['/g1/spike', '/g1/vo']);
    expect(ups.map((r) => r.path).sort()).toEqual(['/g1/spike', '/g1/vo']);
    expect(jsonOf(downs.find((r) => r.path === '/g1/spike')!).status).toBe('down');
    expect(jsonOf(downs.find((r) => r.path === '/g1/vo')!).message_type).toBe('CRITICAL');
    expect(jsonOf(ups.find((r) => r.path === '/g1/vo')!).message_type).toBe('RECOVERY');
    for (const id of [group.id, spike.id, vo.id]) expect(deliveryStatus(h, id), id).toMatchObject({ state: 'ok', error: '', event: 'up' });
  });

  it("a member's final failure is the member's, not retried; the group stays ok", async () => {
    const bad = await channel(h, 'spike', `${h.rx.url}/g2/bad`);
    const group = await channel(h, 'group', bad.id);
    h.rx.queue('/g2/', { status: 400, json: { message: 'no such integration' } });
    const check = await makeCheck(h, { name: 'bad member', channels: group.id });
    await goDown(h.d.url, check.uuid);
    await waitForState(h, bad.id, 'failed');
    await h.d.daemon.notifier.idle();
    await new Promise((r) => setTimeout(r, 300)); // a retry would come after 50-200 ms
    expect(h.rx.on('/g2/')).toHaveLength(1);
    expect(deliveryStatus(h, bad.id)).toMatchObject({ state: 'failed', error: 'Received status code 400 with a message: "no such integration"' });
    expect(deliveryStatus(h, group.id)).toMatchObject({ state: 'ok', error: '' });
    await ping(h.d.url, check.uuid);
    await h.d.daemon.notifier.idle();
  });

  it("a member's transient failure is retried until the member delivers", async () => {
    const flaky = await channel(h, 'spike', `${h.rx.url}/g3/flaky`);
    const group = await channel(h, 'group', flaky.id);
    h.rx.queue('/g3/', { status: 503 });
    const check = await makeCheck(h, { name: 'flaky member', channels: group.id });
    await goDown(h.d.url, check.uuid);
    await h.rx.waitFor('/g3/', 2);
    await waitForState(h, flaky.id, 'ok');
    await h.d.daemon.notifier.idle();
    expect(h.rx.on('/g3/')).toHaveLength(2);
    expect(deliveryStatus(h, group.id)).toMatchObject({ state: 'ok' });
    await ping(h.d.url, check.uuid);
    await h.d.daemon.notifier.idle();
  });
});
