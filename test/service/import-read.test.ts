// `checkd import` reads its file as a stream: each check is validated and kept
// as a record as soon as it is complete, and dropped from the document. These
// tests hold the stream to what JSON.parse would make of the same text, over
// any chunking, and to the refusals a stream needs that JSON.parse did not.
import { describe, expect, it } from 'vitest';
import { writeExport } from '../../daemon/ops/transfer.js';
import { ExportValidation, readExport, type ParsedExport } from '../../daemon/ops/import-read.js';
import { ImportChecks } from '../../daemon/ops/import-checks.js';
import type { EncodedCheck } from '../../daemon/store/store.js';
import { encoderOf } from '../../daemon/store/schema.js';
import { closeDb, openDb } from '../../daemon/store/db.js';
import { OpsError } from '../../daemon/ops/errors.js';
import { InputError, NotJsonError, RepeatedFieldError, parseExportStream, type CheckPlace } from '../../daemon/ops/export-parse.js';
import { UsageError } from '../../daemon/cli/admin.js';
import { decodeCheck, openTempStore, plantChecks } from '../helpers/store.js';
import { CHECK_FIELDS, checkFromJson, fromJson, toJson } from '../../daemon/ops/export-fields.js';
import { newCheck } from '../../daemon/domain/check-input.js';
import type { CheckRecord } from '../../daemon/domain/types.js';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);


