// Temp dirs for data dirs, outputs and sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.js';

/**
 * A fresh directory under the system temp dir, removed with everything in it
 * at cleanup; `cleanupTimeoutMs` for one that will hold more than a hook
 * timeout's worth of removing (a clone with its node_modules).
 */
export function tempDir(prefix = 'checkd-test-', opts: { cleanupTimeoutMs?: number } = {}): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rmSync(path, { recursive: true, force: true }), opts.cleanupTimeoutMs);
  return path;
}
