// Reads an export document as a stream, so that a large import
// never holds the whole text or the whole parsed document: each check is
// handed on as soon as it is complete and left out of the document. What is
// left (the header and the projects without their checks) is small.
//
// A general JSON tokenizer in JavaScript is far too slow for a large import
// (docs/performance.md), so the scanner below only follows the document's
// structure (strings, brackets, the keys of the top-level object and of each
// project) to find where each check begins and ends (for most checks, by
// trying JSON.parse at the next closing braces instead), and leaves the parsing
// itself to JSON.parse: each check's text is parsed on its own, and the rest of the
// document, with every checks array left empty, once at the end. JSON.parse
// checks all of the syntax but the separators between the checks, which the
// scanner checks itself.

/** Where a streamed check sits: projects[project].checks[index]. */
export interface CheckPlace {
  project: number;
  index: number;
}

/** Where a check's text is in the input (its first byte and its length in bytes), and the text. */
export interface CheckSpan {
  offset: number;
  length: number;
  /** The text's bytes: a view of the input, valid only during the call it is handed to. */
  bytes: Buffer;
}

/** The document once every check was handed on: checks arrays are left empty. */
export interface DocumentRest {
  /** The top-level object, or undefined if the document is not an object. */
  root: Record<string, unknown> | undefined;
}

/** Thrown for text that is not one JSON document. */
export class NotJsonError extends Error {}

/** Thrown when the input itself could not be read (not about its content). */
export class InputError extends Error {}

/**
 * Thrown for a document that gives "projects", or a project's "checks", more
 * than once. JSON.parse would keep the last; a stream has already handed on
 * the checks of the first, so the document is refused instead.
 */
export class RepeatedFieldError extends Error {}

/** Top-level fields handed to `onHeader` as soon as they are read, so that a file that is not an export stops the read at once. */
const HEADER_FIELDS = new Set(['format', 'version']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** What a container of the document is to the scanner. */
const enum Role {
  Other,
  /** The top-level object. */
  Root,
  /** The array of the top-level "projects". */
  Projects,
  /** An object element of it. */
  Project,
  /** The array of a project's "checks". */
  Checks,
}

/** In a checks array: what may come next. */
const enum Sep {
  /** Just after `[`: a check or `]`. */
  First,
  /** After `,`: a check. */
  Value,
  /** After a check: `,` or `]`. */
  After,
}

/** What the scanner is capturing the text of. */
const enum Capture {
  None,
  /** A key of the top-level object or of a project (it stays in the rest). */
  Key,
  /** The value of a header field (it stays in the rest). */
  Header,
  /** A check (it is left out of the rest). */
  Check,
}

/** "}" tried as a check's end before the byte-by-byte scan takes over. */
const CLOSE_TRIES = 4;

const isBlank = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDelimiter = (c: number) => isBlank(c) || c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === COLON || c === QUOTE || c === OPEN_ARRAY || c === OPEN_OBJECT;

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // JSON.parse counts positions in the piece it was given, not in the file.
    throw new NotJsonError(`${(err as Error).message.replace(/ (at|in JSON at) position \d+.*$/s, '')} (${where})`);
  }
}

/** The structure scanner behind parseExportStream, fed a chunk at a time. */
class ExportScanner {
  /** Roles of the open containers, outermost first, and whether each is an object. */
  private readonly roles: Role[] = [];
  private readonly objects: boolean[] = [];
  private sawToken = false;
  private rootDone = false;
  private inString = false;
  /** Inside a string: the next byte is escaped. */
  private escaped = false;
  private inScalar = false;
  /** Inside a check that is an object or an array: its open brackets (0: not inside one). */
  private elementDepth = 0;

  // The top-level object and the project being read: whether a key comes next, and the last key.
  private rootExpectsKey = false;
  private rootKey = '';
  private projectExpectsKey = false;
  private projectKey = '';

  /** The current "projects" array: its elements so far, and whether it handed on a check. */
  private projectCount = 0;
  /** The index of the element of "projects" that began last. */
  private projectStart = 0;
  private projectsHanded = false;
  /** The project being read (its index) and whether its current "checks" handed on a check. */
  private project = -1;
  private checksHanded = false;
  /** The current checks array: its elements so far and what may come next. */
  private checkCount = 0;
  private sep = Sep.First;

