// The built `checktop` refuses to start, with a message and exit code 2, when
// it has no key, cannot reach the daemon, the key is refused, or there is no
// terminal. (The running TUI is tested in tmux: e2e-tmux.test.ts.)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { freePort } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { CHECKTOP_BIN } from '../helpers/paths.js';
import { assertFreshBuild } from './built.js';

async function checktop(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; ms: number }> {
  const t0 = Date.now();
  const proc = spawn(process.execPath, [CHECKTOP_BIN, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
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
    const r = await checktop(['--grpc', d.daemon.grpcAddress]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('checktop: an API key is required: --api-key KEY or CHECKD_API_KEY\n');
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
