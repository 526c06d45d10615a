// A scripted CheckdBackend for component tests (not a test file).
import type { CheckdBackend, WatchListener } from '../../tui/watch-client.js';
import type {
  CheckDetailMsg,
  CheckMsg,
  FlipMsg,
  ListFlipsResponseMsg,
  ListPingsResponseMsg,
  PingBodyMsg,
  PingMsg,
  ProjectMsg,
  WatchEventMsg,
} from '../../tui/wire.js';
import type { ConnectionInfo } from '../../tui/state.js';
import { snapshot } from './fixtures.js';

export const LIVE: ConnectionInfo = { state: 'live', attempt: 0, retryAt: 0, error: null };

export class FakeBackend implements CheckdBackend {
  listener: WatchListener | null = null;
  calls: string[] = [];
  details = new Map<string, CheckDetailMsg>();
  /** A check's whole history (newest first), which ListPings and ListFlips page through. */
  history = new Map<string, { pings: PingMsg[]; flips: FlipMsg[] }>();
  /** While set, GetCheck answers only once it resolves (a slow daemon). */
  detailsHeld: Promise<void> | null = null;
  /** Ping bodies by `${check id}#${n}`. */
  bodies = new Map<string, string>();
  project: ProjectMsg = { id: 'p1', name: 'acme', read_only: false, revision: 10, log_id: 'log-1', check_limit: 20, n_checks: 0 };

  /** `snapshot: false`: the snapshot waits for sendSnapshot() (a slow start). */
  constructor(
    private readonly checks: CheckMsg[],
    private readonly opts: { snapshot?: boolean } = {},
  ) {}

  subscribe(listener: WatchListener): () => void {
    this.listener = listener;
    listener({ type: 'connection', connection: LIVE });
    listener({ type: 'project', project: this.project });
    if (this.opts.snapshot !== false) this.sendSnapshot();
    return () => {
      this.listener = null;
    };
  }

  sendSnapshot(): void {
    this.listener?.({ type: 'event', event: snapshot(this.checks) });
  }

  emit(event: WatchEventMsg): void {
    this.listener?.({ type: 'event', event });
  }

  connection(connection: ConnectionInfo): void {
    this.listener?.({ type: 'connection', connection });
  }

  async getCheck(id: string, limit: number): Promise<CheckDetailMsg> {
    this.calls.push(`GetCheck ${id} ${limit}`);
    await this.detailsHeld;
    const c = this.checks.find((x) => x.uuid === id) ?? null;
    const h = this.history.get(id);
    if (h) return { check: c, pings: h.pings.slice(0, limit), flips: h.flips.slice(0, limit) };
    return this.details.get(id) ?? { check: c, pings: [], flips: [] };
  }

  async listPings(id: string, beforeN: number, pageSize: number): Promise<ListPingsResponseMsg> {
    this.calls.push(`ListPings ${id} ${beforeN} ${pageSize}`);
    const older = (this.history.get(id)?.pings ?? []).filter((p) => beforeN === 0 || p.n < beforeN);
    return { pings: older.slice(0, pageSize), more: older.length > pageSize };
  }

  async listFlips(id: string, beforeRevision: number, pageSize: number): Promise<ListFlipsResponseMsg> {
    this.calls.push(`ListFlips ${id} ${beforeRevision} ${pageSize}`);
    const older = (this.history.get(id)?.flips ?? []).filter((f) => beforeRevision === 0 || f.revision < beforeRevision);
    return { flips: older.slice(0, pageSize), more: older.length > pageSize };
  }

  async getPingBody(id: string, n: number, maxBytes: number): Promise<PingBodyMsg> {
    this.calls.push(`GetPingBody ${id} ${n} ${maxBytes}`);
    const body = Buffer.from(this.bodies.get(`${id}#${n}`) ?? '');
    const ping = [...(this.details.get(id)?.pings ?? []), ...(this.history.get(id)?.pings ?? [])].find((p) => p.n === n) ?? null;
    return { ping, body: body.subarray(0, maxBytes), truncated: body.length > maxBytes };
  }

  async pauseCheck(id: string): Promise<CheckMsg> {
    this.calls.push(`PauseCheck ${id}`);
    const c = this.checks.find((x) => x.uuid === id)!;
    return { ...c, status: 'paused', stored_status: 'paused', expected_ms: 0, next_ping_ms: 0 };
  }

  async resumeCheck(id: string): Promise<CheckMsg> {
    this.calls.push(`ResumeCheck ${id}`);
    const c = this.checks.find((x) => x.uuid === id)!;
    return { ...c, status: 'new', stored_status: 'new', last_ping_ms: 0, expected_ms: 0 };
  }
}