  private capture = Capture.None;
  /** The container depth the captured value started at. */
  private captureDepth = 0;
  /** Pieces of the captured text from earlier chunks, and where it starts in this one. */
  private capturePieces: Buffer[] = [];
  private captureFrom = 0;
  /** Where the captured text starts in the input. */
  private captureOffset = 0;
  /** Bytes of the input before the current chunk. */
  private base = 0;
  /** A header field whose value is to be captured next. */
  private pendingHeader: string | null = null;

  /** The rest of the document: pieces copied out, and where the current run starts in this chunk (-1: not copying). */
  private readonly rest: Buffer[] = [];
  private restFrom = 0;

  constructor(
    private readonly onCheck: (raw: unknown, place: CheckPlace, span: CheckSpan) => void,
    private readonly onHeader: (field: string, value: unknown) => void,
  ) {}

  write(buf: Buffer): void {
    const len = buf.length;
    this.restFrom = this.restFrom === -1 ? -1 : 0;
    this.captureFrom = 0;
    let i = 0;
    while (i < len) {
      if (this.inString) {
        i = this.elementDepth > 0 ? this.skipStringIn(buf, i) : this.skipString(buf, i);
        continue;
      }
      if (this.elementDepth > 0) {
        i = this.skipElement(buf, i);
        continue;
      }
      const c = buf[i]!;
      if (this.inScalar) {
        if (!isDelimiter(c)) {
          i++;
          continue;
        }
        this.inScalar = false;
        this.valueEnded(buf, i);
      }
      if (isBlank(c)) {
        i++;
        continue;
      }
      this.sawToken = true;
      if (this.rootDone) throw new NotJsonError('more text after the document');
      const top = this.roles.length - 1;
      const role = top >= 0 ? this.roles[top]! : Role.Other;
      if (role === Role.Checks && this.capture !== Capture.Check) {
        // Between checks: only the separators, and the start of the next check.
        if (c === CLOSE_ARRAY) {
          if (this.sep === Sep.Value) throw new NotJsonError(`a comma before "]" (projects[${this.project}].checks)`);
          this.restFrom = i;
          this.close(buf, i, c);
          i++;
          continue;
        }
        if (c === COMMA) {
          if (this.sep !== Sep.After) throw new NotJsonError(`a comma out of place (projects[${this.project}].checks)`);
          this.sep = Sep.Value;
          i++;
          continue;
        }
        if (this.sep === Sep.After) throw new NotJsonError(`a missing comma between checks (projects[${this.project}].checks[${this.checkCount}])`);
        this.startCapture(Capture.Check, i);
      } else if (this.pendingHeader !== null && this.capture === Capture.None && c !== COLON) {
        this.startCapture(Capture.Header, i);
      } else if (role === Role.Projects && c !== COMMA && c !== CLOSE_ARRAY) {
        // An element of "projects" begins (an object is a project; anything else only counts).
        this.projectStart = this.projectCount++;
      }
      switch (c) {
        case QUOTE:
          if (this.capture === Capture.None && this.expectsKey(role)) this.startCapture(Capture.Key, i);
          this.inString = true;
          i = this.skipString(buf, i + 1);
          continue;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          if (this.capture === Capture.Check) {
            const end = c === OPEN_OBJECT ? this.objectCheckEnd(buf, i) : -1;
            if (end !== -1) {
              i = end;
              continue;
            }
            // A check's own brackets are only counted (JSON.parse checks them).
            this.elementDepth = 1;
            i = this.skipElement(buf, i + 1);
            continue;
          }
          this.open(c === OPEN_OBJECT, role, buf, i);
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.close(buf, i, c);
          break;
        case COMMA:
          if (role === Role.Root) this.rootExpectsKey = true;
          else if (role === Role.Project) this.projectExpectsKey = true;
          break;
        case COLON:
          break;
        default:
          this.inScalar = true;
      }
      i++;
    }
    if (this.restFrom !== -1 && this.restFrom < len) this.rest.push(Buffer.from(buf.subarray(this.restFrom, len)));
    if (this.capture !== Capture.None && this.captureFrom < len) this.capturePieces.push(buf.subarray(this.captureFrom, len));
    this.base += len;
  }

  end(): DocumentRest {
    if (this.inScalar) {
      this.inScalar = false;
      this.valueEnded(Buffer.alloc(0), 0);
    }
    if (!this.sawToken) throw new NotJsonError('the input is empty');
    if (this.inString || this.roles.length > 0) throw new NotJsonError('the document ends too early');
    const root = parseJson(Buffer.concat(this.rest).toString('utf8'), 'outside the checks');
    return { root: typeof root === 'object' && root !== null && !Array.isArray(root) ? (root as Record<string, unknown>) : undefined };
  }

