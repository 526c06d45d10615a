// alert-policies §7 over gRPC: the policy fields of Check and Flip (always
// on the wire, 0 or empty when not used), MuteCheck and UnmuteCheck, and
// the policy events a Watch resumed from a revision sees.
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { connect, keyMetadata, Watcher, type CheckdClient, type CheckMsg } from '../grpc/support.js';
import { expectedUniqueKey } from '../api/support.js';
import { waitFor } from '../helpers/wait.js';
import { at, createCheck, H, MIN, ping, startPolicyEnv, T0 } from './support.js';

type MuteReq = { id: string; seconds?: number; until_ms?: number };

function call<Req>(c: CheckdClient, method: 'MuteCheck' | 'UnmuteCheck', req: Req, key: string): Promise<CheckMsg> {
  const fn = (c as unknown as Record<string, (r: Req, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: CheckMsg) => void) => void>)[method]!;
  return new Promise((resolve, reject) => fn.call(c, req, keyMetadata(key), (err, res) => (err ? reject(err) : resolve(res))));
}

function getCheck(c: CheckdClient, id: string, key: string): Promise<{ check: CheckMsg; flips: any[] }> {
  return new Promise((resolve, reject) => c.GetCheck({ id }, keyMetadata(key), (err, res) => (err ? reject(err) : resolve(res as any))));
}

describe('gRPC', () => {
  it('a check that uses no policy carries zeros; one that does, its values; read-only keys see unique_keys', async () => {
    const env = await startPolicyEnv();
    const client = connect(env.d.daemon.grpcAddress);
    const plain = await createCheck(env, {});
    const db = await createCheck(env, { name: 'db' });
    const app = await createCheck(env, { max_duration: 600, failure_tolerance: 2, depends_on: db.uuid, timeout: 3600, grace: 60 });
    expect((await getCheck(client, plain.uuid, env.p.apiKey)).check).toMatchObject({
      max_duration_s: 0,
      failure_tolerance: 0,
      consecutive_failures: 0,
      muted_until_ms: 0,
      depends_on: '',
      suppressed_by: '',
    });
    await ping(env, db.uuid);
    await ping(env, app.uuid);
    await ping(env, app.uuid, 'fail');
    await ping(env, db.uuid, 'fail');
    await ping(env, app.uuid, 'fail');
    await ping(env, app.uuid, 'fail');
    const detail = await getCheck(client, app.uuid, env.p.apiKey);
    expect(detail.check).toMatchObject({ max_duration_s: 600, failure_tolerance: 2, consecutive_failures: 3, depends_on: db.uuid, suppressed_by: db.uuid });
    expect(detail.flips[0]).toMatchObject({ new_status: 'down', reason: 'fail', held: 'dependency', failures: 3 });
    const ro = await getCheck(client, expectedUniqueKey(app.uuid), env.p.apiKeyReadonly);
    expect(ro.check).toMatchObject({ depends_on: expectedUniqueKey(db.uuid), suppressed_by: expectedUniqueKey(db.uuid) });
  });

  it('MuteCheck (seconds or until_ms) and UnmuteCheck, with a Watch that sees the events', async () => {
    const env = await startPolicyEnv();
    const client = connect(env.d.daemon.grpcAddress);
    const c = await createCheck(env, { timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    const from = env.d.daemon.store.revision();
    const muted = await call<MuteReq>(client, 'MuteCheck', { id: c.uuid, seconds: 3600 }, env.p.apiKey);
    expect(muted.muted_until_ms).toBe(T0 + H);
    const later = await call<MuteReq>(client, 'MuteCheck', { id: expectedUniqueKey(c.uuid), until_ms: T0 + 2 * H }, env.p.apiKey);
    expect(later.muted_until_ms).toBe(T0 + 2 * H);
    await ping(env, c.uuid, 'fail');
    const unmuted = await call(client, 'UnmuteCheck', { id: c.uuid }, env.p.apiKey);
    expect(unmuted.muted_until_ms).toBe(0);
    await at(env, T0 + MIN);
    const watcher = new Watcher(client, env.p.apiKey, from);
    await waitFor(() => watcher.changes.some((e) => e.type === 'EVENT_TYPE_NOTIFICATION_RELEASED'), {
      timeout: 10_000,
      what: () => `a released notification; got ${JSON.stringify(watcher.changes.map((e) => e.type))}`,
    });
    const types = watcher.changes.map((e) => e.type).filter((t) => t !== 'EVENT_TYPE_PING_RECEIVED');
    expect(types).toEqual(['EVENT_TYPE_CHECK_MUTED', 'EVENT_TYPE_CHECK_MUTED', 'EVENT_TYPE_FLIP', 'EVENT_TYPE_CHECK_UNMUTED', 'EVENT_TYPE_NOTIFICATION_RELEASED']);
    const released = watcher.changes.find((e) => e.type === 'EVENT_TYPE_NOTIFICATION_RELEASED')!;
    expect(released.flip).toMatchObject({ new_status: 'down', reason: 'fail' });
    watcher.cancel();

    const refusals: Array<[MuteReq, string, grpc.status]> = [
      [{ id: c.uuid }, env.p.apiKey, grpc.status.INVALID_ARGUMENT],
      [{ id: c.uuid, seconds: 10 }, env.p.apiKey, grpc.status.INVALID_ARGUMENT],
      [{ id: c.uuid, until_ms: T0 - H }, env.p.apiKey, grpc.status.INVALID_ARGUMENT],
      [{ id: c.uuid, seconds: 3600 }, env.p.apiKeyReadonly, grpc.status.PERMISSION_DENIED],
      [{ id: '00000000-0000-4000-8000-000000000000', seconds: 3600 }, env.p.apiKey, grpc.status.NOT_FOUND],
    ];
    for (const [req, key, code] of refusals) {
      const err = await call<MuteReq>(client, 'MuteCheck', req, key).then(
        () => null,
        (e: grpc.ServiceError) => e,
      );
      expect(err?.code).toBe(code);
    }
  });
});
