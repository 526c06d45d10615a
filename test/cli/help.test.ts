// `checkd --help`, `--version` and usage errors of the built CLI, and the
// contract's entry point `npx --no-install checkd --help` from the repo root.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, runCli } from '../helpers/child.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

describe('checkd --help', () => {
  it('exits 0 and lists the commands', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: checkd /);
    for (const cmd of ['serve', 'project', 'key', 'channel']) expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
  });

  it('`checkd help` and -h also exit 0', async () => {
    for (const args of [['help'], ['-h']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: checkd /);
    }
  });

  it('serve --help names every flag of the contract with its env var', async () => {
    const r = await runCli(['serve', '--help']);
    expect(r.code).toBe(0);
    const flags: Array<[string, string]> = [
      ['--data-dir', 'CHECKD_DATA_DIR'],
      ['--listen', 'CHECKD_LISTEN'],
      ['--grpc-listen', 'CHECKD_GRPC_LISTEN'],
      ['--base-url', 'CHECKD_BASE_URL'],
      ['--api-rate-limit', 'CHECKD_API_RATE_LIMIT'],
      ['--ping-body-limit', 'CHECKD_PING_BODY_LIMIT'],
      ['--trust-proxy', 'CHECKD_TRUST_PROXY'],
    ];
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const [flag, env] of flags) {
      expect(text).toContain(flag);
      expect(text).toContain(env);
    }
  });

  it('every admin command has help that exits 0', async () => {
    for (const args of [
      ['project', 'create'],
      ['project', 'list'],
      ['key', 'create'],
      ['key', 'revoke'],
      ['channel', 'create'],
    ]) {
      const r = await runCli([...args, '--help']);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain(`Usage: checkd ${args.join(' ')}`);
      expect(r.stdout).toContain('--data-dir');
      expect(r.stdout).toContain('--json');
    }
  });

  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('no command, an unknown command or a group without its subcommand: exit 2, usage on stderr', async () => {
    for (const args of [[], ['frobnicate'], ['project'], ['key', 'delete']]) {
      const r = await runCli(args);
      expect(r.code, `checkd ${args.join(' ')}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/Usage: checkd|unknown command|error:/);
    }
  });
});

describe('npx --no-install checkd --help (contract entry point)', () => {
  it('runs the package bin from the repository root', async () => {
    expect(pkg.bin.checkd).toBe('dist/daemon/cli.js');
    // A private npm cache, so that the result does not depend on the npx cache
    // of the machine. npm links the root package into that cache to run its
    // own bin; it would run the `prepare` script (a full build) on the way,
    // which other test files must not see happen under them: scripts are off.
    const cache = tempDir('checkd-npx-cache-');
    const proc = spawn('npx', ['--no-install', 'checkd', '--help'], {
      cwd: REPO_ROOT,
      env: childEnv({ npm_config_cache: cache, npm_config_ignore_scripts: 'true', npm_config_update_notifier: 'false' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = await once(proc, 'close');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^Usage: checkd /);
    expect(stdout).toMatch(/^ {2}serve\b/m);
  }, 60_000);
});