  private expectsKey(role: Role): boolean {
    return (role === Role.Root && this.rootExpectsKey) || (role === Role.Project && this.projectExpectsKey);
  }

  /**
   * A check that is an object and starts at `i`, when it ends in this chunk:
   * just past its end, once it is handed on; else -1, and the byte-by-byte
   * scan takes over. Its end is the first "}" up to which the text parses:
   * a prefix of the text that parses as an object ends at the brace matching
   * its first, the same one as in the whole text. A "}" in a string only
   * costs a failed parse, and a few of them hand the check to the scan.
   */
  private objectCheckEnd(buf: Buffer, i: number): number {
    let close = i;
    for (let tries = 0; tries < CLOSE_TRIES; tries++) {
      close = buf.indexOf(CLOSE_OBJECT, close + 1);
      if (close === -1) return -1;
      let raw: unknown;
      try {
        raw = JSON.parse(buf.toString('utf8', i, close + 1));
      } catch {
        continue;
      }
      this.checkEnded(buf, close + 1, raw);
      return close + 1;
    }
    return -1;
  }

  /**
   * From `i` inside a check that is an object or an array: where scanning goes
   * on (after the check, or the end of the chunk). The hot loop of the
   * scanner: most of an export's bytes are inside checks.
   */
  private skipElement(buf: Buffer, i: number): number {
    const len = buf.length;
    let depth = this.elementDepth;
    while (i < len) {
      const c = buf[i]!;
      if (c === QUOTE) {
        this.inString = true;
        i = this.skipStringIn(buf, i + 1);
        if (this.inString) break;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) {
        this.elementDepth = 0;
        this.valueEnded(buf, i + 1);
        return i + 1;
      }
      i++;
    }
    this.elementDepth = depth;
    return len;
  }

  /** skipString for a string inside a check: nothing to do at its end. */
  private skipStringIn(buf: Buffer, i: number): number {
    const end = this.stringEnd(buf, i);
    if (end === -1) return buf.length;
    this.inString = false;
    return end;
  }

  /** From `i` inside a string: where scanning goes on (after its closing quote, or the end of the chunk). */
  private skipString(buf: Buffer, i: number): number {
    const end = this.stringEnd(buf, i);
    if (end === -1) return buf.length;
    this.inString = false;
    this.stringEnded(buf, end);
    return end;
  }

  /**
   * Just past the closing quote of the string `i` is in, or -1 when it goes on
   * in the next chunk. Byte by byte: an export's strings are short, and
   * Buffer.indexOf costs more per call than a short loop.
   */
  private stringEnd(buf: Buffer, i: number): number {
    const len = buf.length;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    while (i < len) {
      const c = buf[i]!;
      if (c === QUOTE) return i + 1;
      if (c !== BACKSLASH) i++;
      else if (i + 1 < len) i += 2;
      else {
        this.escaped = true;
        return -1;
      }
    }
    return -1;
  }

  private stringEnded(buf: Buffer, end: number): void {
    if (this.capture === Capture.Key) {
      const key = parseJson(this.takeCapture(buf, end), 'a key') as string;
      if (this.roles.length === 1) this.rootKeyRead(key);
      else this.projectKeyRead(key);
      return;
    }
    this.valueEnded(buf, end);
  }

  private rootKeyRead(key: string): void {
    this.rootExpectsKey = false;
    this.rootKey = key;
    if (key === 'projects' && this.projectsHanded) throw new RepeatedFieldError('projects: given more than once');
    if (HEADER_FIELDS.has(key)) this.pendingHeader = key;
  }

  private projectKeyRead(key: string): void {
    this.projectExpectsKey = false;
    this.projectKey = key;
    if (key === 'checks' && this.checksHanded) throw repeatedChecks(this.project);
  }

  /** A value (string, scalar or container) ended just before `end`: a captured header value or check is complete. */
  private valueEnded(buf: Buffer, end: number): void {
    if (this.capture === Capture.None || this.roles.length !== this.captureDepth) return;
    if (this.capture === Capture.Header) {
      const field = this.pendingHeader!;
      this.pendingHeader = null;
      this.onHeader(field, parseJson(this.takeCapture(buf, end), `the value of "${field}"`));
      return;
    }
    this.checkEnded(buf, end);
  }

