// Run by `npm install` in a clone (the prepare script): links the package's own
// bins into node_modules/.bin, so `npx --no-install checkd` runs the build at
// once instead of linking the package into npx's cache (which builds it again),
// and `export PATH="$PWD/node_modules/.bin:$PATH"` puts checkd and checktop on PATH.
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
const binDir = join(root, 'node_modules', '.bin');
mkdirSync(binDir, { recursive: true });
for (const [name, target] of Object.entries(pkg.bin)) {
  const link = join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, join(root, target)), link);
}
