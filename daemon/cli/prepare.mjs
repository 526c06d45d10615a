// The prepare script of `npm install` in a clone: builds dist/ unless it is
// newer than every source, then links the package's own bins into
// node_modules/.bin. Skipping an up-to-date build matters because
// `npx --no-install checkd` links this package into npx's cache, which runs
// prepare again each first time. Plain JavaScript: it runs before any build.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const stamp = join(root, 'dist', '.built');
const SOURCES = ['daemon', 'tui', 'proto', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newestMtime(join(path, name))), st.mtimeMs);
}

function builtAt() {
  try {
    return statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

if (builtAt() < Math.max(...SOURCES.map((s) => newestMtime(join(root, s))))) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  writeFileSync(stamp, '');
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const binDir = join(root, 'node_modules', '.bin');
mkdirSync(binDir, { recursive: true });
for (const [name, target] of Object.entries(pkg.bin)) {
  const link = join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, join(root, target)), link);
  // tsc writes files without the execute bit a bin needs (npm sets it only on dependencies).
  chmodSync(join(root, target), 0o755);
}
