// A local stand-in for the services checkd notifies (127.0.0.1 only): it
// records every request, and answers each one as the test's service model
// says — the service's success answer when the request is what the service
// documents, its error answer otherwise — unless the test queued answers of
// its own (a failure, a rate limit). Plus a daemon wired to it and the
// scenarios every kind's tests share; the receiver and the daemon stop at
// cleanup (see helpers/cleanup.ts). Not a test file itself.
import { expect } from 'vitest';
import { onCleanup } from '../../helpers/cleanup.js';
import { createCheck, ping } from '../../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../../helpers/in-process.js';
import { waitFor } from '../../helpers/wait.js';
import { goDown, makeChannel, startHttpReceiver, type Answer, type ReceivedRequest } from '../support.js';
import { NotifyStore, type ChannelDeliveryStatus } from '../../../daemon/store/notify.js';
import { INTEGRATION_DEFAULTS, type IntegrationSettings } from '../../../daemon/config/integrations.js';
import type { ChannelRecord } from '../../../daemon/domain/types.js';

/** A request as the receiver recorded it (test/notify/support.ts). */
export type ServiceRequest = ReceivedRequest;

export interface ServiceAnswer {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Answer this much later. */
  delayMs?: number;
}

/** A queued answer that is the model's own, given `delayMs` later. */
export function modelAnswerAfter(delayMs: number): ServiceAnswer {
  return { status: -1, delayMs };
}

/** What the modelled service answers a request (the harness's default: 200 `{}`). */
export type ServiceModel = (req: ServiceRequest) => ServiceAnswer;

export interface ServiceReceiver {
  url: string;
  requests: ServiceRequest[];
  model: ServiceModel;
  /** Requests whose path starts with `prefix`. */
  on(prefix: string): ServiceRequest[];
  /**
   * Answers for the next requests under `prefix`, in order; then the model
   * answers again. Those still queued at cleanup are dropped.
   */
  queue(prefix: string, ...answers: ServiceAnswer[]): void;
  waitFor(prefix: string, count: number, timeoutMs?: number): Promise<ServiceRequest[]>;
  close(): Promise<void>;
}

export function jsonOf(req: ServiceRequest): any {
  return JSON.parse(req.body);
}

export function formOf(req: ServiceRequest): URLSearchParams {
  return new URLSearchParams(req.body);
}

/** A receiver on 127.0.0.1 answering as `model` says; closed at cleanup. */
export async function startServiceReceiver(model: ServiceModel = () => ({ status: 200, json: {} })): Promise<ServiceReceiver> {
  const queued = new Map<string, ServiceAnswer[]>();
  const answer = (req: ServiceRequest): Answer => {
    const prefix = [...queued.keys()].find((p) => req.path.startsWith(p) && queued.get(p)!.length > 0);
    let chosen = prefix !== undefined ? queued.get(prefix)!.shift()! : rx.model(req);
    const delayMs = chosen.delayMs ?? 0;
    if (chosen.status === -1) chosen = rx.model(req);
    const headers: Record<string, string> = { ...chosen.headers };
    let body = chosen.text ?? '';
    if (chosen.json !== undefined) {
      body = JSON.stringify(chosen.json);
      headers['Content-Type'] ??= 'application/json';
    }
    return { status: chosen.status, body, headers, delayMs };
  };
  const http = await startHttpReceiver(0, answer);
  const rx: ServiceReceiver = {
    url: http.url,
    requests: http.requests,
    model,
    on: (prefix) => http.requests.filter((r) => r.path.startsWith(prefix)),
    queue(prefix, ...answers) {
      queued.set(prefix, [...(queued.get(prefix) ?? []), ...answers]);
      onCleanup(() => queued.delete(prefix));
    },
    async waitFor(prefix, count, timeoutMs = 10_000) {
      await waitFor(() => rx.on(prefix).length >= count, {
        timeout: timeoutMs,
        what: () => `${count} requests under ${prefix}: ${JSON.stringify(http.requests.map((r) => `${r.method} ${r.url}`))}`,
      });
      return rx.on(prefix);
    },
    close: () => http.close(),
  };
  return rx;
}

/** A model that answers `ok` to a request with no problems and `bad(problems)` otherwise. */
export function checking(problems: (req: ServiceRequest) => string[], ok: ServiceAnswer, bad: (problems: string[]) => ServiceAnswer): ServiceModel {
  return (req) => {
    const found = problems(req);
    return found.length === 0 ? ok : bad(found);
  };
}

/** Problems with a JSON body: each path (a.b.c) that is missing, or not of its type. */
export function jsonProblems(req: ServiceRequest, required: Record<string, 'string' | 'number' | 'object' | 'array' | 'boolean'>): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(req.body);
  } catch {
    return ['body is not JSON'];
  }
  if (!/^application\/json/.test(String(req.headers['content-type']))) return ['Content-Type is not application/json'];
  const out: string[] = [];
  for (const [path, type] of Object.entries(required)) {
    let v: unknown = doc;
    for (const key of path.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
    const actual = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
    if (actual !== type) out.push(`${path} must be ${type}, is ${actual}`);
  }
  return out;
}

// ---- a daemon that notifies the receiver ----------------------------------------

export interface Harness {
  d: InProcessDaemon;
  p: TestProject;
  rx: ServiceReceiver;
}

