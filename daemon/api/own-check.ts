// The check a path names, found for the caller's project: an empty 404 when
// there is none, an empty 403 when it is another project's (api-details §4).
import { HttpError } from './errors.js';
import { UUID_RE } from '../domain/ids.js';
import type { CheckRecord, ProjectRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';

/** By UUID: 404 when unknown, 403 when another project's. */
export function ownCheck(store: Store, uuid: string, project: ProjectRecord): CheckRecord {
  const check = store.getCheck(uuid);
  if (!check) throw HttpError.empty(404);
  if (check.projectId !== project.id) throw HttpError.empty(403);
  return check;
}

/** By UUID, or by unique_key within the project (404 when none has it), as read paths allow. */
export function ownCheckByCode(store: Store, code: string, project: ProjectRecord): CheckRecord {
  if (UUID_RE.test(code)) return ownCheck(store, code, project);
  const check = store.checkByUniqueKey(project.id, code);
  if (!check) throw HttpError.empty(404);
  return check;
}
