// Shared pieces of the alert-policy suite (alert-policies.md): a daemon on a
// hand-moved clock, a project with a webhook channel whose every delivery a
// local receiver records with the policy placeholders, and a step that lets
// the daemon act on the clock's new time. Not a test file itself.
import { api, ping as pingOver } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { makeChannel, startHttpReceiver, type HttpReceiver } from '../notify/support.js';
import { ManualClock } from '../../daemon/shared/clock.js';

export { api, makeChannel, startHttpReceiver, ManualClock };
export type { HttpReceiver, InProcessDaemon, TestProject };

export const S = 1000;
export const MIN = 60 * S;
export const H = 60 * MIN;
export const DAY = 24 * H;
/** 2024-01-15T09:00:00Z, a Monday. */
export const T0 = Date.UTC(2024, 0, 15, 9, 0, 0);

/** What the test webhook sends, as the receiver parses it. */
export interface Delivery {
  status: 'down' | 'up';
  code: string;
  name: string;
  reason: string;
  reminder: number;
  down_since: string;
  now: string;
}

/** The webhook value: both events POST the placeholders as JSON to the receiver. */
export function webhookValue(rx: HttpReceiver, extra = ''): string {
  const body =
    '{"status": "$STATUS", "code": "$CODE", "name": $NAME_JSON, "reason": "$REASON", "reminder": $REMINDER, "down_since": "$DOWN_SINCE", "now": "$NOW"}';
  return JSON.stringify({
    method_down: 'POST',
    url_down: `${rx.url}/hook${extra}`,
    body_down: body,
    headers_down: { 'Content-Type': 'application/json' },
    method_up: 'POST',
    url_up: `${rx.url}/hook${extra}`,
    body_up: body,
    headers_up: { 'Content-Type': 'application/json' },
  });
}

export interface PolicyEnv {
  d: InProcessDaemon;
  p: TestProject;
  clock: ManualClock;
  rx: HttpReceiver;
  /** The id of the project's webhook channel. */
  channel: string;
  dataDir: string;
}

/** A daemon on `clock` with a project and its webhook channel; both stop at cleanup. */
export async function startPolicyEnv(opts: { clock?: ManualClock; rx?: HttpReceiver } = {}): Promise<PolicyEnv> {
  const clock = opts.clock ?? new ManualClock(T0);
  const rx = opts.rx ?? (await startHttpReceiver());
  const d = await startInProcess({ clock, notify: { retryBaseMs: 50, retryMaxDelayMs: 200, timeoutMs: 5000 } });
  const p = await d.createProject();
  const channel = (await makeChannel(d, p, 'webhook', webhookValue(rx), 'hook')).id;
  return { d, p, clock, rx, channel, dataDir: d.dataDir };
}

/** The same data dir served again (a restart), on the same clock. */
export async function restart(env: PolicyEnv): Promise<PolicyEnv> {
  await env.d.stop();
  const d = await startInProcess({ dataDir: env.dataDir, clock: env.clock, notify: { retryBaseMs: 50, retryMaxDelayMs: 200, timeoutMs: 5000 } });
  return { ...env, d };
}

/** Let the daemon act on the clock's time: hand committed events on, run the monitor, deliver. */
export async function settle(env: PolicyEnv): Promise<void> {
  for (let i = 0; i < 3; i++) {
    env.d.daemon.events.drain();
    await env.d.daemon.monitor.poke();
  }
  env.d.daemon.events.drain();
  await env.d.daemon.notifier.idle();
}

/** Move the clock to `at` and settle. */
export async function at(env: PolicyEnv, when: number): Promise<void> {
  env.clock.set(when);
  await settle(env);
}

/** Every webhook delivery so far, parsed, oldest first. */
export function deliveries(env: PolicyEnv, uuid?: string): Delivery[] {
  const all = env.rx.on('/hook').map((r) => JSON.parse(r.body) as Delivery);
  return uuid === undefined ? all : all.filter((x) => x.code === uuid);
}

/** Create a check through the API v3 (assigned to the webhook channel unless told), asserting 201. */
export async function createCheck(env: PolicyEnv, body: Record<string, unknown>): Promise<any> {
  const r = await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKey, body: { channels: env.channel, ...body } });
  if (r.status !== 201) throw new Error(`create check: ${r.status} ${r.text}`);
  return r.json;
}

/** The check's v3 representation. */
export async function getCheck(env: PolicyEnv, uuid: string, version = 3): Promise<any> {
  return (await api(env.d.url, `/api/v${version}/checks/${uuid}`, { key: env.p.apiKey })).json;
}

/** A ping at the clock's time (`suffix`: "", "start", "fail", "log", an exit status), then settle. */
export async function ping(env: PolicyEnv, uuid: string, suffix = ''): Promise<void> {
  await pingOver(env.d.url, suffix ? `${uuid}/${suffix}` : uuid);
  await settle(env);
}