  /** The check being captured ended just before `end`; `raw` is its text parsed, when it is already. */
  private checkEnded(buf: Buffer, end: number, raw?: unknown): void {
    const place = { project: this.project, index: this.checkCount };
    const bytes = this.takeCaptureBytes(buf, end);
    const span = { offset: this.captureOffset, length: this.base + end - this.captureOffset, bytes };
    if (raw === undefined) raw = parseJson(bytes.toString('utf8'), `projects[${place.project}].checks[${place.index}]`);
    this.checkCount++;
    this.sep = Sep.After;
    this.checksHanded = true;
    this.projectsHanded = true;
    this.onCheck(raw, place, span);
  }

  private startCapture(what: Capture, i: number): void {
    this.capture = what;
    this.captureDepth = this.roles.length;
    this.captureFrom = i;
    this.captureOffset = this.base + i;
    this.capturePieces = [];
  }

  /** The captured text up to `end` of this chunk; capturing stops. */
  private takeCapture(buf: Buffer, end: number): string {
    return this.takeCaptureBytes(buf, end).toString('utf8');
  }

  /** takeCapture's bytes: a view of `buf` when the text is all in it. */
  private takeCaptureBytes(buf: Buffer, end: number): Buffer {
    const from = this.captureFrom;
    const pieces = this.capturePieces;
    this.capture = Capture.None;
    this.capturePieces = [];
    if (pieces.length === 0) return buf.subarray(from, end);
    pieces.push(buf.subarray(from, end));
    return Buffer.concat(pieces);
  }

  private open(isObject: boolean, parent: Role, buf: Buffer, i: number): void {
    // (A check that is an object or an array never comes here: skipElement counts its brackets.)
    let role = Role.Other;
    if (this.roles.length === 0) role = isObject ? Role.Root : Role.Other;
    else if (parent === Role.Root && !isObject && this.rootKey === 'projects') role = Role.Projects;
    else if (parent === Role.Projects && isObject) role = Role.Project;
    else if (parent === Role.Project && !isObject && this.projectKey === 'checks') role = Role.Checks;
    this.roles.push(role);
    this.objects.push(isObject);
    switch (role) {
      case Role.Root:
        this.rootExpectsKey = true;
        break;
      case Role.Projects:
        this.projectCount = 0;
        this.projectsHanded = false;
        break;
      case Role.Project:
        this.project = this.projectStart;
        this.projectExpectsKey = true;
        this.projectKey = '';
        this.checksHanded = false;
        break;
      case Role.Checks:
        this.checkCount = 0;
        this.sep = Sep.First;
        this.checksHanded = false;
        // The rest keeps the "[" and, later, the "]": the checks array is left empty.
        if (this.restFrom !== -1) this.rest.push(Buffer.from(buf.subarray(this.restFrom, i + 1)));
        this.restFrom = -1;
        break;
    }
  }

  private close(buf: Buffer, i: number, c: number): void {
    const isObject = this.objects.pop();
    this.roles.pop();
    if (isObject === undefined || isObject !== (c === CLOSE_OBJECT)) throw new NotJsonError(`an unexpected "${String.fromCharCode(c)}"`);
    if (this.roles.length === 0) this.rootDone = true;
    // A header value captured whole, or a check that is an object or an array.
    this.valueEnded(buf, i + 1);
  }
}

/**
 * Parse the document from `chunks`. Each check is passed to `onCheck` with
 * its place and where its text is in the input; `onHeader` gets each
 * top-level header field as soon as it is read (so that a wrong format can
 * stop the read early). An error thrown by either callback ends the read and
 * is rethrown as it is.
 */
export async function parseExportStream(
  chunks: AsyncIterable<Buffer | string>,
  onCheck: (raw: unknown, place: CheckPlace, span: CheckSpan) => void,
  onHeader: (field: string, value: unknown) => void,
): Promise<DocumentRest> {
  const scanner = new ExportScanner(onCheck, onHeader);
  const input = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Buffer | string>;
      try {
        next = await input.next();
      } catch (err) {
        throw new InputError((err as Error).message);
      }
      if (next.done) break;
      scanner.write(typeof next.value === 'string' ? Buffer.from(next.value) : next.value);
    }
    return scanner.end();
  } catch (err) {
    await input.return?.(); // closes the file when the read stops early
    throw err;
  }
}

const repeatedChecks = (project: number) => new RepeatedFieldError(`projects[${project}].checks: given more than once`);
