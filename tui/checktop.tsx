// `checktop`: a live terminal view of one checkd project, over gRPC only.
// Start-up problems (no key, no terminal, daemon unreachable, key refused) are
// a message on stderr and exit code 2; once running, link trouble is shown in
// the header and repaired by reconnecting. Loaded by cli.ts once the
// environment is settled.
import { Command, CommanderError, Option } from 'commander';
import { render } from 'ink';
import { App } from './app.js';
import { describeGrpcError, grpc, grpcCode } from './rpc.js';
import { WatchClient } from './watch-client.js';

const EXIT_USAGE = 2;
export const DEFAULT_GRPC = '127.0.0.1:50051';
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
}

function parseArgs(argv: string[]): Options {
  const program = new Command('checktop')
    .description('live terminal view of a checkd project (a gRPC client of the daemon)')
    .version(process.env.npm_package_version ?? '0.1.0')
    .addOption(
      new Option('--grpc <addr>', 'daemon gRPC address: host:port or unix:/path.sock').env('CHECKD_GRPC').default(DEFAULT_GRPC),
    )
    .addOption(new Option('--api-key <key>', 'project API key; prefer the env var, argv is visible in ps').env('CHECKD_API_KEY'))
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

async function main(): Promise<void> {
  const opts = parseArgs(process.argv);
  const address = opts.grpc.trim();
  const apiKey = opts.apiKey?.trim();
  if (!address || address === 'unix:') fail('--grpc: expected host:port or unix:/path.sock');
  if (!apiKey) fail('an API key is required: --api-key KEY or CHECKD_API_KEY');

  const client = new WatchClient({ address, apiKey, connectTimeoutMs: CONNECT_TIMEOUT_MS });
  try {
    await client.probe();
  } catch (err) {
    client.stop();
    if (grpcCode(err) === grpc.status.UNAUTHENTICATED) fail(`checkd at ${address} refused the API key (${describeGrpcError(err)})`);
    fail(`cannot connect to checkd at ${address}: ${describeGrpcError(err)}`);
  }
  // Checked after the connection, so a script can still test address and key.
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    client.stop();
    fail('needs a terminal; over SSH use `ssh -t`');
  }

  process.stdout.write(ENTER_ALT_SCREEN);
  // Whatever way the process ends, the user gets their screen back.
  process.on('exit', () => process.stdout.write(LEAVE_ALT_SCREEN));
  // Not Ink's incrementalRendering: in 6.8 it moves the cursor up one line too
  // few when the frame ends in a newline, and the screen creeps down (seen in tmux).
  const instance = render(<App backend={client} />, { exitOnCtrlC: true });
  // A closed SSH session (SIGHUP) or a kill ends the app the same way `q` does.
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => instance.unmount());
  await instance.waitUntilExit();
  client.stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`checktop: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
