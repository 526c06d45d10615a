// Where the repository and its built programs are, for tests that run them.
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const CHECKD_BIN = join(REPO_ROOT, 'dist/daemon/cli.js');
export const CHECKTOP_BIN = join(REPO_ROOT, 'dist/tui/cli.js');
