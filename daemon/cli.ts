#!/usr/bin/env node
// `checkd`: the daemon (`serve`) and its admin commands (contract.md).
// Bad arguments: a message on stderr and exit code 2, nothing written.
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, DEFAULTS, resolveServeConfig, type RawServeOptions } from './config.js';
import { createLogger } from './log.js';
import { startDaemon } from './daemon.js';
import { DataDirError } from './store/db.js';
import {
  channelCreate,
  keyCreate,
  keyRevoke,
  makeOutput,
  projectCreate,
  projectList,
  UsageError,
} from './admin.js';

const EXIT_USAGE = 2;

function dataDirOption(): Option {
  return new Option('--data-dir <dir>', 'LMDB data directory').env('CHECKD_DATA_DIR').default(DEFAULTS.dataDir);
}

function adminCommand(cmd: Command): Command {
  return cmd.addOption(dataDirOption()).option('--json', 'machine output: one JSON document on stdout', false);
}

export function buildProgram(): Command {
  const program = new Command('checkd')
    .description('checkd: monitor for cron jobs, Healthchecks v3 compatible')
    .version(process.env.npm_package_version ?? '0.1.0')
    .showHelpAfterError(false)
    .exitOverride();

  program
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
    .action(async (opts: RawServeOptions) => serve(opts));

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

  return program;
}

async function serve(raw: RawServeOptions): Promise<void> {
  const config = resolveServeConfig(raw, process.env);
  const logger = createLogger(config.logLevel);
  const daemon = await startDaemon(config, logger);
  logger.info({ http: daemon.httpAddress, grpc: daemon.grpcAddress, dataDir: config.dataDir }, 'checkd started');
  process.stdout.write(`checkd ready http=${daemon.httpAddress} grpc=${daemon.grpcAddress}\n`);
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal, exiting at once');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
    daemon.stop().then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exitCode = 0;
        setTimeout(() => process.exit(0), 50).unref();
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its message (or the help/version text).
      const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
      process.exit(ok ? 0 : EXIT_USAGE);
    }
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof DataDirError) {
      process.stderr.write(`checkd: ${err.message}\n`);
      process.exit(EXIT_USAGE);
    }
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      process.stderr.write(`checkd: cannot listen: ${e.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`checkd: ${e.stack ?? String(err)}\n`);
    process.exit(1);
  }
}

await main(process.argv);
