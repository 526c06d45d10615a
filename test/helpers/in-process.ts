// In-process daemons on real LMDB environments in temp dirs, bound to
// 127.0.0.1 on port 0, with an injected clock: one per test (startInProcess)
// or one per file or describe block (useDaemon). Both stop by themselves.
import { startDaemon, type RunningDaemon } from '../../daemon/daemon.js';
import { createLogger } from '../../daemon/shared/log.js';
import { systemClock, type Clock } from '../../daemon/shared/clock.js';
import { DEFAULTS, type ServeConfig } from '../../daemon/config/serve.js';
import { NOTIFY_DEFAULTS, type NotifyConfig } from '../../daemon/config/notify.js';
import { onCleanup, setupSuite } from './cleanup.js';
import { BASE_URL } from './http.js';
import { tempDir } from './temp.js';

export interface TestProject {
  id: string;
  apiKey: string;
  apiKeyReadonly: string;
  pingKey: string;
}

export interface ProjectOptions {
  name?: string;
  checkLimit?: number;
  pingLogLimit?: number;
}

export interface InProcessDaemon {
  daemon: RunningDaemon;
  url: string;
  dataDir: string;
  clock: Clock;
  /** A project made in the store (name "test", 20 checks, 100 pings unless told). */
  createProject(opts?: ProjectOptions): Promise<TestProject>;
  /** Stop now (a restart on the same data dir); stopping again does nothing. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Data dir; default a fresh temp dir, removed at cleanup. */
  dataDir?: string;
  clock?: Clock;
  apiRateLimit?: number;
  pingBodyLimit?: number;
  /** Default BASE_URL. */
  baseUrl?: string;
  trustProxy?: boolean;
  /** Label of the `*` badge; default checkd's. */
  badgeLabel?: string;
  /** HTTP address; default 127.0.0.1 on a free port. */
  listen?: { host: string; port: number };
  /** gRPC address (host:port or unix:/path); default 127.0.0.1 on a free port. */
  grpcListen?: string;
  /** Notifier settings over the defaults (SMTP, shell, retry timings). */
  notify?: Partial<NotifyConfig>;
  /** Where the daemon logs, from which level; default nowhere. */
  log?: { level: string; to: NodeJS.WritableStream };
  /** E-mail pings: the SMTP address (off by default), the ping domain, the message limit. */
  smtpListen?: { host: string; port: number };
  pingEmailDomain?: string;
  smtpMessageLimit?: number;
  /** --heartbeat-url (off by default), and how often it is pinged (default a minute). */
  heartbeatUrl?: string;
  heartbeatEveryMs?: number;
  /** --storage-quota (off by default) and --storage-reserve (default none: no free-space alarm). */
  storageQuota?: number | null;
  storageReserve?: number;
  /** How often the storage alarm looks at the disk (default the daemon's). */
  storagePollMs?: number;
  /** How long the monitor reads checks before the daemon serves (default the daemon's). */
  monitorLoadBudgetMs?: number;
}

/** Start a daemon in this process; it is stopped at cleanup (see cleanup.ts). */
export async function startInProcess(opts: StartOptions = {}): Promise<InProcessDaemon> {
  const dataDir = opts.dataDir ?? tempDir();
  const config: ServeConfig = {
    dataDir,
    listen: opts.listen ?? { host: '127.0.0.1', port: 0 },
    grpcListen: opts.grpcListen ?? '127.0.0.1:0',
    baseUrl: opts.baseUrl ?? BASE_URL,
    apiRateLimit: opts.apiRateLimit ?? 0,
    pingBodyLimit: opts.pingBodyLimit ?? 10000,
    trustProxy: opts.trustProxy ?? false,
    logLevel: opts.log?.level ?? 'silent',
    badgeLabel: opts.badgeLabel ?? DEFAULTS.badgeLabel,
    smtpListen: opts.smtpListen ?? null,
    pingEmailDomain: opts.pingEmailDomain ?? null,
    smtpMessageLimit: opts.smtpMessageLimit ?? Number(DEFAULTS.smtpMessageLimit),
    heartbeatUrl: opts.heartbeatUrl ?? null,
    heartbeatEveryMs: opts.heartbeatEveryMs,
    storageQuota: opts.storageQuota ?? null,
    storageReserve: opts.storageReserve ?? 0,
    storagePollMs: opts.storagePollMs,
    monitorLoadBudgetMs: opts.monitorLoadBudgetMs,
    notify: { ...NOTIFY_DEFAULTS, ...opts.notify },
  };
  const clock = opts.clock ?? systemClock;
  const logger = opts.log ? createLogger(opts.log.level, opts.log.to) : createLogger('silent');
  const daemon = await startDaemon(config, logger, clock);
  onCleanup(() => daemon.stop());
  return {
    daemon,
    url: `http://${daemon.httpAddress}`,
    dataDir,
    clock,
    async createProject(p = {}) {
      const { project, apiKey, apiKeyReadonly } = await daemon.store.createProject(
        { name: p.name ?? 'test', checkLimit: p.checkLimit ?? 20, pingLogLimit: p.pingLogLimit ?? 100 },
        clock.now(),
      );
      return { id: project.id, apiKey, apiKeyReadonly, pingKey: project.pingKey };
    },
    stop: () => daemon.stop(),
  };
}

export interface DaemonEnv {
  d: InProcessDaemon;
  url: string;
  clock: Clock;
  /** The project the tests work in (1000 checks unless told). */
  p: TestProject;
}

/**
 * One daemon for the tests of the calling file or describe block, started
 * before them and stopped after them; the fields are set once it runs.
 */
export function useDaemon(opts: StartOptions & { project?: ProjectOptions } = {}): DaemonEnv {
  const env = {} as DaemonEnv;
  setupSuite(async () => {
    env.d = await startInProcess(opts);
    env.url = env.d.url;
    env.clock = env.d.clock;
    env.p = await env.d.createProject({ checkLimit: 1000, ...opts.project });
  });
  return env;
}
