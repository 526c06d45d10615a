// A scripted CheckdBackend for component tests (not a test file).
import type { CheckdBackend, WatchListener } from '../../tui/watch-client.js';
import type { CheckDetailMsg, CheckMsg, ProjectMsg, WatchEventMsg } from '../../tui/wire.js';
import type { ConnectionInfo } from '../../tui/state.js';
import { snapshot } from './fixtures.js';

export const LIVE: ConnectionInfo = { state: 'live', attempt: 0, retryAt: 0, error: null };

export class FakeBackend implements CheckdBackend {
  listener: WatchListener | null = null;
  calls: string[] = [];
  details = new Map<string, CheckDetailMsg>();
  project: ProjectMsg = { id: 'p1', name: 'acme', read_only: false, revision: 10, log_id: 'log-1', check_limit: 20, n_checks: 0 };

  constructor(private readonly checks: CheckMsg[]) {}

  subscribe(listener: WatchListener): () => void {
    this.listener = listener;
    listener({ type: 'connection', connection: LIVE });
    listener({ type: 'project', project: this.project });
    listener({ type: 'event', event: snapshot(this.checks) });
    return () => {
      this.listener = null;
    };
  }

  emit(event: WatchEventMsg): void {
    this.listener?.({ type: 'event', event });
  }

  connection(connection: ConnectionInfo): void {
    this.listener?.({ type: 'connection', connection });
  }

  async getCheck(id: string, limit: number): Promise<CheckDetailMsg> {
    this.calls.push(`GetCheck ${id} ${limit}`);
    const c = this.checks.find((x) => x.uuid === id) ?? null;
    return this.details.get(id) ?? { check: c, pings: [], flips: [] };
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
