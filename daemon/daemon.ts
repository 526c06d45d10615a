// Wires the daemon together: store, HTTP, gRPC, background loops; and takes it
// apart again in reverse order, on shutdown or when start-up fails.
import type { FastifyInstance } from 'fastify';
import { buildHttpServer } from './api/server.js';
import { logGrpcThrough, startGrpcServer, type GrpcServerHandle } from './grpc/server.js';
import { addCheckdService } from './grpc/service.js';
import { PageTokens } from './grpc/page-token.js';
import { WatchHub } from './grpc/watch.js';
import { Metrics } from './api/metrics.js';
import { CheckService } from './service/checks.js';
import { PingService } from './service/pings.js';
import { registerPingRoutes } from './ping/routes.js';
import { EventTail } from './store/event-tail.js';
import { DeadlineMonitor, MAX_SLEEP_MS } from './monitor/deadlines.js';
import { HEARTBEAT_EVERY_MS, passIntervalMs, SelfWatch } from './monitor/self-watch.js';
import { sdNotify, watchdogIntervalMs } from './shared/systemd-notify.js';
import { Notifier } from './notify/notifier.js';
import { NOTIFY_DEFAULTS } from './config/notify.js';
import { Store } from './store/store.js';
import { JournalWriter } from './store/journal-writer.js';
import { STORAGE_POLL_MS, StorageWatch } from './store/storage-watch.js';
import { systemClock, type Clock } from './shared/clock.js';
import type { ServeConfig } from './config/serve.js';
import type { Logger } from './shared/log.js';
import { hostPortText, ListenError } from './shared/listen.js';
import { ShutdownStack } from './shared/shutdown-stack.js';
import { startHeapHeadroom } from './shared/heap-headroom.js';
import { pingEmailDomainOf } from './config/serve.js';

export interface RunningDaemon {
  store: Store;
  http: FastifyInstance;
  grpc: GrpcServerHandle;
  events: EventTail;
  monitor: DeadlineMonitor;
  hub: WatchHub;
  /** The storage alarm: the disk's free space and the quota. */
  storage: StorageWatch;
  notifier: Notifier;
  httpAddress: string;
  grpcAddress: string;
  /** Where e-mail pings are received; null when --smtp-listen is off. */
  smtpAddress: string | null;
  stop(): Promise<void>;
}

/** How long shutdown waits for in-flight HTTP requests before cutting their connections. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Start the daemon. Each component, once started, pushes its closer on one
 * stack; stop() and a failed start (a ListenError, ...) both unwind it, so a
 * failed start leaves nothing running and the data dir closed.
 */
export async function startDaemon(config: ServeConfig, logger: Logger, clock: Clock = systemClock): Promise<RunningDaemon> {
  const closers = new ShutdownStack();
  try {
    return await startComponents(config, logger, clock, closers);
  } catch (err) {
    await closers.close();
    throw err;
  }
}

