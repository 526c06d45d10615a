// Flushing a file or directory that is not written through LMDB (a backup copy,
// its directory) or whose flush LMDB's own callback failed to report.
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
