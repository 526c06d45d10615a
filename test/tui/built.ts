// The tests that run dist/tui/cli.js must run what the sources say (not a test file).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKTOP_BIN, REPO_ROOT } from '../helpers/paths.js';

/** `npm test` builds first; a missing or stale build would test old code, so it fails instead. */
export function assertFreshBuild(): void {
  if (!existsSync(CHECKTOP_BIN)) throw new Error(`${CHECKTOP_BIN} is missing: run \`npm run build\` first (npm test does)`);
  const built = statSync(CHECKTOP_BIN).mtimeMs;
  const src = join(REPO_ROOT, 'tui');
  const stale = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .filter((f) => statSync(join(src, f)).mtimeMs > built);
  if (stale.length > 0) throw new Error(`dist/tui is older than ${stale.join(', ')}: run \`npm run build\``);
}
