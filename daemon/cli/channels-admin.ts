// `checkd channel create`, `checkd channel test` and `checkd channel list`.
import { performance } from 'node:perf_hooks';
import { Store } from '../store/store.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NotifyStore } from '../store/notify.js';
import { listChannelDeliveries } from '../notify/listing.js';
import { systemClock } from '../shared/clock.js';
import { isoSeconds } from '../domain/format.js';
import { UUID_RE } from '../domain/ids.js';
import { needsValue, setValueCommand, validateChannel } from '../domain/channel-kinds.js';
import { resolveMembers } from '../domain/integrations/group.js';
import type { ChannelRecord } from '../domain/types.js';
import { parseRepeatEvery } from '../domain/policy-input.js';
import { checkGroupMembers, noCheckdData, openForProject, refuseDuringStorageAlarm, requireProject, UsageError, type Output } from './admin.js';
import { joinMatrixAlias } from './matrix-join.js';
import { resolveNotifyConfig, type NotifyConfig, type RawNotifyOptions } from '../config/notify.js';
import { SERVE_SETTINGS } from '../config/settings.js';
import { testNotification } from '../notify/notifier.js';
import { deliver, type DeliveryResult } from '../notify/transports.js';
import { groupResult } from '../notify/kinds/group.js';
import type { FanOut } from '../notify/kinds/kind.js';

function openExisting(dataDir: string, what: string, opts: { readOnly?: boolean } = {}): Store {
  // Never create an environment just to find nothing in it.
  if (!existsSync(join(dataDir, 'data.mdb'))) throw new UsageError(`${what} (${noCheckdData(dataDir)})`);
  return Store.open(dataDir, opts);
}

/**
 * The channel fields of `channel create --repeat-every` (none when absent or
 * 0), checked before anything is written. It takes the command's options
 * whole: the flag is the one of them only the alert policies read.
 */
export function repeatEveryOption(opts: object): Pick<ChannelRecord, 'repeatEvery'> {
  const { repeatEvery } = opts as { repeatEvery?: string };
  if (repeatEvery === undefined) return {};
  const parsed = parseRepeatEvery(repeatEvery);
  if (!parsed.ok) throw new UsageError(parsed.error);
  return parsed.seconds === 0 ? {} : { repeatEvery: parsed.seconds };
}

export async function channelCreate(
  dataDir: string,
  opts: { project: string; kind: string; name?: string; value?: string; repeatEvery?: string } & RawNotifyOptions,
  out: Output,
): Promise<void> {
  // Refused before a Matrix alias is joined or anything is written.
  const repeat = repeatEveryOption(opts);
  // A Matrix room alias is joined first: the channel keeps the room's ID, and the alias as its name.
  const joined = opts.kind === 'matrix' ? await joinMatrixAlias(opts) : null;
  const checked = validateChannel(opts.kind, joined?.roomId ?? opts.value ?? '');
  if (!checked.ok) throw new UsageError(checked.error);
  const name = (opts.name ?? joined?.alias ?? '').trim();
  if (name.length > 100) throw new UsageError('--name must be at most 100 characters');
  // The API's `channels` parameter is a comma-separated list of ids or names.
  if (name.includes(',')) throw new UsageError('--name must not contain a comma');
  const store = openForProject(dataDir, opts.project);
  try {
    refuseDuringStorageAlarm(store, systemClock.now());
    const project = requireProject(store, opts.project);
    if (opts.kind === 'group') checkGroupMembers(store, project.id, checked.value);
    const channel = await store.createChannel(
      { projectId: project.id, kind: opts.kind, name, value: checked.value, ...repeat },
      systemClock.now(),
    );
    out.print(
      { id: channel.id, name: channel.name, kind: channel.kind },
      `channel ${channel.id} (${channel.kind}${name ? `, "${name}"` : ''}) created`,
    );
  } finally {
    await store.close();
  }
}

