// The SVG badges render in a real SVG renderer (api-details Appendix B):
// rsvg-convert (Debian librsvg2-bin) turns an up, a late and a down badge served
// by the daemon into PNGs of the declared size that differ from each other.
// rsvg-convert is a hard requirement: .ci/run installs it, and without it this
// file fails with instructions instead of skipping.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, createCheck, ping } from '../helpers/http.js';
import { badgeProject, get, local, svgWidth, useBadgeDaemon } from './support.js';

const env = useBadgeDaemon();

const MISSING =
  'rsvg-convert is not installed, so the SVG badges cannot be rendered. ' +
  'Install it with: apt-get install -y librsvg2-bin (Debian/Ubuntu; .ci/run does this in CI).';

function rsvgConvert(svg: string): Buffer {
  const r = spawnSync('rsvg-convert', ['--format', 'png'], { input: svg, maxBuffer: 16 * 1024 * 1024 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? MISSING : `rsvg-convert could not run: ${r.error.message}`);
  }
  if (r.status !== 0) throw new Error(`rsvg-convert exited with ${r.status}: ${r.stderr.toString()}`);
  return r.stdout;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, which must come first. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE), 'PNG signature').toBe(true);
  expect(png.subarray(12, 16).toString('latin1'), 'first chunk').toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('SVG badges render with rsvg-convert', () => {
  it('rsvg-convert is installed', () => {
    const r = spawnSync('rsvg-convert', ['--version']);
    if (r.error) throw new Error(MISSING);
    expect(r.status).toBe(0);
  });

  it('up, late and down badges become PNGs of the SVG width and 20 px high, all different', async () => {
    const p = await badgeProject(env);
    const make = (name: string, timeout: number) => createCheck(env.url, p.apiKey, { name, tags: name, timeout, grace: 60 });
    const up = await make('up', 3600);
    const late = await make('late', 60);
    const down = await make('down', 3600);
    await ping(env.url, up.uuid);
    await ping(env.url, late.uuid);
    await ping(env.url, `${down.uuid}/fail`);
    env.clock.advance(90_000);
    const map = (await api(env.url, '/api/v3/badges/', { key: p.apiKey })).json.badges;

    const outDir = process.env.CHECKD_BADGE_PNG_DIR;
    if (outDir) mkdirSync(outDir, { recursive: true });
    const hashes = new Map<string, string>();
    for (const [tag, status, colour] of [
      ['up', 'up', '#4c1'],
      ['late', 'late', '#fe7d37'],
      ['down', 'down', '#e05d44'],
    ] as const) {
      const r = await get(local(env, map[tag].svg3));
      expect(r.status).toBe(200);
      expect(r.text).toContain(`fill="${colour}"`);
      expect(r.text).toContain(`>${status}</text>`);
      const png = rsvgConvert(r.text);
      expect(pngSize(png), tag).toEqual({ width: svgWidth(r.text), height: 20 });
      hashes.set(tag, createHash('sha256').update(png).digest('hex'));
      if (outDir) writeFileSync(join(outDir, `${tag}.png`), png);
    }
    expect(new Set(hashes.values()).size).toBe(3);
  });

  it('the per-check badge and a badge with an escaped, non-ASCII label render too', async () => {
    const p = await badgeProject(env);
    const c = await createCheck(env.url, p.apiKey, { name: 'Backups <nightly> & "café" 🚀', tags: 'x' });
    const r = await get(local(env, c.badge_url));
    expect(r.status).toBe(200);
    const png = rsvgConvert(r.text);
    expect(pngSize(png)).toEqual({ width: svgWidth(r.text), height: 20 });
  });
});
