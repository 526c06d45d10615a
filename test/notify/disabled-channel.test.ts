// A channel without a value (imported from Healthchecks, whose API does not give
// channel secrets) is disabled: a flip queues nothing for it, while the other
// channels of the same check are notified as usual.
import { expect, it } from 'vitest';
import { setupSuite } from '../helpers/cleanup.js';
import { createCheck } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { goDown, makeChannel, startHttpReceiver, type HttpReceiver } from './support.js';
import { NotifyStore } from '../../daemon/store/notify.js';
import { newUuid } from '../../daemon/domain/ids.js';

let d: InProcessDaemon;
let p: TestProject;
let rx: HttpReceiver;

setupSuite(async () => {
  rx = await startHttpReceiver();
  d = await startInProcess();
  p = await d.createProject({ name: 'imported' });
});

it('a flip notifies the configured channel and queues nothing for the disabled one', async () => {
  const store = d.daemon.store;
  const live = await makeChannel(d, p, 'webhook', `${rx.url}/live`, 'live');
  const disabled = { id: newUuid(), projectId: p.id, kind: 'webhook', name: 'from hc', value: '', createdAt: Date.now() };
  await store.transact(() => store.insertChannelInTxn(disabled, Date.now()));
  const check = await createCheck(d.url, p.apiKey, { name: 'job', channels: `${live.id},${disabled.id}` });
  await goDown(d.url, check.uuid);
  await rx.waitFor((reqs) => reqs.length === 1);
  await d.daemon.notifier.idle();
  const ns = new NotifyStore(store);
  expect(ns.channelStatus(live.id)).toMatchObject({ state: 'ok' });
  expect(ns.channelStatus(disabled.id)).toBeUndefined();
  expect(ns.pendingCount(disabled.id)).toBe(0);
  expect(ns.totalPending()).toBe(0);
});
