// A small real file system for the full-disk tests: a tmpfs mounted for one
// test (root with CAP_SYS_ADMIN, as .ci/run runs) and unmounted at its end.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './cleanup.js';

/** Whether this process may mount a tmpfs (ask while the tests are collected, outside any test). */
export function tmpfsPermitted(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'checkd-mount-probe-'));
  let permitted = true;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    permitted = false;
  }
  rmSync(dir, { recursive: true, force: true });
  return permitted;
}

/** Mount a tmpfs of `size` (e.g. "4m") on the existing directory `dir`, unmounted at cleanup. */
export function mountTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  onCleanup(() => void execFileSync('umount', ['-l', dir]));
}
