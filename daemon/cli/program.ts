// `checkd`: the daemon (`serve`) and its admin commands (contract.md), loaded
// by the entry cli.ts. Bad arguments: a message on stderr and exit code 2,
// nothing written.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { pino } from 'pino';
import { checkListenHosts, ConfigError, DEFAULTS, resolveServeConfig, type RawServeOptions } from '../config/serve.js';
import { createLogger, writesToJournal } from '../shared/log.js';
import { sdNotify } from '../shared/systemd-notify.js';
import { DataDirError } from '../store/db.js';
import {
  channelCreate,
  keyCreate,
  keyRevoke,
  makeOutput,
  projectCreate,
  projectList,
  UsageError,
} from './admin.js';
import { backupDataDir } from '../ops/backup.js';
import { opsAction } from '../ops/errors.js';
import { exportData, importData } from '../ops/transfer.js';
import { installCommitFailureGuard } from '../store/write-failure.js';
import { resolveNotifyConfig, type RawNotifyOptions } from '../config/notify.js';
import { takeSignals } from './early-signals.js';
import { ListenError, probeListenAddresses } from '../shared/listen.js';

const EXIT_USAGE = 2;
/** Start-up failed for a reason that is not a bad argument (port in use, ...). */
const EXIT_RUNTIME = 1;

/** The version of the package this file belongs to (dist/daemon/cli/program.js or daemon/cli/program.ts). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'checkd' && pkg.version) return pkg.version;
  } catch {
    // fall through
  }
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'checkd' && pkg.version) return pkg.version;
  } catch {
    // fall through
  }
  return '0.0.0';
}

function dataDirOption(): Option {
  return new Option('--data-dir <dir>', 'LMDB data directory').env('CHECKD_DATA_DIR').default(DEFAULTS.dataDir);
}

/** The settings of the service integrations (docs/notifications.md), for `serve` and `channel test`. */
function integrationOptions(cmd: Command): Command {
  return cmd
    .option('--site-name <name>', 'how checkd names itself in messages [env CHECKD_SITE_NAME, default checkd]')
    .option('--site-logo-url <url>', 'icon of chat messages that take one [env CHECKD_SITE_LOGO_URL]')
    .option('--telegram-bot-token <token>', 'bot of telegram channels [env CHECKD_TELEGRAM_BOT_TOKEN]')
    .option('--pushover-app-token <token>', 'application of po (Pushover) channels [env CHECKD_PUSHOVER_APP_TOKEN]')
    .option('--pushover-emergency-retry <s>', 'seconds between emergency repeats, 30-10800 [env CHECKD_PUSHOVER_EMERGENCY_RETRY, default 300]')
    .option('--pushover-emergency-expire <s>', 'seconds emergencies repeat, 30-10800 [env CHECKD_PUSHOVER_EMERGENCY_EXPIRE, default 10800]')
    .option('--matrix-homeserver <url>', 'homeserver of matrix channels [env CHECKD_MATRIX_HOMESERVER]')
    .option('--matrix-access-token <token>', 'access token of the Matrix account [env CHECKD_MATRIX_ACCESS_TOKEN]');
}

function adminCommand(cmd: Command): Command {
  return cmd.addOption(dataDirOption()).option('--json', 'machine output: one JSON document on stdout', false);
}

