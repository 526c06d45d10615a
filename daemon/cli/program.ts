// `checkd`: the daemon (`serve`) and its admin commands (contract.md), loaded
// by the entry cli.ts. Bad arguments: a message on stderr and exit code 2,
// nothing written.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { pino } from 'pino';
import { checkListenHosts, resolveServeConfig, type RawServeOptions } from '../config/serve.js';
import { DELIVERY_SETTINGS, INTEGRATION_SETTINGS, SERVE_SETTINGS, SETTINGS, settingHelp, shownDefault, type Setting } from '../config/settings.js';
import { ConfigError } from '../config/values.js';
import { createLogger, writesToJournal } from '../shared/log.js';
import { sdNotify } from '../shared/systemd-notify.js';
import { DataDirError } from '../store/db.js';
import {
  keyCreate,
  keyRevoke,
  makeOutput,
  openCreating,
  projectCreate,
  projectList,
  UsageError,
} from './admin.js';
import { backupDataDir } from '../ops/backup.js';
import { opsAction } from '../ops/errors.js';
import { exportData } from '../ops/transfer.js';
import { importCommand } from '../ops/import-command.js';
import { installCommitFailureGuard, StorageAlarmError } from '../store/write-failure.js';
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
  return cmd
    .addOption(dataDirOption())
    .option('--json', 'machine output: one JSON document on stdout', false)
    .option('--init', 'create the data dir if it holds no checkd data yet (said on stderr)', false)
    .hook('preAction', async (_cmd, action) => {
      const { init, dataDir } = action.opts<{ init?: boolean; dataDir: string }>();
      if (init) await (await openCreating(dataDir)).close();
    });
}

