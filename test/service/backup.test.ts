// `checkd backup` while the daemon takes a steady ping load: the copy opens as
// a data dir and holds every ping that was acknowledged (200) before the
// backup began; the load goes on during the backup.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProjectCli, runCli, startChild, type ChildDaemon } from '../helpers/child.js';
import { api } from '../helpers/http.js';
import { openStore } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';

/** A temp dir (removed after the test) holding a data dir with one project. */
async function projectDir(prefix: string) {
  const tmp = tempDir(prefix);
  const dataDir = join(tmp, 'data');
  return { tmp, dataDir, p: await newProject(dataDir) };
}

async function newProject(dataDir: string, pingLogLimit = 100_000) {
  return createProjectCli(dataDir, 'backup', ['--ping-log-limit', String(pingLogLimit)]);
}

describe('checkd backup', () => {
  it('copies a consistent snapshot under load: every ping acknowledged before the backup began is in the copy', async () => {
    const { tmp, dataDir, p } = await projectDir('checkd-backup-');
    const copyDir = join(tmp, 'backups', 'copy');
    const d: ChildDaemon = await startChild(['--data-dir', dataDir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0']);
    const created = await api(d.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'load', timeout: 3600 } });
    expect(created.status).toBe(201);
    const uuid = (created.json as { ping_url: string }).ping_url.split('/').pop()!;

    // The load: 8 clients, each posting pings with a unique body, one after another.
    const acked: Array<{ body: string; at: number }> = [];
    let failures = 0;
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const body = `w${w}-${i}`;
        const r = await fetch(`${d.url}/ping/${uuid}`, { method: 'POST', body });
        await r.text();
        if (r.status === 200) acked.push({ body, at: performance.now() });
        else failures++;
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    while (acked.length < 400) await new Promise((r) => setTimeout(r, 10));

    const before = new Set(acked.map((a) => a.body));
    const backupStarted = performance.now();
    const r = await runCli(['backup', '--data-dir', dataDir, '--out', copyDir, '--json']);
    const backupEnded = performance.now();
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { out: string; bytes: number; revision: number; projects: number; checks: number };
    // Let the load run on a little, then stop it.
    const target = acked.length + 200;
    while (acked.length < target) await new Promise((r) => setTimeout(r, 10));
    running = false;
    await Promise.all(workers);
    expect(failures).toBe(0);
    const during = acked.filter((a) => a.at > backupStarted && a.at < backupEnded).length;
    expect((await d.stop('SIGTERM')).code).toBe(0);

    expect(summary).toMatchObject({ out: copyDir, projects: 1, checks: 1 });
    expect(readdirSync(copyDir)).toEqual(['data.mdb']);

    // The copy, opened directly: every acknowledged-before ping is there.
    const copy = openStore(copyDir, { readOnly: true });
    const inCopy = new Set(copy.listPings(uuid, 1_000_000).map((ping) => Buffer.from(ping.body ?? []).toString()));
    expect(copy.revision()).toBe(summary.revision);
    // Closed before a daemon serves the copy below.
    await copy.close();
    const missing = [...before].filter((b) => !inCopy.has(b));
    expect(missing, `${missing.length} acknowledged pings missing`).toEqual([]);
    // ...and nothing that was never acknowledged (the copy is a snapshot of
    // acknowledged or in-flight pings; no more than the 8 in flight at the end).
    const all = new Set(acked.map((a) => a.body));
    expect([...inCopy].filter((b) => !all.has(b)).length).toBeLessThanOrEqual(8);
    console.info(
      `backup: ${before.size} pings acknowledged before it began, ${inCopy.size} in the copy, ` +
        `${during} acknowledged while it ran (${Math.round(backupEnded - backupStarted)} ms, ${summary.bytes} bytes)`,
    );

    // The copy is a data dir: a daemon serves it, with the same keys.
    const served = await startChild(['--data-dir', copyDir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0']);
    const check = await api(served.url, `/api/v3/checks/${uuid}`, { key: p.api_key_readonly });
    expect(check.status).toBe(200);
    expect((check.json as { n_pings: number }).n_pings).toBe(inCopy.size);
    const ping = await fetch(`${served.url}/ping/${uuid}`);
    expect(ping.status).toBe(200);
    expect((await served.stop('SIGTERM')).code).toBe(0);
  }, 90_000);

  it('refuses bad arguments with exit code 2 and writes nothing', async () => {
    const { tmp, dataDir } = await projectDir('checkd-backup-args-');
    const nonEmpty = join(tmp, 'full');
    mkdirSync(nonEmpty);
    writeFileSync(join(nonEmpty, 'x'), 'x');
    const file = join(tmp, 'file');
    writeFileSync(file, 'x');
    const linked = join(tmp, 'linked');
    symlinkSync(dataDir, linked);
    const cases: Array<[string[], RegExp]> = [
      [['backup', '--data-dir', dataDir], /required option '--out <dir>'/],
      [['backup', '--data-dir', dataDir, '--out', nonEmpty], /is not empty/],
      [['backup', '--data-dir', dataDir, '--out', file], /not a directory/],
      [['backup', '--data-dir', dataDir, '--out', join(dataDir, 'inner')], /must not be the data dir, inside it or above it/],
      [['backup', '--data-dir', join(tmp, 'nothing'), '--out', join(tmp, 'b1')], /no checkd data/],
      // Through a symbolic link to the data dir (as /var/lib/checkd is one under systemd).
      [['backup', '--data-dir', linked, '--out', join(dataDir, 'via-link')], /must not be the data dir, inside it or above it/],
      [['backup', '--data-dir', dataDir, '--out', join(linked, 'via-link')], /must not be the data dir, inside it or above it/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(join(dataDir, 'inner'))).toBe(false);
    expect(existsSync(join(dataDir, 'via-link'))).toBe(false);
    expect(existsSync(join(tmp, 'b1'))).toBe(false);
    expect(existsSync(join(tmp, 'nothing'))).toBe(false);
  });

  it('the copy is readable by its owner alone, also in an --out that existed with a wider mode', async () => {
    const { tmp, dataDir } = await projectDir('checkd-backup-mode-');
    const out = join(tmp, 'open');
    mkdirSync(out, { mode: 0o755 });
    chmodSync(out, 0o755);
    const r = await runCli(['backup', '--data-dir', dataDir, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(statSync(join(out, 'data.mdb')).mode & 0o777).toBe(0o600);
  });

  it('an --out that cannot be created fails at once with one line (exit 1), also below /proc', async () => {
    const { dataDir } = await projectDir('checkd-backup-out-');
    const r = await runCli(['backup', '--data-dir', dataDir, '--out', '/proc/checkd-no-such/backup']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe("checkd: cannot create /proc/checkd-no-such/backup: ENOENT: no such file or directory, mkdir '/proc/checkd-no-such'\n");
  });

  it('--compact makes a copy that also opens and holds the same data', async () => {
    const { tmp, dataDir, p } = await projectDir('checkd-backup-compact-');
    const r = await runCli(['backup', '--compact', '--data-dir', dataDir, '--out', join(tmp, 'c'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const copy = openStore(join(tmp, 'c'), { readOnly: true });
    expect(copy.getProject(p.id)?.name).toBe('backup');
    expect(copy.authenticate(p.api_key)?.project.id).toBe(p.id);
  });
});
