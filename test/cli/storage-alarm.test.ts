// Admin commands run beside the daemon and its storage alarm: those that grow
// the data are refused while the alarm the daemon recorded still stands by its
// own limits; reads and deletes go on; once the disk is back within those
// limits, the same commands work although no daemon cleared the record.
import { describe, expect, it } from 'vitest';
import { storageReport, type StorageLimits } from '../../daemon/domain/storage-alarm.js';
import { createProjectCli, runCli, runCliJson } from '../helpers/child.js';
import { openStore } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';

/** Record, as a daemon would, the quota alarm on with `quotaBytes` as its limit. */
async function recordQuotaAlarm(dataDir: string, quotaBytes: number): Promise<void> {
  const store = openStore(dataDir);
  const limits: StorageLimits = { reserveBytes: 0, quotaBytes };
  const reading = { freeBytes: null, usedBytes: store.usedBytes() };
  await store.recordStorageAlarm(storageReport({ active: true, cause: 'quota', since: Date.now() }, reading, limits), Date.now());
  await store.close();
}

describe('admin commands during the storage alarm', () => {
  it('refuse to grow the data while it stands, with why; reads and deletes go on; nothing is written', async () => {
    const dir = tempDir('checkd-cli-alarm-');
    const p = await createProjectCli(dir);
    await recordQuotaAlarm(dir, 4096); // far below what the data holds: the alarm stands

    const refused = await runCli(['key', 'create', '--project', p.id, '--data-dir', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^checkd: storage unavailable: the database holds .* of data, at its quota of 4.1 kB/m);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    for (const args of [
      ['project', 'create', '--name', 'more'],
      ['channel', 'create', '--project', p.id, '--kind', 'webhook', '--value', 'http://127.0.0.1:9/x'],
      ['maintenance', 'add', '--project', p.id, '--start', '2030-01-01T00:00:00Z', '--end', '2030-01-01T01:00:00Z'],
    ]) {
      const r = await runCli([...args, '--data-dir', dir]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain('storage unavailable');
    }

    expect((await runCliJson(['key', 'list', '--project', p.id, '--data-dir', dir])).keys).toHaveLength(2);
    expect((await runCliJson(['project', 'list', '--data-dir', dir])).projects).toHaveLength(1);
    expect((await runCliJson(['channel', 'list', '--project', p.id, '--data-dir', dir])).channels).toEqual([]);
    expect((await runCliJson(['maintenance', 'list', '--project', p.id, '--data-dir', dir])).windows).toEqual([]);
    expect(await runCliJson(['key', 'revoke', '--project', p.id, p.api_key_readonly, '--data-dir', dir])).toEqual({ revoked: true });
  });

  it('an import is refused before it reads its file', async () => {
    const dir = tempDir('checkd-cli-alarm-import-');
    await createProjectCli(dir);
    await recordQuotaAlarm(dir, 4096);
    const r = await runCli(['import', '/nonexistent/export.json', '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('storage unavailable');
  });

  it('work again once the data is back within the recorded limits, though no daemon cleared the record', async () => {
    const dir = tempDir('checkd-cli-alarm-clear-');
    const p = await createProjectCli(dir);
    await recordQuotaAlarm(dir, 1024 * 1024 * 1024); // the data is far below a 1 GiB quota
    const key = await runCliJson(['key', 'create', '--project', p.id, '--data-dir', dir]);
    expect(key.api_key).toMatch(/^hcw_/);
  });
});