export function buildProgram(): Command {
  const program = new Command('checkd')
    .description('checkd: monitor for cron jobs, Healthchecks v3 compatible')
    .version(packageVersion())
    // Inherited by the commands added below: after a usage error, say where help is.
    .showHelpAfterError('(run with --help for usage)')
    // `checkd run ... -- COMMAND --flag`: the command's own options are not ours.
    .enablePositionalOptions()
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

  adminCommand(project.command('update').description("change a project's name or limits"))
    .argument('<id>', 'project id')
    .option('--name <name>', 'new name')
    .option('--check-limit <n>', 'how many checks it may have')
    .option('--ping-log-limit <n>', 'how many pings each check keeps')
    .action(async (id: string, opts) => (await import('./manage.js')).projectUpdate(opts.dataDir, id, opts, makeOutput(opts.json)));
  adminCommand(project.command('delete').description('delete a project with its checks, pings, flips, keys and channels'))
    .argument('<id>', 'project id')
    .option('--yes', 'really delete it', false)
    .action(async (id: string, opts) => (await import('./manage.js')).projectDelete(opts.dataDir, id, opts, makeOutput(opts.json)));

  const key = program.command('key').description('manage API keys');
  adminCommand(key.command('create').description('create an API key'))
    .requiredOption('--project <id>', 'project id')
    .option('--read-only', 'a read-only key', false)
    .action(async (opts) => keyCreate(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(key.command('list').description("list a project's keys (their first 8 characters)"))
    .requiredOption('--project <id>', 'project id')
    .action(async (opts) => (await import('./manage.js')).keyList(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(key.command('revoke').description('revoke an API key'))
    .requiredOption('--project <id>', 'project id')
    .argument('<key>', 'the key to revoke')
    .action(async (k: string, opts) => keyRevoke(opts.dataDir, { project: opts.project, key: k }, makeOutput(opts.json)));

  const channel = program.command('channel').description('manage notification channels');
  const channelCreate = adminCommand(channel.command('create').description('create a channel'))
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--kind <kind>', 'email, webhook, shell, slack, discord, ntfy or a service (docs/notifications.md)')
    .option('--name <name>', 'name, usable in the API channels parameter')
    .option('--value <value>', 'address, URL or command, depending on the kind')
    .option('--repeat-every <dur>', 'remind every DUR while a check stays down: 5m to 7d (300, 1h, 1d)')
    .action(async (opts) => (await import('./channels-admin.js')).channelCreate(opts.dataDir, opts, makeOutput(opts.json)));
  // A matrix channel made from a #room:server alias: the account that joins the room.
  for (const option of settingOptions([INTEGRATION_SETTINGS.matrixHomeserver, INTEGRATION_SETTINGS.matrixAccessToken])) channelCreate.addOption(option);
  adminCommand(channel.command('list').description("list a project's channels with their last delivery result"))
    .requiredOption('--project <id>', 'project id')
    .action(async (opts) => (await import('./channels-admin.js')).channelList(opts.dataDir, opts, makeOutput(opts.json)));
  const channelTest = adminCommand(channel.command('test').description('send a test notification through a channel; exit 1 if it fails'))
    .argument('<id>', 'channel id');
  // The notifier's and the integrations' flags, as `serve` takes them.
  for (const option of settingOptions(DELIVERY_SETTINGS)) channelTest.addOption(option);
  channelTest.action(async (id: string, opts) =>
    (await import('./channels-admin.js')).channelTest(opts.dataDir, { ...opts, id }, makeOutput(opts.json)),
  );

  adminCommand(channel.command('update').description("change a channel's name, value or reminders"))
    .argument('<id>', 'channel id')
    .option('--name <name>', 'new name')
    .option('--value <value>', 'new address, URL or command (checked as on create)')
    .option('--repeat-every <dur>', 'remind every DUR while a check stays down: 5m to 7d, 0 for off')
    .action(async (id: string, opts) => (await import('./manage.js')).channelUpdate(opts.dataDir, id, opts, makeOutput(opts.json)));
  adminCommand(channel.command('delete').description('delete a channel; checks lose it'))
    .argument('<id>', 'channel id')
    .action(async (id: string, opts) => (await import('./manage.js')).channelDelete(opts.dataDir, id, makeOutput(opts.json)));

  // Maintenance windows (alert-policies §4.2): checks they cover are muted while one is open.
  const maintenance = program.command('maintenance').description("manage a project's maintenance windows");
  adminCommand(maintenance.command('add').description('add a one-off (--start, --end) or recurring (--schedule, --duration) window'))
    .requiredOption('--project <id>', 'project id')
    .option('--name <name>', 'what the window is for')
    .option('--tags <tags>', 'space-separated: checks with any of them are covered (default: every check)')
    .option('--start <iso>', 'one-off: when it opens, ISO 8601 with an offset (2024-05-01T22:00:00+02:00)')
    .option('--end <iso>', 'one-off: when it closes')
    .option('--schedule <expr>', 'recurring: cron or OnCalendar expression of each opening')
    .option('--tz <zone>', 'recurring: time zone of the schedule (default UTC)')
    .option('--duration <dur>', 'recurring: how long each opening lasts: seconds, or 30m, 2h, 1d')
    .action(async (opts) => (await import('./policies-admin.js')).maintenanceAdd(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(maintenance.command('list').description("list a project's maintenance windows"))
    .requiredOption('--project <id>', 'project id')
    .action(async (opts) => (await import('./policies-admin.js')).maintenanceList(opts.dataDir, opts, makeOutput(opts.json)));
  adminCommand(maintenance.command('remove').description('remove a maintenance window'))
    .argument('<id>', 'window id')
    .action(async (id: string, opts) => (await import('./policies-admin.js')).maintenanceRemove(opts.dataDir, id, makeOutput(opts.json)));

  // Operations (docs/operations.md): all three work while the daemon runs.
  adminCommand(program.command('backup').description('consistent copy of the data dir, also while the daemon runs'))
    .requiredOption('--out <dir>', 'new or empty directory for the copy; it is a data dir itself')
    .option('--compact', 'leave free pages out (slower, smaller)', false)
    .action(opsAction(async (opts) => backupDataDir(opts.dataDir, opts, makeOutput(opts.json))));
  adminCommand(program.command('export').description('projects, API key digests, channels and checks as JSON'))
    .option('--out <file>', 'write to this file (mode 0600) instead of stdout')
    .action(opsAction(async (opts) => exportData(opts.dataDir, opts, makeOutput(opts.json))));
  adminCommand(program.command('import').description('load a `checkd export` file (refuses ids that exist), or a project from Healthchecks'))
    .argument('[file]', 'export file, - for stdin')
    .option('--replace', 'replace projects with the same id, with all their checks', false)
    .option('--from-healthchecks <url>', 'read a project from this Healthchecks (or checkd) site through its v3 API instead of a file')
    .option('--api-key <key>', 'with --from-healthchecks: a read-write API key of the project')
    .option('--project <id>', 'with --from-healthchecks: import into this project')
    .option('--name <name>', 'with --from-healthchecks: import into the project of this name, created if missing')
    .option('--ping-key <key>', "with --from-healthchecks: the project's ping key there, so that slug ping URLs keep working")
    .option('--ping-bodies', 'with --from-healthchecks: also read the body of each logged ping (a request each)', false)
    .action(opsAction(async (file: string | undefined, opts) => importCommand(opts.dataDir, file, opts, makeOutput(opts.json))));

  const cron = program.command('cron').description('find the jobs in crontabs and watch them');
  adminCommand(cron.command('scan').description('list the jobs of crontabs (system, cron.d and yours, or FILEs) with a check for each'))
    .argument('[file...]', 'crontab files (default: /etc/crontab, /etc/cron.d/*, crontab -l)')
    .option('--project <id>', 'the project whose checks watch the jobs')
    .option('--create', 'create a check for each job (needs --project)', false)
    .option('--print-crontab', 'print the crontabs with each job wrapped by checkd run (edits nothing)', false)
    .option('--system', 'read FILEs as system crontabs (a user field before the command)', false)
    .addOption(new Option('--url <base>', 'ping base for the printed checkd run lines').env('CHECKD_URL'))
    .action(async (files: string[], opts) =>
      (await import('./cron-scan.js')).cronScan(opts.dataDir, { files, ...opts }, makeOutput(opts.json)),
    );

  program
    .command('sendmail')
    .description("a sendmail stand-in without an MTA: hand the message on stdin (cron's mail) to checkd's SMTP listener")
    .usage('[--smtp HOST:PORT] [-t] [-f SENDER] [other sendmail flags, ignored] [RECIPIENT...]')
    // sendmail's own flags (-i, -oi, -FCronDaemon, -B8BITMIME, ...) are read by sendmail.ts.
    .allowUnknownOption()
    .allowExcessArguments()
    .option('--smtp <host:port>', "the daemon's --smtp-listen address [env CHECKD_SMTP_LISTEN]")
    .argument('[args...]', 'sendmail flags and recipients')
    .action(async (args: string[], opts: { smtp?: string }) => {
      const mail = await import('./sendmail.js');
      const parsed = mail.parseSendmailArgs(args);
      const target = mail.smtpTarget(opts.smtp, process.env);
      let result;
      try {
        result = await mail.sendmail(parsed, target, process.stdin);
      } catch (err) {
        if (err instanceof UsageError) throw err;
        fail(`sendmail: ${(err as Error).message}`, EXIT_RUNTIME);
      }
      for (const r of result.rejected) process.stderr.write(`checkd: sendmail: ${r.recipient}: ${r.response}\n`);
      if (result.rejected.length > 0) process.exitCode = EXIT_RUNTIME;
    });

  program
    .command('run')
    .description('run a job under the monitor: ping /start, pass its output through, ping /<exit status>')
    .usage('(--uuid UUID | --slug SLUG --ping-key KEY) [--url BASE] -- COMMAND [ARG...]')
    .option('--uuid <uuid>', 'the check, by UUID')
    .option('--slug <slug>', 'the check, by slug (with --ping-key)')
    .addOption(new Option('--ping-key <key>', "the project's ping key, for --slug").env('CHECKD_PING_KEY'))
    .addOption(new Option('--url <base>', 'where checkd answers pings').env('CHECKD_URL').default('http://127.0.0.1:8000'))
    .argument('<command...>', 'the command and its arguments')
    .passThroughOptions()
    .action(async (command: string[], opts: { uuid?: string; slug?: string; pingKey?: string; url: string }) => {
      const { runJob, checkRunTarget } = await import('./run.js');
      const target = checkRunTarget(opts);
      if (typeof target === 'string') throw new UsageError(target);
      const status = await runJob({ target, command: command[0]!, args: command.slice(1) });
      await new Promise((resolve) => process.stdout.write('', resolve));
      process.exit(status);
    });

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
  logger.info({ http: daemon.httpAddress, grpc: daemon.grpcAddress, smtp: daemon.smtpAddress ?? undefined, dataDir: config.dataDir }, 'checkd started');
  const listeners = `http=${daemon.httpAddress} grpc=${daemon.grpcAddress}${daemon.smtpAddress ? ` smtp=${daemon.smtpAddress}` : ''}`;
  process.stdout.write(`checkd ready ${listeners}\n`);
  // Only now are all ports bound: tell systemd (Type=notify) we are ready.
  await sdNotify(`READY=1\nSTATUS=serving ${listeners}`, logger);
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
    if (err instanceof StorageAlarmError) fail(err.refusal, EXIT_RUNTIME);
    const e = err as NodeJS.ErrnoException;
    fail(e.stack ?? String(err), EXIT_RUNTIME);
  }
}

// lmdb-js leaves a failed commit's internal promises unhandled: keep them from ending the process.
installCommitFailureGuard();
