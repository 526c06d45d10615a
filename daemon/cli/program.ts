// `checkd`: the daemon (`serve`) and its admin commands (contract.md), loaded
// by the entry cli.ts. Bad arguments: a message on stderr and exit code 2,
// nothing written.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { pino } from 'pino';
import { checkListenHosts, resolveServeConfig, type RawServeOptions } from '../config/serve.js';
import { NOTIFY_SETTINGS, SERVE_SETTINGS, SETTINGS, settingHelp, shownDefault, type Setting } from '../config/settings.js';
import { ConfigError } from '../config/values.js';
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
import { resolveNotifyConfig } from '../config/notify.js';
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

/** `--flag <arg>` of a row of the settings table (settings.ts), or `--flag` for a switch. */
function flagOf(setting: Setting<unknown>): string {
  return setting.arg === null ? setting.flag! : `${setting.flag} <${setting.arg}>`;
}

/**
 * The options of the rows that have a flag. Resolution (settings.ts) takes the
 * env var and the default itself, so that an error can name its source: the
 * help text states both.
 */
function settingOptions(rows: ReadonlyArray<Setting<unknown>>): Option[] {
  return rows.filter((s) => s.flag !== null).map((s) => new Option(flagOf(s), settingHelp(s)));
}

/** Settings without a flag, listed after the options of `serve --help`. */
function envOnlyHelp(): string {
  const rows = SETTINGS.filter((s) => s.flag === null);
  const width = Math.max(...rows.map((s) => s.env.length));
  return ['', 'Environment only:', ...rows.map((s) => `  ${s.env.padEnd(width)}  ${s.help} [default ${shownDefault(s)}]`)].join('\n');
}

function dataDirOption(): Option {
  const dataDir = SERVE_SETTINGS.dataDir;
  return new Option(flagOf(dataDir), dataDir.help).env(dataDir.env).default(dataDir.default);
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

  const serveCommand = program.command('serve').description('run the daemon in the foreground');
  for (const option of settingOptions(SETTINGS)) serveCommand.addOption(option);
  serveCommand.addHelpText('after', envOnlyHelp()).action(async (opts: RawServeOptions) => serve(opts));

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
    .requiredOption('--kind <kind>', 'email, webhook, shell, slack, discord or ntfy')
    .option('--name <name>', 'name, usable in the API channels parameter')
    .option('--value <value>', 'address, URL or command, depending on the kind')
    .action(async (opts) => channelCreate(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(channel.command('list').description("list a project's channels with their last delivery result"))
    .requiredOption('--project <id>', 'project id')
    .action(async (opts) => (await import('./channels-admin.js')).channelList(opts.dataDir, opts, makeOutput(opts.json)));
  const channelTest = adminCommand(channel.command('test').description('send a test notification through a channel; exit 1 if it fails'))
    .argument('<id>', 'channel id');
  // The notifier's flags, as `serve` takes them.
  for (const option of settingOptions(Object.values(NOTIFY_SETTINGS))) channelTest.addOption(option);
  channelTest.action(async (id: string, opts) =>
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
  config.notify = resolveNotifyConfig(raw, process.env);
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
