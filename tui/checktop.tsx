// `checktop`: a live terminal view of checkd projects, over gRPC only.
// Start-up problems (no key, no terminal, daemon unreachable, key refused) are
// a message on stderr and exit code 2; once running, link trouble is shown in
// the header and repaired by reconnecting. Loaded by cli.ts once the
// environment is settled.
import { Command, CommanderError, Option } from 'commander';
import { render } from 'ink';
import { App } from './app.js';
import { ConfigError, DEFAULT_GRPC, defaultConfigPath, resolveProjects, type KeySources, type ProjectSource } from './config.js';
import { describeGrpcError, grpc, grpcCode } from './rpc.js';
import { WatchClient } from './watch-client.js';

const EXIT_USAGE = 2;
/** How long the start-up GetProject may take before "cannot connect". */
const CONNECT_TIMEOUT_MS = 3000;

// The alternate screen, as htop and less use it: the shell's scrollback is
// left as it was when checktop exits.
const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';

function fail(message: string): never {
  process.stderr.write(`checktop: ${message}\n`);
  process.exit(EXIT_USAGE);
}

interface Options {
  grpc: string;
  apiKey?: string;
  keyFile?: string;
  config?: string;
}

function parseArgs(argv: string[]): Options {
  const program = new Command('checktop')
    .description('live terminal view of checkd projects (a gRPC client of the daemon)')
    .version(process.env.npm_package_version ?? '0.1.0')
    .addOption(
      new Option('--grpc <addr>', 'daemon gRPC address: host:port or unix:/path.sock').env('CHECKD_GRPC').default(DEFAULT_GRPC),
    )
    .addOption(new Option('--api-key <key>', 'a project API key; prefer the env var, argv is visible in ps').env('CHECKD_API_KEY'))
    .addOption(new Option('--key-file <file>', 'API keys, one per line, a project each (chmod 600)').env('CHECKD_API_KEY_FILE'))
    .addOption(new Option('--config <file>', `projects to watch (default ${defaultConfigPath(process.env)})`).env('CHECKTOP_CONFIG'))
    .exitOverride();
  try {
    program.parse(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
      process.exit(ok ? 0 : EXIT_USAGE);
    }
    throw err;
  }
  return program.opts<Options>();
}

/**
 * Keys typed while checktop starts are kept for it as typed: in raw mode the
 * terminal neither echoes them onto the shell's screen nor edits them as a
 * line (a Backspace or Ctrl-U would be eaten there), and they wait unread
 * until the app reads them (and then until its table is loaded: useKeyQueue).
 */
function keepKeysTypedAhead(): void {
  if (!process.stdin.isTTY) return;
  process.stdin.setRawMode(true);
  process.once('exit', () => {
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
  });
}

/** Every project's daemon asked at once; exits on a refused key, or when none can be reached. */
async function probeAll(projects: ProjectSource[], clients: WatchClient[]): Promise<void> {
  const results = await Promise.allSettled(clients.map((c) => c.probe()));
  const refused = results.findIndex((r) => r.status === 'rejected' && grpcCode(r.reason) === grpc.status.UNAUTHENTICATED);
  const failed = (i: number) => (results[i] as PromiseRejectedResult).reason as unknown;
  if (refused >= 0) {
    for (const c of clients) c.stop();
    const p = projects[refused]!;
    const which = projects.length > 1 ? ` (from ${p.from})` : '';
    fail(`checkd at ${p.address} refused the API key${which} (${describeGrpcError(failed(refused))})`);
  }
  // A project whose daemon is down right now shows as reconnecting; with none reachable there is nothing to show.
  if (results.every((r) => r.status === 'rejected')) {
    for (const c of clients) c.stop();
    fail(`cannot connect to checkd at ${projects[0]!.address}: ${describeGrpcError(failed(0))}`);
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv);
  const address = opts.grpc.trim();
  if (!address || address === 'unix:') fail('--grpc: expected host:port or unix:/path.sock');
  const sources: KeySources = { grpc: address, apiKey: opts.apiKey, keyFile: opts.keyFile, config: opts.config };
  let projects: ProjectSource[];
  try {
    projects = resolveProjects(sources, process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  if (projects.length === 0) {
    fail(`an API key is required: CHECKD_API_KEY, --key-file FILE, projects in ${defaultConfigPath(process.env)}, or --api-key KEY`);
  }
  keepKeysTypedAhead();

  const clients = projects.map((p) => new WatchClient({ address: p.address, apiKey: p.apiKey, connectTimeoutMs: CONNECT_TIMEOUT_MS }));
  await probeAll(projects, clients);
  // Checked after the connection, so a script can still test address and key.
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    for (const c of clients) c.stop();
    fail('needs a terminal; over SSH use `ssh -t`');
  }

  process.stdout.write(ENTER_ALT_SCREEN);
  // Whatever way the process ends, the user gets their screen back.
  process.on('exit', () => process.stdout.write(LEAVE_ALT_SCREEN));
  // Not Ink's incrementalRendering: in 6.8 it moves the cursor up one line too
  // few when the frame ends in a newline, and the screen creeps down (seen in tmux).
  const instance = render(<App backends={clients} />, { exitOnCtrlC: true });
  // A closed SSH session (SIGHUP) or a kill ends the app the same way `q` does.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => instance.unmount());
  await instance.waitUntilExit();
  for (const c of clients) c.stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`checktop: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
