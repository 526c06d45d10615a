// A script run in a child Node process that may collect at will (--expose-gc),
// with the repo's TypeScript sources importable from the repo root: for tests
// of what stays in a heap, which the test runner's own heap would blur.
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './paths.js';

/** Run `script` (an ES module body that prints one JSON line); its stderr, and that line parsed. */
export function runGcChild<T>(script: string): { stderr: string; printed: T } {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8' });
  return { stderr: r.stderr, printed: JSON.parse(r.stdout.trim()) as T };
}
