// The check's JSON representation (seed "Rules for the check representation",
// api-details §5). Member order follows the reference; fields depend on the key
// kind (read-write vs read-only) and the check kind (simple vs schedule).
import { displayStatus, graceStart, isMuted, isStarted } from './status.js';
import { isoSeconds } from './format.js';
import { uniqueKeyOf } from './ids.js';
import { windowCovers } from './maintenance.js';
import type { ApiVersion, CheckRecord, MaintenanceWindow } from './types.js';

export interface RepresentationOptions {
  now: number;
  version: ApiVersion;
  readOnly: boolean;
  baseUrl: string;
  /** Only the write responses carry the deprecated subject fields (the seed document wins). */
  withSubject: boolean;
  /** The project's maintenance windows open at `now` (alert-policies §4.2); none when absent. */
  openWindows?: readonly MaintenanceWindow[];
}

export function checkToJson(check: CheckRecord, opts: RepresentationOptions): Record<string, unknown> {
  const { baseUrl, version } = opts;
  const next = graceStart(check);
  const doc: Record<string, unknown> = {
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    grace: check.grace,
    n_pings: check.nPings,
    status: displayStatus(check, opts.now, version),
    started: isStarted(check),
    last_ping: check.lastPing === null ? null : isoSeconds(check.lastPing),
    next_ping: next === null ? null : isoSeconds(next),
    manual_resume: check.manualResume,
    methods: check.methods,
  };
  if (opts.withSubject) {
    doc.subject = check.filterSubject ? check.successKw : '';
    doc.subject_fail = check.filterSubject ? check.failureKw : '';
  }
  doc.start_kw = check.startKw;
  doc.success_kw = check.successKw;
  doc.failure_kw = check.failureKw;
  doc.filter_subject = check.filterSubject;
  doc.filter_body = check.filterBody;
  doc.filter_http_body = check.filterHttpBody;
  doc.filter_default_fail = check.filterDefaultFail;
  doc.badge_url = `${baseUrl}/b/2/${check.badgeKey}.svg`;
  // The run's length decides, not its truncation: a 0.7 s run shows 0 (as upstream's `if last_duration:`).
  if (check.lastDuration !== null && check.lastDuration !== 0) {
    doc.last_duration = Math.trunc(check.lastDuration / 1000);
  }
  if (opts.readOnly) {
    doc.unique_key = uniqueKeyOf(check.uuid);
  } else {
    const updateUrl = `${baseUrl}/api/v${version}/checks/${check.uuid}`;
    doc.uuid = check.uuid;
    doc.ping_url = `${baseUrl}/ping/${check.uuid}`;
    doc.update_url = updateUrl;
    doc.pause_url = `${updateUrl}/pause`;
    doc.resume_url = `${updateUrl}/resume`;
    doc.channels = [...check.channels].sort().join(',');
  }
  if (check.kind === 'simple') {
    doc.timeout = check.timeout;
  } else {
    doc.schedule = check.schedule;
    doc.tz = check.tz;
  }
  addExtensionMembers(doc, check, opts);
  return doc;
}

/**
 * checkd's own members (alert-policies.md), after upstream's and only when
 * not at their default: a check that uses no extension has upstream's shape.
 */
function addExtensionMembers(doc: Record<string, unknown>, check: CheckRecord, { now, openWindows, readOnly }: RepresentationOptions): void {
  if (check.maxDuration) doc.max_duration = check.maxDuration;
  if (check.failureTolerance) doc.failure_tolerance = check.failureTolerance;
  if (check.consecutiveFailures) doc.consecutive_failures = check.consecutiveFailures;
  if (isMuted(check, now)) doc.muted_until = isoSeconds(check.mutedUntil!);
  if (openWindows?.some((w) => windowCovers(w, check))) doc.in_maintenance = true;
  // Checks are named as the key may see them: by unique_key for a read-only key.
  const ref = (uuid: string) => (readOnly ? uniqueKeyOf(uuid) : uuid);
  if (check.dependsOn) doc.depends_on = ref(check.dependsOn);
  if (check.hold?.parent) doc.suppressed_by = ref(check.hold.parent);
}
