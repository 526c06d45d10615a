// What `checkd import` keeps of each check of its file between validating
// the file and writing it: the keys the store's indexes are built from, and
// where the check's text is in the file. The store writes each B-tree in its
// own key order (store/bulk-load.ts), and reads each check back from the
// file, by its place, when its record is written: the keys of a large import
// fit in memory where its records would not.
import { closeSync, openSync, readSync } from 'node:fs';
import type { CheckRecord } from '../domain/types.js';
import type { BulkChecks } from '../store/store.js';
import type { CheckPlace, CheckSpan } from './export-parse.js';
import { checkFromJson } from './export-fields.js';
import { OpsError } from './errors.js';

/** A growable Float64Array. */
class Numbers {
  array = new Float64Array(1024);
  push(n: number, value: number): void {
    if (n === this.array.length) {
      const bigger = new Float64Array(n * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[n] = value;
  }
}

export class ImportChecks implements BulkChecks {
  count = 0;
  readonly uuid: string[] = [];
  readonly projectId: string[] = [];
  readonly slug: string[] = [];
  readonly name: string[] = [];
  readonly dependsOn: Array<string | undefined> = [];
  readonly badgeKey: string[] = [];
  private readonly created = new Numbers();
  private readonly offsets = new Numbers();
  private readonly lengths = new Numbers();
  /** Each check's project, by its place in the file (its id is known once the file is read). */
  private readonly projectOf: number[] = [];
  private fd: number | null = null;
  private buffer = Buffer.alloc(1 << 16);

  /** Who checks the file for changes: a check read back with another uuid than the one validated stops the import. */
  constructor(
    private readonly path: string,
    private readonly fileName: string,
  ) {}

  get createdAt(): Float64Array {
    return this.created.array;
  }

  /** A check of the file as the read hands it over (readExport's `also`): meaningful once the file is valid. */
  readonly add = (raw: unknown, place: CheckPlace, span: CheckSpan): void => {
    const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const n = this.count++;
    this.uuid.push(o.uuid as string);
    this.slug.push(o.slug as string);
    this.name.push(o.name as string);
    this.dependsOn.push(o.depends_on as string | undefined);
    this.badgeKey.push(o.badge_key as string);
    this.projectOf.push(place.project);
    this.created.push(n, o.created_at as number);
    this.offsets.push(n, span.offset);
    this.lengths.push(n, span.length);
  };

  /** Once the file is validated: the ids of the projects, by their place in the file. */
  setProjects(ids: readonly string[]): void {
    for (let n = 0; n < this.count; n++) this.projectId.push(ids[this.projectOf[n]!]!);
    this.projectOf.length = 0;
  }

  indexesWritten(): void {
    // Most of what the import holds: room for the records written next, whose
    // garbage would otherwise push the heap up until V8's next full collection.
    this.slug.length = 0;
    this.name.length = 0;
    this.dependsOn.length = 0;
    this.badgeKey.length = 0;
  }

  read(n: number): CheckRecord {
    this.fd ??= openSync(this.path, 'r');
    const length = this.lengths.array[n]!;
    if (length > this.buffer.length) this.buffer = Buffer.alloc(length);
    const got = readSync(this.fd, this.buffer, 0, length, this.offsets.array[n]!);
    let check: CheckRecord | undefined;
    try {
      check = checkFromJson(JSON.parse(this.buffer.toString('utf8', 0, got)) as Record<string, unknown>, this.projectId[n]!);
    } catch {
      check = undefined;
    }
    if (!check || check.uuid !== this.uuid[n]) throw new OpsError(`${this.fileName} changed while it was imported`);
    return check;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
