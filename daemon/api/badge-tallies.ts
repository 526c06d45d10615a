// The tag badges of a project, counted in one pass over its checks that the
// badge requests arriving meanwhile share. Badges are public and cheap to ask
// for (a README image on a busy page); with 100,000 checks a pass reads for
// most of a second, so it reads in chunks with pings served in between, and a
// burst of badge requests costs one pass instead of one each.
import { displayStatus } from '../domain/status.js';
import { tallyBadgeStatus, type BadgeTally } from '../domain/badges.js';
import type { Clock } from '../shared/clock.js';
import type { Store } from '../store/store.js';

/** Per tag (and `*` for every check), what its badge counts. */
export type ProjectBadgeTallies = ReadonlyMap<string, BadgeTally>;

interface Passes {
  /** The pass reading now. */
  running: Promise<ProjectBadgeTallies> | null;
  /** The pass that starts when `running` ends, shared by the requests that came after it began. */
  queued: Promise<ProjectBadgeTallies> | null;
}

export class BadgeTallies {
  private readonly passes = new Map<string, Passes>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Checks read between two turns of the event loop (Store's default when absent). */
    private readonly chunkSize?: number,
  ) {}

  /**
   * The project's tallies as of this call or later: a pass that began before
   * it may already have read past a check pinged since, so such a request
   * waits for the next pass instead of sharing the running one.
   */
  of(projectId: string): Promise<ProjectBadgeTallies> {
    let passes = this.passes.get(projectId);
    if (passes === undefined) this.passes.set(projectId, (passes = { running: null, queued: null }));
    if (passes.queued) return passes.queued;
    if (passes.running) return (passes.queued = passes.running.then(() => this.start(projectId, passes), () => this.start(projectId, passes)));
    return this.start(projectId, passes);
  }

  private start(projectId: string, passes: Passes): Promise<ProjectBadgeTallies> {
    const run = this.count(projectId);
    passes.running = run;
    passes.queued = null;
    const settled = () => {
      if (passes.running === run) passes.running = null;
      if (passes.running === null && passes.queued === null && this.passes.get(projectId) === passes) this.passes.delete(projectId);
    };
    run.then(settled, settled);
    return run;
  }

  private async count(projectId: string): Promise<ProjectBadgeTallies> {
    const tallies = new Map<string, BadgeTally>();
    const now = this.clock.now();
    for await (const chunk of this.store.checkChunks({ projectId, size: this.chunkSize })) {
      for (const c of chunk) tallyBadgeStatus(tallies, c.tags, displayStatus(c, now, 3));
    }
    return tallies;
  }
}
