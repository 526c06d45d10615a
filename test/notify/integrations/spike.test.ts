// spike: down and up for one check_id per check, the title and message as
// Spike's Healthchecks integration reads them; which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { uniqueKeyOf } from '../../../daemon/domain/ids.js';

let h: Harness;

setupSuite(async () => {
  const model = checking(
    (req) => jsonProblems(req, { check_id: 'string', status: 'string', title: 'string', message: 'string' }),
    { status: 200, json: { success: true } },
    (problems) => ({ status: 422, json: { message: problems.join('; ') } }),
  );
  h = await startHarness(model);
});

describe('spike', () => {
  it('value: the webhook URL of the integration', () => {
    expect(validateChannel('spike', 'https://api.spike.sh/v1/alerts/abc')).toMatchObject({ ok: true });
    expect(validateChannel('spike', 'ftp://api.spike.sh/x')).toMatchObject({ ok: false });
  });

  it('down and up: status down or up for the check\'s unique key, with the name as written', async () => {
    const c = await channel(h, 'spike', `${h.rx.url}/v1/alerts/sp1`);
    const { uuid, down, up } = await downThenUp(h, c.id, '/v1/alerts/sp1');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/v1/alerts/sp1');
    expect(down.headers['content-type']).toBe('application/json');
    const doc = jsonOf(down);
    expect(doc).toMatchObject({
      check_id: uniqueKeyOf(uuid),
      status: 'down',
      title: 'backup "nightly" <db> & co is DOWN (received a failure signal)',
    });
    expect(doc.message).toMatch(/^backup "nightly" <db> & co is DOWN \(received a failure signal\)\.\nLast ping was (just now|an? \w+ ago|\d+ \w+ ago)\.$/);
    expect(jsonOf(up)).toEqual({ check_id: uniqueKeyOf(uuid), status: 'up', title: 'backup "nightly" <db> & co is UP', message: 'backup "nightly" <db> & co is UP.' });
  });

  it('a 4xx is not retried, a 5xx is', async () => {
    const c = await channel(h, 'spike', `${h.rx.url}/v1/alerts/sp2`);
    await expectPermanent(h, c.id, '/v1/alerts/sp2', { status: 401, json: { message: 'Invalid token' } }, 'Received status code 401 with a message: "Invalid token"');
    await expectTransient(h, c.id, '/v1/alerts/sp2', [{ status: 504 }], 'Received status code 504');
  });
});