/** A receiver and a daemon whose integrations it stands in for, with a project; both stop at cleanup. */
export async function startHarness(
  model?: ServiceModel,
  integrations: (rx: ServiceReceiver) => Partial<IntegrationSettings> = () => ({}),
): Promise<Harness> {
  const rx = await startServiceReceiver(model);
  const d = await startInProcess({
    notify: {
      retryBaseMs: 50,
      retryMaxDelayMs: 200,
      timeoutMs: 5000,
      integrations: { ...INTEGRATION_DEFAULTS, ...integrations(rx) },
    },
  });
  const p = await d.createProject({ name: 'Ops & "core"' });
  return { d, p, rx };
}

/** A check of the harness's project, made through the API v3. */
export async function makeCheck(h: Harness, fields: Record<string, unknown>, p: TestProject = h.p): Promise<{ uuid: string; [k: string]: unknown }> {
  return createCheck(h.d.url, p.apiKey, fields);
}

/** Until the channel's last delivery is in `state`; the delivery status as it is then. */
export async function waitForState(h: Harness, channelId: string, state: ChannelDeliveryStatus['state']): Promise<ChannelDeliveryStatus> {
  return waitFor(() => (deliveryStatus(h, channelId)?.state === state ? deliveryStatus(h, channelId) : undefined), {
    what: () => `channel ${channelId} ${state}: ${JSON.stringify(deliveryStatus(h, channelId))}`,
  });
}

export function deliveryStatus(h: Harness, channelId: string): ChannelDeliveryStatus | undefined {
  return new NotifyStore(h.d.daemon.store).channelStatus(channelId);
}

export function channel(h: Harness, kind: string, value: string, name = ''): Promise<ChannelRecord> {
  return makeChannel(h.d, h.p, kind, value, name);
}

/** A check on `channelId` goes down (a success, then a failure with `body`) and comes up again. */
export async function downThenUp(
  h: Harness,
  channelId: string,
  prefix: string,
  fields: Record<string, unknown> = {},
  body?: string,
): Promise<{ uuid: string; down: ServiceRequest; up: ServiceRequest; downs: ServiceRequest[]; ups: ServiceRequest[] }> {
  const before = h.rx.on(prefix).length;
  const check = await makeCheck(h, { name: 'backup "nightly" <db> & co', tags: 'prod db', desc: 'Nightly *backup*', channels: channelId, ...fields });
  await goDown(h.d.url, check.uuid, body);
  await h.rx.waitFor(prefix, before + 1);
  await h.d.daemon.notifier.idle();
  const downs = h.rx.on(prefix).slice(before);
  await ping(h.d.url, check.uuid);
  await h.rx.waitFor(prefix, before + downs.length + 1);
  await h.d.daemon.notifier.idle();
  const ups = h.rx.on(prefix).slice(before + downs.length);
  // Only webhooks carry an Idempotency-Key: no service documents one (spec/integrations.md).
  for (const r of [...downs, ...ups]) expect(r.headers['idempotency-key'], `${r.method} ${r.path}`).toBeUndefined();
  return { uuid: check.uuid, down: downs[downs.length - 1]!, up: ups[ups.length - 1]!, downs, ups };
}

/** A failure the service answers for good: one request, not retried, recorded as failed with `error`. */
export async function expectPermanent(h: Harness, channelId: string, prefix: string, answer: ServiceAnswer, error: string | RegExp): Promise<void> {
  const before = h.rx.on(prefix).length;
  h.rx.queue(prefix, answer);
  const check = await makeCheck(h, { name: 'permanent', channels: channelId });
  await goDown(h.d.url, check.uuid);
  await waitForState(h, channelId, 'failed');
  await h.d.daemon.notifier.idle();
  await new Promise((r) => setTimeout(r, 300)); // a retry would come after 50-200 ms
  expect(h.rx.on(prefix).length - before).toBe(1);
  const status = deliveryStatus(h, channelId)!;
  expect(status.state).toBe('failed');
  if (typeof error === 'string') expect(status.error).toBe(error);
  else expect(status.error).toMatch(error);
  await ping(h.d.url, check.uuid); // leave it up, told or not
  await h.d.daemon.notifier.idle();
}

/**
 * A failure worth retrying: the failed attempts' error is recorded as
 * `retrying` (seen while the retry's answer is held back), the delivery is
 * tried again and then delivered. Returns every request it made.
 */
export async function expectTransient(
  h: Harness,
  channelId: string,
  prefix: string,
  answers: ServiceAnswer[],
  error: string | RegExp,
): Promise<ServiceRequest[]> {
  const before = h.rx.on(prefix).length;
  h.rx.queue(prefix, ...answers, modelAnswerAfter(400));
  const check = await makeCheck(h, { name: 'transient', channels: channelId });
  await goDown(h.d.url, check.uuid);
  await h.rx.waitFor(prefix, before + answers.length + 1);
  const during = deliveryStatus(h, channelId)!;
  expect(during.state).toBe('retrying');
  if (typeof error === 'string') expect(during.error).toBe(error);
  else expect(during.error).toMatch(error);
  await waitForState(h, channelId, 'ok');
  await h.d.daemon.notifier.idle();
  const sent = h.rx.on(prefix).slice(before);
  expect(sent).toHaveLength(answers.length + 1);
  await ping(h.d.url, check.uuid);
  await h.d.daemon.notifier.idle();
  return sent;
}
