// What `checkd import` keeps of each check of its file between validating
// the file and writing it: the keys the store's indexes are built from, in
// memory, and the records themselves in a spool on disk (check-spool.ts),
// from which the store takes them back in the order it writes them
// (store/bulk-load.ts): the keys of a large import fit in memory where its
// records would not.
import type { BulkChecks, NumberedCheck } from '../store/store.js';
import type { CheckPlace, CheckSpan } from './export-parse.js';
import { checkFromJson } from './export-fields.js';
import { CheckSpool } from './check-spool.js';
import { OpsError } from './errors.js';
import { numbers, sortByString } from '../store/key-order.js';

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
  /** Each check's project, by its place in the file (its id is known once the file is read). */
  private readonly projectOf: number[] = [];
  private readonly spool: CheckSpool;

  /** `spoolDir`: where the spool's files go (the system's temporary directory). */
  constructor(spoolDir?: string) {
    this.spool = new CheckSpool(spoolDir);
  }

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
    this.spool.add(n, o.uuid, span.bytes);
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

  /** The checks, whole, in uuid order, in parts of at most `size`. */
  *inUuidOrder(size: number): Generator<NumberedCheck[]> {
    for (const file of this.spool.files()) {
      const order = sortByString(numbers(file.count), (i) => this.uuid[file.n(i)]!, (a, b) => a - b);
      for (let from = 0; from < order.length; from += size) {
        yield Array.from(order.subarray(from, from + size), (i) => {
          const n = file.n(i);
          const check = checkFromJson(JSON.parse(file.text(i)) as Record<string, unknown>, this.projectId[n]!);
          if (check.uuid !== this.uuid[n]) throw new OpsError(`the import's spool does not hold what was read (check ${this.uuid[n]})`);
          return { n, check };
        });
      }
    }
  }

  close(): void {
    this.spool.close();
  }
}