export async function channelList(dataDir: string, opts: { project: string }, out: Output): Promise<void> {
  const noProject = `no project with id "${opts.project}" (see: checkd project list)`;
  // Read-only: a listing neither writes nor upgrades an older data dir (a backup being checked).
  const store = openExisting(dataDir, noProject, { readOnly: true });
  try {
    if (!store.getProject(opts.project)) throw new UsageError(noProject);
    const rows = listChannelDeliveries(store, opts.project);
    const channels = rows.map((r) => ({
      id: r.id,
      name: r.name,
      kind: r.kind,
      last_status: r.state,
      last_error: r.error,
      last_attempt: r.lastAttemptAt === null ? null : isoSeconds(r.lastAttemptAt),
      last_success: r.lastSuccessAt === null ? null : isoSeconds(r.lastSuccessAt),
      last_duration_ms: r.lastDurationMs,
      pending: r.pending,
    }));
    // Wide enough for the longest kind listed (googlechat, mattermost, rocketchat, ...).
    const kindWidth = Math.max(7, ...channels.map((c) => c.kind.length));
    const human =
      rows.length === 0
        ? 'no channels (create one: checkd channel create --project ID --kind KIND --value VALUE)'
        : [
            `ID                                    ${'KIND'.padEnd(kindWidth)}  STATUS    PENDING  LAST ATTEMPT               NAME / LAST ERROR`,
            ...channels.map((c) => {
              const line = `${c.id.padEnd(36)}  ${c.kind.padEnd(kindWidth)}  ${c.last_status.padEnd(8)}  ${String(c.pending).padStart(7)}  ${(c.last_attempt ?? '-').padEnd(25)}  ${c.name}`;
              return c.last_error ? `${line}\n${' '.repeat(38)}error: ${c.last_error}` : line;
            }),
          ].join('\n');
    out.print({ channels }, human);
  } finally {
    await store.close();
  }
}

/**
 * Send a test notification through the channel's real transport, once, and
 * report it. Failure: the error on stderr (or in the JSON) and exit code 1.
 */
export async function channelTest(
  dataDir: string,
  opts: RawNotifyOptions & { id: string; baseUrl?: string },
  out: Output,
): Promise<void> {
  const noChannel = `no channel with id "${opts.id}" (see: checkd channel list --project ID)`;
  if (!UUID_RE.test(opts.id)) throw new UsageError(noChannel);
  const settings = resolveNotifyConfig(opts, process.env);
  const store = openExisting(dataDir, noChannel);
  try {
    const channel = store.getChannel(opts.id);
    if (!channel) throw new UsageError(noChannel);
    if (needsValue(channel)) {
      throw new UsageError(`channel ${channel.id} has no value yet (it was imported without it): ${setValueCommand(channel.id)}`);
    }
    const now = systemClock.now();
    const projectName = store.getProject(channel.projectId)?.name ?? '';
    const baseUrl = (opts.baseUrl ?? process.env[SERVE_SETTINGS.baseUrl.env] ?? SERVE_SETTINGS.baseUrl.default).replace(/\/+$/, '');
    const n = testNotification(channel, projectName, now, baseUrl);
    const t0 = performance.now();
    // A group's test goes to each of its members, each recorded as that member's test.
    const fanOut: FanOut = async (ids) => {
      const results: DeliveryResult[] = [];
      for (const member of resolveMembers(ids, channel.projectId, (id) => store.getChannel(id))) {
        // As in the notifier: a member still waiting for its value gets nothing.
        if (needsValue(member)) continue;
        results.push(await testOnce(store, member, projectName, baseUrl, settings));
      }
      return groupResult(results);
    };
    const result = await deliver(channel, n, settings, undefined, { fanOut });
    const durationMs = Math.round(performance.now() - t0);
    const error = result.ok ? null : result.error;
    await recordTestResult(store, channel, result, durationMs);
    const doc = { id: channel.id, kind: channel.kind, event: n.event, ok: result.ok, error: error ?? '', duration_ms: durationMs };
    if (result.ok) {
      out.print(doc, `test notification (${n.event}) sent through ${channel.kind} channel ${channel.id} in ${durationMs} ms`);
    } else {
      if (out.json) out.print(doc, '');
      else process.stderr.write(`checkd: test notification through ${channel.kind} channel ${channel.id} failed: ${error}\n`);
      process.exitCode = 1;
    }
  } finally {
    await store.close();
  }
}

/** Deliver a test notification through one channel and record it. */
async function testOnce(store: Store, channel: ChannelRecord, projectName: string, baseUrl: string, settings: NotifyConfig): Promise<DeliveryResult> {
  const n = testNotification(channel, projectName, systemClock.now(), baseUrl);
  const t0 = performance.now();
  const result = await deliver(channel, n, settings);
  await recordTestResult(store, channel, result, Math.round(performance.now() - t0));
  return result;
}

/** The channel's last delivery is this test; a destination the service moved is stored. */
async function recordTestResult(store: Store, channel: ChannelRecord, result: DeliveryResult, durationMs: number): Promise<void> {
  if (result.channelValue !== undefined) await store.updateChannel(channel.id, { value: result.channelValue }, systemClock.now());
  await new NotifyStore(store).recordTest(channel.id, systemClock.now(), durationMs, result.ok ? null : result.error);
}
