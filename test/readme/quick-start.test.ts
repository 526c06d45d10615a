// The README as a newcomer meets it: a fresh clone, its first command
// (`npm install && npm start`), then the quick start's shell block, run as
// written by bash. The second command (`npm ci && npm test`) is what .ci/run
// runs on a clean clone, so it is not repeated here.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../helpers/http.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The body of the first ```sh block after `marker`. */
function shBlockAfter(marker: string): string {
  const at = README.indexOf(marker);
  expect(at, `README has "${marker}"`).toBeGreaterThanOrEqual(0);
  const m = /```sh\n([\s\S]*?)```/.exec(README.slice(at));
  expect(m, `a sh block after "${marker}"`).not.toBeNull();
  return m![1]!;
}

describe('the README on a fresh clone', () => {
  it('installs and starts with its first command; the quick start runs as written', async () => {
    const start = shBlockAfter('Start the daemon on a fresh machine').trim();
    expect(start).toBe('npm install && npm start');
    const quick = shBlockAfter('## Quick start');

    const clone = join(tempDir('checkd-readme-', { cleanupTimeoutMs: 120_000 }), 'checkd');
    execFileSync('git', ['clone', '-q', REPO_ROOT, clone]);

    // The README's address, moved to a free port so the test cannot collide with anything.
    const port = await freePort();
    const daemon = spawn('bash', ['-c', start], {
      cwd: clone,
      detached: true,
      env: { ...process.env, CHECKD_LISTEN: `127.0.0.1:${port}`, CHECKD_GRPC_LISTEN: '127.0.0.1:0', CHECKD_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      try {
        process.kill(-daemon.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    });
    let stderr = '';
    daemon.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ready = await new Promise<string>((resolve, reject) => {
      createInterface({ input: daemon.stdout }).on('line', (line) => {
        if (line.startsWith('checkd ready ')) resolve(line);
      });
      daemon.on('exit', (code) => reject(new Error(`npm install && npm start exited with ${code}: ${stderr.slice(-2000)}`)));
    });
    expect(ready).toMatch(new RegExp(`^checkd ready http=127\\.0\\.0\\.1:${port} grpc=127\\.0\\.0\\.1:\\d+$`));

    const script = quick.replaceAll('127.0.0.1:8000', `127.0.0.1:${port}`);
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: clone, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, `quick start failed:\n${run.stderr}`).toBe(0);
    // The last API read before `checkd run` shows the pinged check up; checkd run's job printed its line.
    expect(run.stdout).toMatch(/"status":"up"/);
    expect(run.stdout).toContain('backing up\n');

    // The commands are on PATH the way the quick start puts them there, and npx finds them at once.
    const bin = join(clone, 'node_modules/.bin');
    for (const command of ['checkd', 'checktop']) {
      const help = spawnSync(command, ['--help'], { cwd: clone, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
      expect(help.status, `${command} --help`).toBe(0);
      expect(help.stdout).toContain(`Usage: ${command}`);
    }
    const started = performance.now();
    const npx = spawnSync('npx', ['--no-install', 'checkd', '--help'], { cwd: clone, encoding: 'utf8' });
    const npxMs = performance.now() - started;
    expect(npx.status).toBe(0);
    console.log(`first npx --no-install checkd --help in a fresh clone: ${npxMs.toFixed(0)} ms`);
  }, 600_000);
});
