// The systemd unit as systemd itself judges it (systemd-analyze verify and
// security), its consistency with install.sh, and the example settings file.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/child.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { SERVE_NODE_FLAGS } from '../../daemon/shared/node-flags.js';
import { ENV_EXAMPLE_PATH, INSTALL_SH, parseEnvFile, readUnit, requireTool, splitWords, UNIT_PATH } from './support.js';

const run = promisify(execFile);

async function analyze(args: string[]): Promise<{ code: number; out: string }> {
  const bin = requireTool('systemd-analyze', 'systemd');
  try {
    const { stdout, stderr } = await run(bin, args, { encoding: 'utf8' });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

describe('systemd-analyze', () => {
  it('verify passes with no warnings', async () => {
    const r = await analyze(['verify', UNIT_PATH]);
    expect(r.code, r.out).toBe(0);
    // verify prints nothing for a clean unit; anything it says is a finding.
    expect(r.out.trim(), r.out).toBe('');
  });

  it('security (offline) scores 1.5 or better', async () => {
    const r = await analyze(['security', '--offline=yes', '--no-pager', UNIT_PATH]);
    const m = /Overall exposure level for \S+: (\d+\.\d+)/.exec(r.out);
    expect(m, `no exposure level in:\n${r.out}`).not.toBeNull();
    const score = Number(m![1]);
    expect(score, r.out).toBeLessThanOrEqual(1.5);
  });
});

describe('the unit', () => {
  const unit = readUnit();

  it('is Type=notify with a sandboxed dynamic user and the operators group', () => {
    expect(unit.get('Service', 'Type')).toBe('notify');
    // Only checkd's own process notifies (unix-dgram); install.sh's drop-in widens it for systemd-notify.
    expect(unit.get('Service', 'NotifyAccess')).toBe('main');
    const sh = readFileSync(INSTALL_SH, 'utf8');
    expect(sh).toContain('DROPIN="$UNIT_DIR/checkd.service.d/notify-access.conf"');
    expect(sh).toContain('NotifyAccess=all');
    expect(unit.get('Service', 'DynamicUser')).toBe('yes');
    expect(unit.get('Service', 'StateDirectory')).toBe('checkd');
    expect(unit.get('Service', 'RuntimeDirectory')).toBe('checkd');
    expect(unit.get('Service', 'Group')).toBe('checkd');
  });

  it('names a User= different from the static group (systemd refuses a derived user "checkd" next to a static group "checkd")', () => {
    // systemd.exec(5), DynamicUser=: "if User= is specified and the static group
    // with the name exists, then it is required that the static user with the
    // name already exists" (dynamic_user_realize() returns EILSEQ otherwise).
    // Without User=, the user name is derived from the unit name: "checkd".
    const user = unit.get('Service', 'User');
    expect(user, 'User= must be set').toBeTruthy();
    expect(user).not.toBe(unit.get('Service', 'Group'));
    expect(user).not.toBe('checkd');
  });

  it('keeps the gRPC socket reachable by the group: socket in the RuntimeDirectory, group-traversable dir, UMask without group bits', () => {
    const env = Object.fromEntries(unit.all('Service', 'Environment').flatMap(splitWords).map((w) => [w.split('=')[0], w.slice(w.indexOf('=') + 1)]));
    expect(env.CHECKD_GRPC_LISTEN).toBe(`unix:/run/${unit.get('Service', 'RuntimeDirectory')}/grpc.sock`);
    expect(Number.parseInt(unit.get('Service', 'RuntimeDirectoryMode')!, 8) & 0o050).toBe(0o050);
    expect(Number.parseInt(unit.get('Service', 'UMask')!, 8) & 0o070).toBe(0);
    expect(env.CHECKD_DATA_DIR).toBe(`/var/lib/${unit.get('Service', 'StateDirectory')}`);
  });

  it('matches install.sh: install prefix in ExecStart, user and group names', () => {
    const sh = readFileSync(INSTALL_SH, 'utf8');
    const prefix = /^PREFIX=\$\{PREFIX:-(\S+)\}$/m.exec(sh)?.[1];
    const group = /^GROUP=(\S+)$/m.exec(sh)?.[1];
    const user = /^SERVICE_USER=(\S+)$/m.exec(sh)?.[1];
    const nodeFlags = /^NODE_FLAGS=(.*)$/m.exec(sh)?.[1];
    const exec = splitWords(unit.get('Service', 'ExecStart')!);
    expect(exec.slice(1)).toEqual([...SERVE_NODE_FLAGS, `${prefix}/dist/daemon/cli.js`, 'serve']);
    expect(nodeFlags?.split(' ')).toEqual(SERVE_NODE_FLAGS);
    expect(sh).toContain('EXEC="$NODE $NODE_FLAGS $PREFIX/dist/daemon/cli.js serve"');
    expect(group).toBe(unit.get('Service', 'Group'));
    expect(user).toBe(unit.get('Service', 'User'));
    expect(unit.get('Service', 'EnvironmentFile')).toBe('-/etc/checkd/checkd.env');
    expect(sh).toContain('"$PREFIX/systemd/checkd.env.example" "$ETC_DIR/checkd.env"');
  });
});

describe('node options of checkd serve', () => {
  it('npm start uses the same as the unit', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(['node', ...SERVE_NODE_FLAGS, 'dist/daemon/cli.js', 'serve'].join(' '));
  });
});

describe('systemd/checkd.env.example', () => {
  it('names only settings that `checkd serve` knows', async () => {
    const { active, commented } = parseEnvFile(readFileSync(ENV_EXAMPLE_PATH, 'utf8'));
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    const names = [...Object.keys(active), ...commented];
    expect(names.length).toBeGreaterThan(3);
    const text = help.stdout.replace(/\s+/g, " "); // commander wraps long lines
    for (const name of names) expect(text, `${name} is not a serve setting`).toContain(`env ${name}`);
  });

  it('is a valid configuration as it stands (checkd serve starts with it; see notify.test.ts)', () => {
    const { active } = parseEnvFile(readFileSync(ENV_EXAMPLE_PATH, 'utf8'));
    expect(active.CHECKD_LISTEN).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(() => new URL(active.CHECKD_BASE_URL!)).not.toThrow();
  });
});

describe('systemd/install.sh', () => {
  it('parses (bash -n), prints its help, and rejects unknown arguments with exit code 2', async () => {
    await run('bash', ['-n', INSTALL_SH]);
    const help = await run('bash', [INSTALL_SH, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain('systemctl enable --now checkd');
    expect(help.stdout).toContain('npm ci --omit=dev');
    const bad = await run('bash', [INSTALL_SH, '--bogus']).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown argument: --bogus');
  });
});
