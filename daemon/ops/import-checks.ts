// What `checkd import` keeps of each check of its file between validating
// the file and writing it: the keys the store's indexes are built from, in
// memory, and the records themselves in a spool on disk (check-spool.ts),
// from which the store takes them back in the order it writes them
// (store/bulk-load.ts): the keys of a large import fit in memory where its
// records would not.
import type { BulkChecks, CheckEncoding, EncodedCheck } from '../store/store.js';
import type { CheckPlace, CheckSpan } from './export-parse.js';
import { CheckSpool } from './check-spool.js';
import { makeRecords, readRecordFile, spoolMismatch, type RecordMaking } from './spool-records.js';

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
  private readonly projectOf = new Numbers();
  /** The projects' ids, by their place in the file. */
  private projects: readonly string[] = [];
  private readonly spool: CheckSpool;
  private making: RecordMaking | null = null;

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
    this.projectOf.push(n, place.project);
    this.created.push(n, o.created_at as number);
    this.spool.add(n, o.uuid, span.bytes);
  };

  /** Once the file is validated: the ids of the projects, by their place in the file. */
  setProjects(ids: readonly string[]): void {
    this.projects = ids;
    for (let n = 0; n < this.count; n++) this.projectId.push(ids[this.projectOf.array[n]!]!);
  }

  indexesWritten(): void {
    // Most of what the import holds: room for the records written next, whose
    // garbage would otherwise push the heap up until V8's next full collection.
    this.slug.length = 0;
    this.name.length = 0;
    this.dependsOn.length = 0;
    this.badgeKey.length = 0;
  }

  /**
   * Start making every check's record, with createdAt[n] as its createdAt:
   * on another thread, from the spool, while the store writes the indexes.
   */
  records(encoding: CheckEncoding, createdAt: Float64Array, size: number): AsyncIterable<EncodedCheck[]> {
    const files = this.spool.seal();
    const making = makeRecords(encoding, files, { projects: this.projects, projectOf: this.projectOf.array, createdAt });
    this.making = making;
    const { uuid } = this;
    return (async function* () {
      for await (const { file, size: bytes } of making.ready) {
        const records = readRecordFile(files.fds[file]!, bytes);
        for (const { n, uuid: read } of records) if (read !== uuid[n]) throw spoolMismatch(uuid[n]!);
        for (let from = 0; from < records.length; from += size) yield records.slice(from, from + size);
      }
    })();
  }

  /** Once the import ends, whether or not it took every record. */
  async close(): Promise<void> {
    await this.making?.stop();
    this.spool.close();
  }
}
