// `checkd export` writes its document a piece at a time (a page of checks
// in memory, not all of them): the pieces must still make exactly the text
// JSON.stringify(doc, null, 2) makes, over pages, empty lists and empty data.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeExport } from '../../daemon/ops/transfer.js';
import type { Store } from '../../daemon/store/store.js';
import { runCli } from '../helpers/child.js';
import { openTempStore, plantChecks } from '../helpers/store.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

const openStore = () => openTempStore('checkd-export-');

function exportText(store: Store): { text: string; pieces: number; counts: { projects: number; checks: number } } {
  const pieces: string[] = [];
  const counts = writeExport(store, (t) => pieces.push(t), T0);
  return { text: pieces.join(''), pieces: pieces.length, counts };
}

/** The document exactly as JSON.stringify(doc, null, 2) writes it. */
const canonical = (text: string) => JSON.stringify(JSON.parse(text), null, 2) + '\n';

describe('writeExport', () => {
  it('writes the checks of a project over several pages, in creation order, as JSON.stringify would', async () => {
    const { store } = openStore();
    const big = (await store.createProject({ name: 'big', checkLimit: 5000, pingLogLimit: 100 }, T0)).project;
    const empty = (await store.createProject({ name: 'empty', checkLimit: 10, pingLogLimit: 100 }, T0 + 1)).project;
    await store.createChannel({ projectId: big.id, kind: 'webhook', name: 'hook', value: 'http://127.0.0.1:9/x' }, T0);
    const planted = await plantChecks(store, big.id, 2500, {
      createdAt: T0,
      shape: (c, i) => {
        c.name = `job "${i}"\n`; // quotes and a newline: escaped, not broken lines
        c.tags = i % 2 === 0 ? 'prod db' : '';
      },
    });
    const { text, pieces, counts } = exportText(store);
    expect(text).toBe(canonical(text));
    expect(counts).toEqual({ projects: 2, checks: 2500 });
    expect(pieces).toBeGreaterThan(2500); // written as it was read, not as one string
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({ format: 'checkd-export', version: 1, exported_at: new Date(T0).toISOString(), badge_secret: null });
    expect(doc.projects.map((p: { name: string }) => p.name)).toEqual(['big', 'empty']);
    expect(doc.projects[0].checks.map((c: { uuid: string }) => c.uuid)).toEqual(planted.map((c) => c.uuid));
    expect(doc.projects[0].checks[7]).toMatchObject({ name: 'job "7"\n', tags: '' });
    expect(doc.projects[0].channels).toHaveLength(1);
    expect(doc.projects[1]).toMatchObject({ id: empty.id, channels: [], checks: [] });
    expect(doc.projects[1].api_keys).toHaveLength(2);
  });

  it('writes a data dir without projects as JSON.stringify would', async () => {
    const { store } = openStore();
    const { text, counts } = exportText(store);
    expect(text).toBe(canonical(text));
    expect(JSON.parse(text).projects).toEqual([]);
    expect(counts).toEqual({ projects: 0, checks: 0 });
  });

  it('checkd export --out writes the same document, 0600, and reports its size', async () => {
    const { dir, store } = openStore();
    const { project } = await store.createProject({ name: 'p', checkLimit: 3000, pingLogLimit: 100 }, T0);
    await plantChecks(store, project.id, 1200, { createdAt: T0 });
    await store.close();
    const out = join(dir, 'export.json');
    const r = await runCli(['export', '--data-dir', dir, '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    // Written through a temp file beside it, renamed into place: none is left.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const text = readFileSync(out, 'utf8');
    expect(text).toBe(canonical(text));
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(r.stdout)).toEqual({ out, projects: 1, checks: 1200, bytes: Buffer.byteLength(text) });
    const stdout = await runCli(['export', '--data-dir', dir]);
    expect(stdout.code, stdout.stderr).toBe(0);
    // The same document but for the time it was made.
    const again = JSON.parse(stdout.stdout);
    expect({ ...again, exported_at: null }).toEqual({ ...JSON.parse(text), exported_at: null });
  });
});
