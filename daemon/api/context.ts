import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { CheckService } from '../service/checks.js';
import type { Store } from '../store/store.js';
import type { ApiVersion } from '../domain/types.js';
import type { WriteGate } from '../store/storage-watch.js';

/** What the HTTP plugins need from the daemon. */
export interface HttpContext {
  store: Store;
  checks: CheckService;
  clock: Clock;
  baseUrl: string;
  badgeSecret: string;
  apiRateLimit: number;
  pingBodyLimit: number;
  /** The label of the project-wide (`*`) status badge. */
  badgeLabel: string;
  logger: Logger;
  /** Refuses API writes while the storage alarm is on; open when absent. */
  gate?: WriteGate;
}

export interface VersionedContext extends HttpContext {
  version: ApiVersion;
}
