// The built `checktop` refuses to start, with a message and exit code 2, when
// it has no key, cannot reach the daemon, the key is refused, or there is no
// terminal. (The running TUI is tested in tmux: e2e-tmux.test.ts.)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { freePort } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { CHECKTOP_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { assertFreshBuild } from './built.js';

async function checktop(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; ms: number }> {
  const t0 = Date.now();
  // Keys and projects come from nowhere the test does not say: not the runner's own config.
  const isolated = { CHECKTOP_CONFIG: undefined, XDG_CONFIG_HOME: undefined, HOME: '/nonexistent/checktop-test-home' };
  const proc = spawn(process.execPath, [CHECKTOP_BIN, ...args], { env: childEnv({ ...isolated, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = await once(proc, 'exit');
  return { code: code as number | null, stderr, ms: Date.now() - t0 };
}

describe('checktop start-up errors', () => {
  let d: InProcessDaemon;
  let p: TestProject;

  setupSuite(async () => {
    assertFreshBuild();
    d = await startInProcess();
    p = await d.createProject({ name: 'cli' });
  });

  it('no key: exit 2', async () => {
    const home = tempDir('checktop-home-');
    const r = await checktop(['--grpc', d.daemon.grpcAddress], { HOME: home });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `checktop: an API key is required: CHECKD_API_KEY, --key-file FILE, projects in ${home}/.config/checkd/checktop.json, or --api-key KEY\n`,
    );
  });

  it('several projects from the config file and a key file: each daemon asked; a refused key names where it came from', async () => {
    const other = await d.createProject({ name: 'cli-2' });
    const home = tempDir('checktop-home-');
    mkdirSync(join(home, '.config/checkd'), { recursive: true });
    const keyFile = join(home, 'keys');
    writeFileSync(keyFile, `${other.apiKey}\n`, { mode: 0o600 });
    writeFileSync(
      join(home, '.config/checkd/checktop.json'),
      JSON.stringify({ grpc: d.daemon.grpcAddress, projects: [{ key_env: 'PROD_KEY' }] }),
    );
    // Both keys good: on to the terminal check.
    const ok = await checktop(['--key-file', keyFile], { HOME: home, PROD_KEY: p.apiKey, CHECKD_GRPC: d.daemon.grpcAddress });
    expect(ok.stderr).toBe('checktop: needs a terminal; over SSH use `ssh -t`\n');
    // One refused: exit 2, saying which.
    const wrong = 'hcw_' + 'y'.repeat(28);
    writeFileSync(keyFile, `${wrong}\n`, { mode: 0o600 });
    const refused = await checktop(['--key-file', keyFile], { HOME: home, PROD_KEY: p.apiKey, CHECKD_GRPC: d.daemon.grpcAddress });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`checktop: checkd at ${d.daemon.grpcAddress} refused the API key (from ${keyFile}) (UNAUTHENTICATED: wrong api key)\n`);
    // A key file others can read is refused before anything is asked.
    writeFileSync(keyFile, `${other.apiKey}\n`);
    chmodSync(keyFile, 0o644);
    const open = await checktop(['--key-file', keyFile], { HOME: home, PROD_KEY: p.apiKey });
    expect(open.code).toBe(2);
    expect(open.stderr).toBe(`checktop: key file ${keyFile} holds API keys and others can read it: chmod 600 ${keyFile}\n`);
  });

  it('nothing listening: exit 2 with the reason, without waiting out the 3 s deadline', async () => {
    const port = await freePort();
    const r = await checktop(['--grpc', `127.0.0.1:${port}`], { CHECKD_API_KEY: p.apiKey });
    expect(r.code).toBe(2);
    // Node's own start-up is most of this; a refused connection fails at once.
    expect(r.ms).toBeLessThan(3000);
    expect(r.stderr).toMatch(new RegExp(`^checktop: cannot connect to checkd at 127\\.0\\.0\\.1:${port}: UNAVAILABLE`));
  });

  it('a refused key: exit 2', async () => {
    const r = await checktop(['--grpc', d.daemon.grpcAddress, '--api-key', 'hcw_' + 'x'.repeat(28)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^checktop: checkd at .* refused the API key \(UNAUTHENTICATED: wrong api key\)\n$/);
  });

  it('address and key fine but no terminal: exit 2, pointing at ssh -t', async () => {
    const r = await checktop([], { CHECKD_GRPC: d.daemon.grpcAddress, CHECKD_API_KEY: p.apiKey });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('checktop: needs a terminal; over SSH use `ssh -t`\n');
  });

  it('--help exits 0', async () => {
    const r = await checktop(['--help']);
    expect(r.code).toBe(0);
  });
});
