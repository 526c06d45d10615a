// The store is the only door to LMDB: outside daemon/store/, no module imports
// lmdb-js or the store's raw environment (store/environment.ts), so every read
// and write goes through the Store's methods.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The module specifiers a source file imports or re-exports (static and dynamic). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  return out;
}

const STORE = join('daemon', 'store') + sep;
const outside = [...sources(join(REPO_ROOT, 'daemon')), ...sources(join(REPO_ROOT, 'tui'))]
  .map((path) => relative(REPO_ROOT, path))
  .filter((path) => !path.startsWith(STORE));

describe('the store boundary', () => {
  it('finds the modules it checks', () => {
    expect(outside).toContain(join('daemon', 'daemon.ts'));
    expect(outside).toContain(join('daemon', 'ops', 'transfer.ts'));
    expect(specifiers(readFileSync(join(REPO_ROOT, 'daemon', 'store', 'db.ts'), 'utf8'))).toContain('lmdb');
  });

  it('no module outside daemon/store/ imports lmdb or the store environment', () => {
    const offending = outside.flatMap((path) =>
      specifiers(readFileSync(join(REPO_ROOT, path), 'utf8'))
        .filter((s) => s === 'lmdb' || s.startsWith('lmdb/') || /(^|\/)store\/environment\.js$/.test(s))
        .map((s) => `${path} imports ${s}`),
    );
    expect(offending).toEqual([]);
  });
});