async function* inPieces(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Stream `chunks` through the validation, as readExport does. */
async function read(chunks: AsyncIterable<Buffer | string>): Promise<ParsedExport> {
  const validation = new ExportValidation();
  const rest = await parseExportStream(
    chunks,
    (raw, place) => validation.check(raw, place),
    (field, value) => validation.headerField(field, value),
  );
  return validation.finish(rest);
}

const readText = (text: string, size = 1 << 16) => read(inPieces(text, size));

/** The error `promise` rejects with, failing the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/** A real export: two projects (one with a channel and schedules), one empty. */
async function exportDocument(): Promise<string> {
  const { store } = openTempStore('checkd-import-read-');
  const a = (await store.createProject({ name: 'a', checkLimit: 100, pingLogLimit: 100 }, T0)).project;
  await store.createProject({ name: 'b', checkLimit: 10, pingLogLimit: 100 }, T0 + 1);
  const hook = await store.createChannel({ projectId: a.id, kind: 'webhook', name: 'hook', value: 'http://127.0.0.1:9/x' }, T0);
  await plantChecks(store, a.id, 40, {
    createdAt: T0,
    shape: (c, i) => {
      c.name = `job "é${i}"\n`; // escapes and a two-byte character: split anywhere by the chunks
      if (i % 3 === 0) Object.assign(c, { kind: 'cron', schedule: '*/5 * * * *', tz: 'Europe/Riga' });
      if (i % 4 === 0) c.channels = [hook.id];
    },
  });
  const pieces: string[] = [];
  writeExport(store, (t) => pieces.push(t), T0);
  return pieces.join('');
}

describe('reading an export as a stream', () => {
  it('makes the same records over any chunking, one byte at a time included', async () => {
    const text = await exportDocument();
    const doc = JSON.parse(text);
    const whole = await readText(text, text.length);
    expect(whole.projects.map((p) => p.project.name)).toEqual(['a', 'b']);
    expect(whole.projects[0]!.checks.map((c) => c.uuid)).toEqual(doc.projects[0].checks.map((c: { uuid: string }) => c.uuid));
    const check = whole.projects[0]!.checks[3]!;
    expect(check).toMatchObject({ projectId: doc.projects[0].id, name: 'job "é3"\n', kind: 'cron', tz: 'Europe/Riga', everStarted: false });
    expect(whole.projects[0]!.checks[4]!.channels).toEqual([doc.projects[0].channels[0].id]);
    expect(whole.projects[0]!.apiKeys).toHaveLength(2);
    expect(whole.projects[1]!.checks).toEqual([]);
    for (const size of [1, 7, 4096]) expect(await readText(text, size), `chunks of ${size}`).toEqual(whole);
  });

  it('hands each check on by its place and where its text is, and drops it from the document', async () => {
    const doc = JSON.parse(await exportDocument());
    const places: CheckPlace[] = [];
    const bytes = Buffer.from(JSON.stringify(doc, null, 2));
    const rest = await parseExportStream(
      inPieces(bytes.toString(), 100),
      (raw, place, span) => {
        places.push(place);
        expect(JSON.parse(bytes.toString('utf8', span.offset, span.offset + span.length))).toEqual(raw);
        expect(JSON.parse(span.bytes.toString())).toEqual(raw);
      },
      () => undefined,
    );
    expect(places).toHaveLength(40);
    expect(places[0]).toEqual({ project: 0, index: 0 });
    expect(places[39]).toEqual({ project: 0, index: 39 });
    const kept = rest.root!.projects as Array<Record<string, unknown>>;
    expect(kept.map((p) => p.checks)).toEqual([[], []]);
    expect(kept[0]!.channels).toEqual(doc.projects[0].channels);
    expect(rest.root!.badge_secret).toBe(doc.badge_secret);
  });

  it('finds the end of checks whose strings hold closing braces, a few or more than it tries', async () => {
    const doc = JSON.parse(await exportDocument());
    doc.projects[0].checks[0].desc = 'run ${HOME}/x';
    doc.projects[0].checks[1].desc = '}'.repeat(12) + '{}';
    doc.projects[0].checks[2].tags = '}';
    doc.projects[0].checks[2].desc = '"}"';
    const text = JSON.stringify(doc, null, 2);
    const spans: Array<{ raw: unknown; text: string }> = [];
    await parseExportStream(
      inPieces(text, 1 << 16),
      (raw, _place, span) => spans.push({ raw, text: span.bytes.toString() }),
      () => undefined,
    );
    expect(spans.map((s) => s.raw)).toEqual(doc.projects.flatMap((p: { checks: unknown[] }) => p.checks));
    for (const { raw, text: own } of spans) expect(JSON.parse(own)).toEqual(raw);
    const parsed = await readText(text);
    expect(parsed.projects[0]!.checks.slice(0, 3).map((c) => c.desc)).toEqual(['run ${HOME}/x', '}'.repeat(12) + '{}', '"}"']);
  });

  it("validates a check's channels against its project even when the project's fields come after its checks", async () => {
    const doc = JSON.parse(await exportDocument());
    const { checks, ...fields } = doc.projects[0];
    doc.projects[0] = { checks, ...fields }; // checks first: the project id and channels are not known yet
    const parsed = await readText(JSON.stringify(doc), 64);
    expect(parsed.projects[0]!.checks.every((c) => c.projectId === fields.id)).toBe(true);
    doc.projects[1].checks = [{ ...checks[0], uuid: crypto.randomUUID(), badge_key: crypto.randomUUID() }];
    const err = await rejection(readText(JSON.stringify(doc)));
    expect(err.message).toContain(`projects[1].checks[0].channels: channel ${fields.channels[0].id} is not a channel of this project`);
  });

  it('reports problems by path, each project with its own checks, and nothing is kept', async () => {
    const doc = JSON.parse(await exportDocument());
    doc.projects[0].checks[2].timeout = 'soon';
    doc.projects[0].check_limit = -1;
    doc.projects[0].checks[5].uuid = doc.projects[0].checks[1].uuid;
    const err = await rejection(readText(JSON.stringify(doc)));
    expect(err).toBeInstanceOf(UsageError);
    const lines = err.message.split('\n').slice(1).map((l) => l.trim());
    expect(lines).toEqual([
      'projects[0].check_limit: expected a whole number from 0 to 1000000',
      'projects[0].checks[2].timeout: expected a whole number from 60 to 31536000',
      `projects[0].checks[5].uuid: duplicate check uuid ${doc.projects[0].checks[1].uuid} (also at projects[0].checks[1].uuid)`,
    ]);
  });

  it('names every repeat of a check id with the first check that had it', async () => {
    const doc = JSON.parse(await exportDocument());
    const key = doc.projects[0].checks[3].badge_key;
    doc.projects[0].checks[20].badge_key = key;
    doc.projects[0].checks[9].badge_key = key;
    const err = await rejection(readText(JSON.stringify(doc)));
    const lines = err.message.split('\n').slice(1).map((l) => l.trim());
    expect(lines).toEqual([
      `projects[0].checks[9].badge_key: duplicate check badge key ${key} (also at projects[0].checks[3].badge_key)`,
      `projects[0].checks[20].badge_key: duplicate check badge key ${key} (also at projects[0].checks[3].badge_key)`,
    ]);
  });

  it('refuses "projects" or "checks" given twice, which JSON.parse would have read as the last one', async () => {
    const doc = JSON.parse(await exportDocument());
    const body = JSON.stringify(doc).slice(1, -1);
    const [first, second] = doc.projects.map((p: object) => JSON.stringify(p).slice(0, -1));
    const withProjects = (projects: string) => `{${body.replace(/"projects":.*$/, `"projects":[${projects}]`)}}`;
    const cases: Array<[string, string]> = [
      [`{${body},"projects":[]}`, 'projects: given more than once'],
      [`{${body},"projects":${JSON.stringify(doc.projects)}}`, 'projects: given more than once'],
      [withProjects(`${first},"checks":[]},${second}}`), 'projects[0].checks: given more than once'],
      [withProjects(`${first},"checks":[${JSON.stringify(doc.projects[0].checks[0])}]},${second}}`), 'projects[0].checks: given more than once'],
    ];
    for (const [text, message] of cases) {
      expect(() => JSON.parse(text), message).not.toThrow();
      const err = await rejection(readText(text));
      expect(err, message).toBeInstanceOf(RepeatedFieldError);
      expect(err.message).toBe(message);
    }
    // A repeated field that hands on no checks twice is read as JSON.parse reads it.
    const emptyFirst = withProjects(`${first.replace('"checks":[', '"checks":[],"checks":[')}},${second}}`);
    expect((await readText(emptyFirst)).projects[0]!.checks).toHaveLength(40);
  });

  it('refuses what is not one JSON object, and checks outside of arrays', async () => {
    const doc = JSON.parse(await exportDocument());
    const text = JSON.stringify(doc);
    expect(await rejection(readText(''))).toBeInstanceOf(NotJsonError);
    expect(await rejection(readText('  \n'))).toBeInstanceOf(NotJsonError);
    expect(await rejection(readText(text.slice(0, -5)))).toBeInstanceOf(NotJsonError);
    expect(await rejection(readText(`${text} {}`))).toBeInstanceOf(NotJsonError);
    await expect(readText(`\n${text}\n\n`)).resolves.toBeTruthy(); // blanks around it are fine
    expect((await rejection(readText('[]'))).message).toBe('not a checkd export: expected a JSON object');
    expect((await rejection(readText('"checkd-export"'))).message).toBe('not a checkd export: expected a JSON object');
    expect((await rejection(readText('{}'))).message).toBe('not a checkd export: "format" must be "checkd-export"');
    // A project list given as an object: its checks are not read as checks.
    const handed: CheckPlace[] = [];
    const objectShaped = { ...doc, projects: { first: doc.projects[0] } };
    const validation = new ExportValidation();
    const rest = await parseExportStream(inPieces(JSON.stringify(objectShaped), 512), (_r, place) => handed.push(place), () => undefined);
    expect(handed).toEqual([]);
    expect(() => validation.finish(rest)).toThrow('projects: expected an array');
  });

  it('stops reading at a wrong format or version, before the rest of the file', async () => {
    for (const [head, message] of <Array<[string, string]>>[
      ['{"format":"healthchecks",', '"format" must be "checkd-export"'],
      ['{"format":"checkd-export","version":2,', 'unsupported export version 2'],
    ]) {
      let pulledRest = false;
      const chunks = (async function* () {
        yield Buffer.from(head);
        pulledRest = true;
        yield Buffer.from('"projects":[]}');
      })();
      expect((await rejection(read(chunks))).message).toContain(message);
      expect(pulledRest, message).toBe(false);
    }
  });

  it('agrees with JSON.parse on mangled documents: the same content, or a refusal where JSON.parse refuses', async () => {
    const doc = JSON.parse(await exportDocument());
    doc.projects[0].checks = doc.projects[0].checks.slice(0, 3);
    doc.projects[0].checks.push(7, 'x', [1, { a: '[' }], null); // elements that are no check are handed on too
    doc.projects[1].checks = [{ note: 'a "quoted" \\ back\\slash ] } [ {' }];
    const base = JSON.stringify(doc, null, 1);
    // The separators between checks, which the scanner checks itself.
    const note = JSON.stringify(doc.projects[1].checks[0]);
    const compact = JSON.stringify(doc);
    for (const [checks, ok] of <Array<[string, boolean]>>[
      [`[${note},]`, false],
      [`[,${note}]`, false],
      [`[${note},,${note}]`, false],
      [`[${note}${note}]`, false],
      [`[${note} 1]`, false],
      [`[,]`, false],
      [`[ ${note} ,\n${note}\t]`, true],
      [`[ ]`, true],
    ]) {
      const text = compact.replace(`[${note}]`, checks);
      const got = await parseExportStream(inPieces(text, 5), () => undefined, () => undefined).catch((err: Error) => err);
      expect(got instanceof NotJsonError, checks).toBe(!ok);
    }
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const bytes = '{}[],:"\\ 0ae-';
    // Mostly where the structure is: at a bracket, comma, colon, quote or backslash.
    const structural = [...base].flatMap((ch, i) => ('{}[],:"\\'.includes(ch) ? [i] : []));
    for (let round = 0; round < 1500; round++) {
      const at = random(4) === 0 ? random(base.length) : structural[random(structural.length)]!;
      const b = bytes[random(bytes.length)]!;
      const op = random(3);
      const text = op === 0 ? base.slice(0, at) + base.slice(at + 1) : base.slice(0, at) + b + base.slice(at + (op === 1 ? 0 : 1));
      let expected: unknown;
      try {
        expected = JSON.parse(text);
      } catch {
        expected = undefined;
      }
      const handed: Array<[unknown, CheckPlace]> = [];
      let got: Awaited<ReturnType<typeof parseExportStream>> | Error;
      try {
        got = await parseExportStream(inPieces(text, 1 + random(64)), (raw, place) => handed.push([raw, place]), () => undefined);
      } catch (err) {
        got = err as Error;
      }
      const what = `round ${round}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`;
      if (expected === undefined) {
        expect(got, what).toBeInstanceOf(NotJsonError);
        continue;
      }
      expect(got, what).not.toBeInstanceOf(Error);
      const rest = got as Awaited<ReturnType<typeof parseExportStream>>;
      const isObject = typeof expected === 'object' && expected !== null && !Array.isArray(expected);
      if (!isObject) {
        expect(rest.root, what).toBeUndefined();
        continue;
      }
      for (const [raw, { project, index }] of handed) ((rest.root!.projects as any[])[project].checks as unknown[])[index] = raw;
      expect(rest.root, what).toEqual(expected);
    }
  });

  it('builds a check record as the field table says, optional fields included', () => {
    const full = {
      ...toJson(newCheck({ uuid: crypto.randomUUID(), badgeKey: crypto.randomUUID(), projectId: '', createdAt: T0 }), CHECK_FIELDS),
      channels: [crypto.randomUUID()],
      max_duration: 600,
      failure_tolerance: 3,
      consecutive_failures: 1,
      muted_until: T0 + 1,
      depends_on: crypto.randomUUID(),
    };
    const bare = toJson(newCheck({ uuid: crypto.randomUUID(), badgeKey: crypto.randomUUID(), projectId: '', createdAt: T0 }), CHECK_FIELDS);
    for (const raw of [full, bare]) {
      const generic = fromJson<CheckRecord>(raw, CHECK_FIELDS, { projectId: 'p', everStarted: false });
      const built = checkFromJson(raw, 'p');
      expect(built).toEqual(generic);
      expect(Object.keys(built)).toEqual(Object.keys(generic)); // the same order: the same msgpack structure
      expect(built.channels).not.toBe(raw.channels);
    }
    expect(Object.keys(checkFromJson(full, 'p'))).toEqual(['projectId', 'everStarted', ...Object.keys(CHECK_FIELDS)]);
  });

  it('keeps of each check its keys, and hands back each record in uuid order from a spool it leaves no trace of', async () => {
    const doc = JSON.parse(await exportDocument()) as { projects: Array<{ checks: Array<Record<string, unknown>> }> };
    // One check too large for a spool file's buffer.
    doc.projects[0]!.checks[3]!.desc = 'd'.repeat(100_000);
    const file = join(tempDir('checkd-import-checks-'), 'export.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const spoolDir = tempDir('checkd-import-spool-');
    const checks = new ImportChecks(spoolDir);
    const dir = tempDir('checkd-import-db-');
    const db = openDb(dir);
    try {
      // The spool's files are unlinked once open: a killed import leaves nothing.
      expect(readdirSync(spoolDir)).toEqual([]);
      const parsed = await readExport(file, { keepChecks: true, also: checks.add });
      checks.setProjects(parsed.projects.map((p) => p.project.id));
      const records = parsed.projects.flatMap((p) => p.checks);
      expect(checks.count).toBe(40);
      records.forEach((record, n) => {
        expect(checks.uuid[n]).toBe(record.uuid);
        expect(checks.projectId[n]).toBe(record.projectId);
        expect(checks.createdAt[n]).toBe(record.createdAt);
      });
      // The createdAt the store gives each check is the one its record gets.
      const created = Float64Array.from(records, (r, n) => r.createdAt + n + 1);
      const encoder = encoderOf(db.checks);
      const parts: EncodedCheck[][] = [];
      for await (const part of checks.records({ dataDir: dir, encode: (c) => encoder.encode(c) }, created, 3)) parts.push(part);
      expect(parts.every((p) => p.length <= 3)).toBe(true);
      const back = parts.flat();
      expect(back.map(({ uuid }) => uuid)).toEqual(records.map((r) => r.uuid).sort());
      for (const { n, uuid, record } of back) {
        expect(uuid).toBe(records[n]!.uuid);
        expect(decodeCheck(db, record)).toEqual({ ...records[n], createdAt: created[n] });
      }
      expect(decodeCheck(db, back.find(({ n }) => n === 3)!.record).desc).toHaveLength(100_000);
    } finally {
      await checks.close();
      await closeDb(db);
    }
  });

  it('says where the spool could not be made', () => {
    const missing = join(tempDir('checkd-import-spool-'), 'gone');
    expect(() => new ImportChecks(missing)).toThrow(OpsError);
    expect(() => new ImportChecks(missing)).toThrow(`cannot make the import's spool in ${missing}`);
  });

  it('tells a failed read from bad content', async () => {
    const failing = (async function* () {
      yield Buffer.from('{"format":"checkd-export",');
      throw new Error('EIO: i/o error, read');
    })();
    const err = await rejection(read(failing));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe('EIO: i/o error, read');
  });
});
