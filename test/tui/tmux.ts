// A real terminal for end-to-end tests (not a test file): a tmux server of
// the test's own, one session whose pane runs a command at a given size, its
// screen read back with capture-pane (with or without the attributes), keys
// sent with send-keys.
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export function assertTmux(): void {
  if (spawnSync('tmux', ['-V']).error) throw new Error('tmux is not installed: apt-get install -y tmux (.ci/run does)');
}

/** A shell word for `sh -c`. */
export const shellQuote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

export class Tmux {
  private socketPath = '';

  constructor(
    private readonly socket: string,
    private readonly session = 'checktop',
  ) {}

  private run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Starts `argv` in a pane of `columns` x `rows`; the pane stays after an exit, so a crash leaves its message to read. */
  start(argv: string[], columns: number, rows: number): void {
    this.run('new-session', '-d', '-x', String(columns), '-y', String(rows), '-s', this.session, argv.map(shellQuote).join(' '));
    this.run('set-option', '-t', this.session, 'remain-on-exit', 'on');
    this.socketPath = this.run('display-message', '-p', '#{socket_path}').trim();
  }

  /** The screen as text. */
  screen(): string {
    return this.run('capture-pane', '-p', '-t', this.session);
  }

  /** The screen with its attributes and colours as escape sequences. */
  screenWithAttributes(): string {
    return this.run('capture-pane', '-p', '-e', '-t', this.session);
  }

  /** Keys as tmux names them ("Enter", "Escape", "j", "]"); -l sends text literally. */
  keys(...keys: string[]): void {
    this.run('send-keys', '-t', this.session, ...keys);
  }

  text(text: string): void {
    this.run('send-keys', '-t', this.session, '-l', text);
  }

  /** Polls the screen until `re` matches; the error shows the last screen. */
  async waitFor(re: RegExp, what: string, timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = this.screen();
      if (re.test(last)) return last;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; screen:\n${last}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kill(): void {
    try {
      this.run('kill-server');
    } catch {
      // already gone
    }
    // tmux leaves its socket file behind.
    if (this.socketPath) rmSync(this.socketPath, { force: true });
  }
}