export function buildProgram(): Command {
  const program = new Command('checkd')
    .description('checkd: monitor for cron jobs, Healthchecks v3 compatible')
    .version(packageVersion())
    // Inherited by the commands added below: after a usage error, say where help is.
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const serveCommand = program
    .command('serve')
    .description('run the daemon in the foreground')
    .option('--data-dir <dir>', `LMDB data directory [env CHECKD_DATA_DIR, default ${DEFAULTS.dataDir}]`)
    .option('--listen <host:port>', `HTTP address [env CHECKD_LISTEN, default ${DEFAULTS.listen}]`)
    .option('--grpc-listen <addr>', `gRPC address or unix:/path [env CHECKD_GRPC_LISTEN, default ${DEFAULTS.grpcListen}]`)
    .option('--base-url <url>', `public URL for ping_url etc. [env CHECKD_BASE_URL, default ${DEFAULTS.baseUrl}]`)
    .option('--api-rate-limit <n>', 'API requests per minute per key, 0 = off [env CHECKD_API_RATE_LIMIT, default 100]')
    .option('--ping-body-limit <bytes>', 'bytes of a ping body stored [env CHECKD_PING_BODY_LIMIT, default 10000]')
    .option('--trust-proxy', 'take client addresses from X-Forwarded-For [env CHECKD_TRUST_PROXY]')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent [env CHECKD_LOG_LEVEL, default info]')
    .option('--badge-label <text>', `label of the project-wide (*) badge [env CHECKD_BADGE_LABEL, default ${DEFAULTS.badgeLabel}]`)
    .option('--smtp-url <url>', 'SMTP server of email channels: smtp://user:pass@host:port or smtps://... [env CHECKD_SMTP_URL]')
    .option('--smtp-from <address>', 'From: of notification emails [env CHECKD_SMTP_FROM, default checkd@HOSTNAME]')
    .option('--allow-shell', 'run the commands of shell channels [env CHECKD_ALLOW_SHELL]')
    .option(
      '--block-private-addresses',
      'notifications may not reach loopback, private or link-local addresses [env CHECKD_BLOCK_PRIVATE_ADDRESSES]',
    );
  integrationOptions(serveCommand).action(async (opts: RawServeOptions) => serve(opts));

  const project = program.command('project').description('manage projects');
  adminCommand(project.command('create').description('create a project with a read-write and a read-only key'))
    .requiredOption('--name <name>', 'project name')
    .option('--check-limit <n>', 'maximum number of checks', '20')
    .option('--ping-log-limit <n>', 'pings kept per check', '100')
    .action(async (opts) => projectCreate(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(project.command('list').description('list projects')).action(async (opts) =>
    projectList(opts.dataDir, makeOutput(opts.json)),
  );

  const key = program.command('key').description('manage API keys');
  adminCommand(key.command('create').description('create an API key'))
    .requiredOption('--project <id>', 'project id')
    .option('--read-only', 'a read-only key', false)
    .action(async (opts) => keyCreate(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(key.command('revoke').description('revoke an API key'))
    .requiredOption('--project <id>', 'project id')
    .argument('<key>', 'the key to revoke')
    .action(async (k: string, opts) => keyRevoke(opts.dataDir, { project: opts.project, key: k }, makeOutput(opts.json)));

  const channel = program.command('channel').description('manage notification channels');
  adminCommand(channel.command('create').description('create a channel'))
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--kind <kind>', 'email, webhook, shell, slack, discord, ntfy or a service (docs/notifications.md)')
    .option('--name <name>', 'name, usable in the API channels parameter')
    .option('--value <value>', 'address, URL or command, depending on the kind')
    .option('--matrix-homeserver <url>', 'matrix: the account that joins a #room:server alias [env CHECKD_MATRIX_HOMESERVER]')
    .option('--matrix-access-token <token>', "matrix: that account's access token [env CHECKD_MATRIX_ACCESS_TOKEN]")
    .action(async (opts) => channelCreate(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(channel.command('list').description("list a project's channels with their last delivery result"))
    .requiredOption('--project <id>', 'project id')
    .action(async (opts) => (await import('./channels-admin.js')).channelList(opts.dataDir, opts, makeOutput(opts.json)));
  const testCommand = adminCommand(channel.command('test').description('send a test notification through a channel; exit 1 if it fails'))
    .argument('<id>', 'channel id')
    .option('--smtp-url <url>', 'SMTP server for email channels [env CHECKD_SMTP_URL]')
    .option('--smtp-from <address>', 'From: of the email [env CHECKD_SMTP_FROM]')
    .option('--allow-shell', 'run a shell channel [env CHECKD_ALLOW_SHELL]')
    .option('--block-private-addresses', 'refuse loopback, private and link-local addresses [env CHECKD_BLOCK_PRIVATE_ADDRESSES]');
  integrationOptions(testCommand).action(async (id: string, opts) =>
    (await import('./channels-admin.js')).channelTest(opts.dataDir, { ...opts, id }, makeOutput(opts.json)),
  );

  // Operations (docs/operations.md): all three work while the daemon runs.
  adminCommand(program.command('backup').description('consistent copy of the data dir, also while the daemon runs'))
    .requiredOption('--out <dir>', 'new or empty directory for the copy; it is a data dir itself')
    .option('--compact', 'leave free pages out (slower, smaller)', false)
    .action(opsAction(async (opts) => backupDataDir(opts.dataDir, opts, makeOutput(opts.json))));
  adminCommand(program.command('export').description('projects, API key digests, channels and checks as JSON'))
    .option('--out <file>', 'write to this file (mode 0600) instead of stdout')
    .action(opsAction(async (opts) => exportData(opts.dataDir, opts, makeOutput(opts.json))));
  adminCommand(program.command('import').description('load a `checkd export` file (refuses ids that exist)'))
    .argument('<file>', 'export file, - for stdin')
    .option('--replace', 'replace projects with the same id, with all their checks', false)
    .action(opsAction(async (file: string, opts) => importData(opts.dataDir, file, opts, makeOutput(opts.json))));

  return program;
}

async function serve(raw: RawServeOptions): Promise<void> {
  // The entry (cli.ts) held the signals from its first line, so that a SIGTERM
  // during start-up also ends in a clean shutdown and exit 0.
  let signalled: NodeJS.Signals | null = null;
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => {
    signalled ??= signal;
  };
  signalled = takeSignals((signal) => onSignal(signal));

  // Everything is validated before the data dir is touched: a bad flag writes nothing.
  const config = resolveServeConfig(raw, process.env);
  config.notify = resolveNotifyConfig(raw as RawNotifyOptions, process.env);
  await checkListenHosts(config);
  await probeListenAddresses(config);
  // Logs go to stderr: stdout carries the ready line only (contract.md).
  const logger = createLogger(
    config.logLevel,
    // SonicBoom is a writable stream for pino's purposes; its typings lack a few members.
    pino.destination({ dest: 2, sync: false }) as unknown as NodeJS.WritableStream,
    { journal: writesToJournal(2) },
  );
  // Loaded here, not at the top: --help and the admin commands need none of
  // the server stack (Fastify, gRPC, ...), which is most of the start-up time.
  const { startDaemon } = await import('../daemon.js');
  const daemon = await startDaemon(config, logger);

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting at once');
      logger.flush();
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void sdNotify('STOPPING=1', logger);
    daemon.stop().then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exitCode = 0;
        setTimeout(() => process.exit(0), 50).unref();
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        logger.flush();
        setTimeout(() => process.exit(1), 50).unref();
      },
    );
  };
  onSignal = shutdown;
  if (signalled) {
    shutdown(signalled);
    return;
  }
  logger.info({ http: daemon.httpAddress, grpc: daemon.grpcAddress, dataDir: config.dataDir }, 'checkd started');
  process.stdout.write(`checkd ready http=${daemon.httpAddress} grpc=${daemon.grpcAddress}\n`);
  // Only now are both ports bound: tell systemd (Type=notify) we are ready.
  await sdNotify(`READY=1\nSTATUS=serving http=${daemon.httpAddress} grpc=${daemon.grpcAddress}`, logger);
}

function fail(message: string, code: number): never {
  process.stderr.write(`checkd: ${message}\n`);
  process.exit(code);
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its message (or the help/version text).
      // Asked-for help and --version succeed; anything else (unknown option or
      // command, missing argument, no command at all) is a usage error.
      // (Commander gives those, and `checkd help`, exit code 0; errors get 1.)
      process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE);
    }
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof DataDirError) {
      fail(err.message, EXIT_USAGE);
    }
    if (err instanceof ListenError) fail(err.message, EXIT_RUNTIME);
    const e = err as NodeJS.ErrnoException;
    fail(e.stack ?? String(err), EXIT_RUNTIME);
  }
}

// lmdb-js leaves a failed commit's internal promises unhandled: keep them from ending the process.
installCommitFailureGuard();