async function startComponents(config: ServeConfig, logger: Logger, clock: Clock, closers: ShutdownStack): Promise<RunningDaemon> {
  const store = Store.open(config.dataDir);
  // The first look at the disk comes before any write: on a full disk the
  // daemon starts with the storage alarm on instead of failing (or filling
  // the disk to its last byte moving the ping journal).
  const storage = new StorageWatch(
    store,
    { reserveBytes: config.storageReserve, quotaBytes: config.storageQuota },
    clock,
    logger.child({ component: 'storage' }),
    config.storagePollMs ?? STORAGE_POLL_MS,
  );
  closers.push(() => store.close({ applyJournal: storage.journalBudget() === null }));
  closers.push(() => storage.stop());
  storage.begin();
  const checks = new CheckService(store, clock, storage);
  const pings = new PingService(store, clock, storage);
  const badgeSecret = await store.badgeSecret();
  await store.logId();
  // Pings journaled before a crash go into their checks before anything reads
  // them (readers see them in any case: store/pending.ts); left to the journal
  // writer when the disk has no room for the move.
  if (storage.journalBudget() === null) {
    await store.applyJournal().catch((err: unknown) => logger.error({ err }, 'writing journaled pings at start failed; the journal writer retries'));
  }
  // Started this early so that it stops after everything that writes, just before the store closes.
  const journalWriter = new JournalWriter(store, config.dataDir, logger.child({ component: 'journal' }), { budget: () => storage.journalBudget() });
  closers.push(() => journalWriter.stop());
  const events = new EventTail(store, logger);
  const watching = {
    heartbeatUrl: config.heartbeatUrl,
    heartbeatEveryMs: config.heartbeatEveryMs ?? HEARTBEAT_EVERY_MS,
    watchdogMs: watchdogIntervalMs(),
  };
  const selfWatch = new SelfWatch({ ...watching, notify: (state) => sdNotify(state, logger), logger: logger.child({ component: 'self-watch' }) });
  const monitor = new DeadlineMonitor(store, clock, logger.child({ component: 'monitor' }), {
    maxSleepMs: passIntervalMs(watching, MAX_SLEEP_MS),
    onAlive: selfWatch.alive,
    ...(config.monitorLoadBudgetMs !== undefined ? { loadBudgetMs: config.monitorLoadBudgetMs } : {}),
  });
  pings.beforePing = (check, now) => monitor.catchUp(check, now);
  events.subscribe(monitor.onEvents);
  const notifier = new Notifier(store, clock, logger.child({ component: 'notifier' }), config.notify ?? NOTIFY_DEFAULTS, config.baseUrl);
  // The cursor exists before the monitor's catch-up can flip anything.
  await notifier.init();
  // Deliveries start only once both listeners are up; stopping before that is harmless.
  closers.push(() => notifier.stop());
  notifier.onAttempt = (kind, result) => metrics.notifications.inc({ kind, result });
  events.subscribe(notifier.onEvents);
  const hub = new WatchHub(store, clock, () => storage.report());
  events.subscribe(hub.onEvents);
  const metrics = new Metrics(store, clock, config.dataDir, () => storage.report());
  events.subscribe(metrics.onEvents);
  const http = await buildHttpServer(
    {
      store,
      checks,
      clock,
      baseUrl: config.baseUrl,
      badgeSecret,
      apiRateLimit: config.apiRateLimit,
      pingBodyLimit: config.pingBodyLimit,
      badgeLabel: config.badgeLabel,
      logger,
      gate: storage,
    },
    { trustProxy: config.trustProxy },
  );
  metrics.register(http);
  registerPingRoutes(http, { pings, pingBodyLimit: config.pingBodyLimit, trustProxy: config.trustProxy });
  // Pushed before its start: a catch-up that fails may have armed the timer.
  closers.push(() => monitor.stop());
  // Catch up with deadlines that passed while stopped before accepting pings,
  // so catch-up flips precede new pings (a check read later is caught up with
  // by its first ping: monitor.catchUp).
  await monitor.start();
  events.start();
  closers.push(() => events.stop());
  // HTTP and gRPC close together, so one closer for both; a listener that never started is skipped.
  let grpc: GrpcServerHandle | null = null;
  closers.push(() => closeListeners(http, grpc));
  try {
    await http.listen({ host: config.listen.host, port: config.listen.port });
  } catch (err) {
    throw new ListenError('HTTP', `${config.listen.host}:${config.listen.port}`, err);
  }
  const addr = http.server.address();
  const httpAddress =
    addr && typeof addr === 'object'
      ? `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
      : String(addr);
  logGrpcThrough(logger.child({ component: 'grpc' }));
  try {
    grpc = await startGrpcServer(config.grpcListen, (server, health) =>
      addCheckdService(server, health, {
        store,
        checks,
        clock,
        logger: logger.child({ component: 'grpc' }),
        hub,
        pageTokens: new PageTokens(badgeSecret),
        storage: () => storage.report(),
      }),
    );
  } catch (err) {
    throw new ListenError('gRPC', config.grpcListen, err);
  }
  closers.push(() => hub.close());
  const smtpAddress = config.smtpListen ? await startEmailPings(config, pings, logger, closers) : null;
  // Deliveries begin once both listeners are up (a failed start leaves nothing running).
  notifier.start();
  // The alarm is looked at every few seconds from now on (and told, if it differs from what the log last told).
  storage.start();
  // The monitor's passes are reported from now on: WATCHDOG=1 and the heartbeat.
  selfWatch.start();
  closers.push(() => selfWatch.stop());
  const pruner = startEventPruning(store, clock, logger, () => notifier.pruneFloor());
  closers.push(() => clearInterval(pruner));
  closers.push(startHeapHeadroom((percent, live) => logger.debug({ percent, liveMb: Math.round(live / 2 ** 20) }, 'heap growing percent set')));
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= closers.close());
  return { store, http, grpc, events, monitor, hub, storage, notifier, httpAddress, grpcAddress: grpc.address, smtpAddress, stop };
}

/**
 * The SMTP listener of e-mail pings; it closes before the store, like the
 * other listeners. Loaded only when it is on: its SMTP and MIME libraries
 * would otherwise add to every start.
 */
async function startEmailPings(config: ServeConfig, pings: PingService, logger: Logger, closers: ShutdownStack): Promise<string> {
  const listen = config.smtpListen!;
  const { startSmtpListener } = await import('./email/listener.js');
  try {
    const smtp = await startSmtpListener({
      listen,
      domain: pingEmailDomainOf(config),
      messageLimit: config.smtpMessageLimit,
      pingBodyLimit: config.pingBodyLimit,
      pings,
      logger: logger.child({ component: 'smtp' }),
      closeTimeoutMs: SHUTDOWN_GRACE_MS,
    });
    closers.push(() => smtp.close());
    return smtp.address;
  } catch (err) {
    throw new ListenError('SMTP', hostPortText(listen), err);
  }
}

/**
 * In-flight requests get SHUTDOWN_GRACE_MS to finish (idle keep-alive
 * connections are closed at once); after that their sockets are cut, so a
 * client that never finishes its request cannot hold shutdown up.
 */
async function closeListeners(http: FastifyInstance, grpc: GrpcServerHandle | null): Promise<void> {
  const force = setTimeout(() => http.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  force.unref();
  await Promise.all([http.close(), grpc?.shutdown()]);
  clearTimeout(force);
}

/**
 * How often old events are dropped from the log (EVENT_RETENTION bounds): often
 * enough that a burst of pings does not grow the log far past its bound, whose
 * pages the daemon would otherwise keep mapped (docs/performance.md).
 */
const PRUNE_EVERY_MS = 10 * 1000;

/** Keeps the event log bounded; never prunes events the notifier has not yet read. */
function startEventPruning(store: Store, clock: Clock, logger: Logger, floor: () => number): NodeJS.Timeout {
  let running = false;
  const run = async () => {
    // A backlog can take longer than the interval; one pass at a time.
    if (running) return;
    running = true;
    try {
      let removed = 0;
      for (let n = -1; n !== 0; removed += n) n = await store.pruneEvents(clock.now(), floor());
      if (removed > 0) logger.debug({ removed }, 'event log pruned');
    } catch (err) {
      logger.error({ err }, 'pruning the event log failed');
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(run, PRUNE_EVERY_MS);
  timer.unref();
  return timer;
}
