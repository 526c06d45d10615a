// Shared pieces of the CLI contract suite (contract.md), which runs the BUILT
// `checkd` through helpers/child.ts: the key formats of the contract and
// looks at what a command left on disk. Not a test file.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCliJson } from '../helpers/child.js';

/** API keys of contract.md: 32 characters, hcw_/hcr_ then 28 URL-safe characters. */
export const RW_KEY_RE = /^hcw_[A-Za-z0-9_-]{28}$/;
export const RO_KEY_RE = /^hcr_[A-Za-z0-9_-]{28}$/;
export const PING_KEY_RE = /^[a-z0-9]{22}$/;

/** Every path under `dir` (relative), for "nothing was written" assertions. */
export function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      out.push(e.isDirectory() ? `${p}/` : `${p} ${statSync(join(dir, p)).size}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk('');
  return out.sort();
}

/** `project list --json` on `dataDir`. */
export async function listProjects(dataDir: string): Promise<any[]> {
  return (await runCliJson(['project', 'list', '--data-dir', dataDir])).projects;
}
