// Temp dirs for data dirs, outputs and sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.js';

/** A fresh directory under the system temp dir, removed with everything in it at cleanup. */
export function tempDir(prefix = 'checkd-test-'): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rmSync(path, { recursive: true, force: true }));
  return path;
}
