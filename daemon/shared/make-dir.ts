// mkdir -p that always returns. Node's `mkdirSync(path, { recursive: true })`
// never returns for a path below /proc (it retries forever at full CPU), so a
// mistyped --data-dir could hang `checkd` instead of failing with a reason.
// Creating one level at a time turns that into the kernel's plain ENOENT.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirectory(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      statSync(p);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(p) === p) throw err;
      missing.push(p);
    }
  }
  for (const p of missing.reverse()) mkdirSync(p, { mode });
}
