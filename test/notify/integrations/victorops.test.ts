// victorops (Splunk On-Call): CRITICAL on down and RECOVERY on up for one
// entity_id per check; a 404 is final, a 5xx retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { uniqueKeyOf } from '../../../daemon/domain/ids.js';

let h: Harness;

setupSuite(async () => {
  const model = checking(
    (req) => {
      const p = jsonProblems(req, { message_type: 'string', entity_id: 'string', state_message: 'string' });
      if (p.length === 0 && !['CRITICAL', 'WARNING', 'INFO', 'ACKNOWLEDGEMENT', 'RECOVERY'].includes(jsonOf(req).message_type)) p.push('bad message_type');
      return p;
    },
    { status: 200, json: { result: 'success', entity_id: 'x' } },
    (problems) => ({ status: 400, json: { result: 'failure', message: problems.join('; ') } }),
  );
  h = await startHarness(model);
});

describe('victorops', () => {
  it('value: the REST endpoint URL with its routing key', () => {
    expect(validateChannel('victorops', 'https://alert.victorops.com/integrations/generic/20131114/alert/KEY/ops')).toMatchObject({ ok: true });
    expect(validateChannel('victorops', 'alert.victorops.com/x')).toMatchObject({ ok: false });
  });

  it('down opens an incident (CRITICAL), up resolves it (RECOVERY), both on the check\'s unique key', async () => {
    const c = await channel(h, 'victorops', `${h.rx.url}/integrations/generic/20131114/alert/KEY/ops`);
    const { uuid, down, up } = await downThenUp(h, c.id, '/integrations/');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/integrations/generic/20131114/alert/KEY/ops');
    expect(down.headers['content-type']).toBe('application/json');
    expect(jsonOf(down)).toEqual({
      entity_id: uniqueKeyOf(uuid),
      message_type: 'CRITICAL',
      entity_display_name: 'backup "nightly" <db> & co',
      state_message: 'backup "nightly" <db> & co is DOWN (received a failure signal).',
      monitoring_tool: 'checkd',
    });
    expect(jsonOf(up)).toEqual({
      entity_id: uniqueKeyOf(uuid),
      message_type: 'RECOVERY',
      entity_display_name: 'backup "nightly" <db> & co',
      state_message: 'backup "nightly" <db> & co is UP.',
      monitoring_tool: 'checkd',
    });
  });

  it('a 404 is tried once; a 5xx is retried', async () => {
    const c = await channel(h, 'victorops', `${h.rx.url}/integrations/generic/20131114/alert/GONE/ops`);
    await expectPermanent(h, c.id, '/integrations/generic/20131114/alert/GONE/', { status: 404, json: { result: 'failure', message: 'Not found' } }, 'Received status code 404 with a message: "Not found"');
    await expectTransient(h, c.id, '/integrations/generic/20131114/alert/GONE/', [{ status: 500 }, { status: 503 }], /^Received status code 50[03]$/);
  });
});
