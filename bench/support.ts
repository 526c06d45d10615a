// Helpers shared by the benchmarks.
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';

/** Run the built `checkd` with arguments and parse its `--json` output. */
export function cliJson(cliPath: string, args: string[]): any {
  const r = spawnSync(process.execPath, [cliPath, ...args], { cwd: dirname(dirname(dirname(cliPath))), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`checkd ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Run `task(0..n-1)` with at most `width` in flight; results in index order. */
export async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}
