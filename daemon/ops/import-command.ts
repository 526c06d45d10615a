// `checkd import`: an export FILE (transfer.ts) or, with --from-healthchecks,
// a project read through the Healthchecks v3 API (healthchecks-import.ts).
// Exactly one of the two sources; the options of the other are refused.
import { refuseDuringStorageAlarm, UsageError, type Output } from '../cli/admin.js';
import { inspectDataDir } from '../store/db.js';
import { Store } from '../store/store.js';
import { systemClock } from '../shared/clock.js';
import { importData } from './transfer.js';
import type { HealthchecksImportOptions } from './healthchecks-import.js';

export interface ImportOptions extends Partial<HealthchecksImportOptions> {
  replace: boolean;
}

const HEALTHCHECKS_ONLY = ['apiKey', 'project', 'name', 'pingKey', 'pingBodies'] as const;

/** An import grows the data: refused, before anything is read, while the daemon's storage alarm stands. */
async function refuseDuringAlarm(dataDir: string): Promise<void> {
  if (inspectDataDir(dataDir) !== 'env') return;
  const store = Store.open(dataDir, { readOnly: true });
  try {
    refuseDuringStorageAlarm(store, systemClock.now());
  } finally {
    await store.close();
  }
}

export async function importCommand(dataDir: string, file: string | undefined, opts: ImportOptions, out: Output): Promise<unknown> {
  await refuseDuringAlarm(dataDir);
  if (opts.fromHealthchecks === undefined) {
    if (file === undefined) throw new UsageError('give an export FILE (- for stdin) or --from-healthchecks URL');
    if (HEALTHCHECKS_ONLY.some((k) => opts[k] !== undefined && opts[k] !== false)) {
      throw new UsageError('--api-key, --project, --name, --ping-key and --ping-bodies go with --from-healthchecks');
    }
    return importData(dataDir, file, opts, out);
  }
  if (file !== undefined) throw new UsageError('give either an export FILE or --from-healthchecks URL, not both');
  if (opts.replace) throw new UsageError('--replace is for export files; an import from Healthchecks skips what exists');
  // Loaded only when used: the other admin commands need none of it.
  const { importFromHealthchecks } = await import('./healthchecks-import.js');
  return importFromHealthchecks(dataDir, { ...opts, fromHealthchecks: opts.fromHealthchecks }, out);
}
