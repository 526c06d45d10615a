// Reads one project through the Healthchecks v3 API, all of it before anything
// is written: its checks (a read-write key is needed, so that they come with
// their UUIDs), its channels, and per check its logged pings and its flips,
// plus the ping bodies when asked. Only what is needed to make the next
// requests is checked here; healthchecks-map.ts validates the rest.
import { UsageError } from '../cli/admin.js';
import { UUID_RE } from '../domain/ids.js';
import { KeyRefusedError, type HealthchecksClient } from './healthchecks-client.js';
import { OpsError } from './errors.js';

export interface SourceCheck {
  uuid: string;
  /** The check as GET /checks/ gave it. */
  doc: Record<string, unknown>;
  /** The answer of GET /checks/<uuid>/pings/. */
  pings: unknown;
  /** The answer of GET /checks/<uuid>/flips/ (a bare array from checkd, {"flips": [...]} from Healthchecks). */
  flips: unknown;
  /** Bodies of logged pings by ping number, when asked for. */
  bodies: Map<number, Uint8Array>;
}

export interface SourceProject {
  checks: SourceCheck[];
  /** The answer of GET /channels/. */
  channels: unknown;
}

export interface FetchOptions {
  pingBodies: boolean;
  /** Requests done and known so far (the total grows as ping bodies are found). */
  progress?: (done: number, total: number) => void;
  /** Requests in flight at once. */
  concurrency?: number;
}

const READ_ONLY_KEY =
  'that is a read-only API key: the import keeps each check\'s UUID, so that its ping URL keeps working, and only a read-write key shows them; give the project\'s read-write key';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Run `tasks` with at most `limit` at a time; results in task order. */
async function pooled<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** The numbers of the logged pings that have a body. */
function pingsWithBody(pings: unknown): number[] {
  if (!isObject(pings) || !Array.isArray(pings.pings)) return [];
  return pings.pings.filter((p) => isObject(p) && p.body_url != null && Number.isSafeInteger(p.n) && (p.n as number) > 0).map((p) => p.n as number);
}

export async function fetchProject(client: HealthchecksClient, opts: FetchOptions): Promise<SourceProject> {
  let done = 0;
  let total = 2;
  const step = () => opts.progress?.(++done, total);

  const list = await client.json('/checks/');
  if (!isObject(list) || !Array.isArray(list.checks)) {
    throw new OpsError(`${client.base}/checks/ did not answer a check list: is that a Healthchecks or checkd server?`);
  }
  const docs: Array<{ uuid: string; doc: Record<string, unknown> }> = [];
  list.checks.forEach((doc, i) => {
    if (isObject(doc) && typeof doc.uuid === 'string' && UUID_RE.test(doc.uuid)) docs.push({ uuid: doc.uuid, doc });
    else if (isObject(doc) && doc.uuid === undefined && typeof doc.unique_key === 'string') throw new UsageError(READ_ONLY_KEY);
    else throw new OpsError(`${client.base}/checks/ gave check ${i + 1} without a valid uuid`);
  });
  total += 2 * docs.length;
  step();

  let channels: unknown;
  try {
    channels = await client.json('/channels/');
  } catch (err) {
    // The same key just listed the checks: only a read-only key is refused here.
    if (err instanceof KeyRefusedError) throw new UsageError(READ_ONLY_KEY);
    throw err;
  }
  step();

  const checks = await pooled(
    docs.map(({ uuid, doc }) => async (): Promise<SourceCheck> => {
      const pings = await client.json(`/checks/${uuid}/pings/`);
      step();
      const flips = await client.json(`/checks/${uuid}/flips/`);
      step();
      const bodies = new Map<number, Uint8Array>();
      if (opts.pingBodies) {
        const numbers = pingsWithBody(pings);
        total += numbers.length;
        for (const n of numbers) {
          const body = await client.bytes(`/checks/${uuid}/pings/${n}/body`);
          step();
          if (body !== null) bodies.set(n, body);
        }
      }
      return { uuid, doc, pings, flips, bodies };
    }),
    opts.concurrency ?? 4,
  );
  return { checks, channels };
}
