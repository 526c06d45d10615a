// Reads an export document as a stream, so that an import of 100,000 checks
// never holds the whole text or the whole parsed document: each check object
// is handed on as soon as it is complete and then dropped from the document.
// What is left (the header and the projects without their checks) is small.
import { JSONParser } from '@streamparser/json';

/** Where a streamed check sits: projects[project].checks[index]. */
export interface CheckPlace {
  project: number;
  index: number;
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

// The format and version are emitted on their own so that a file that is
// not an export stops the read at once; the root is emitted when complete.
const HEADER_PATHS = ['$.format', '$.version'];
const CHECKS_PATH = '$.projects.*.checks.*';

interface StackEntry {
  key?: string | number;
  value?: unknown;
}

/**
 * Parse the document from `chunks`. Each check is passed to `onCheck` with
 * its place; `onHeader` gets each top-level header field as soon as it is
 * read (so that a wrong format can stop the read early). An error thrown by
 * either callback ends the read and is rethrown as it is.
 */
export async function parseExportStream(
  chunks: AsyncIterable<Buffer | string>,
  onCheck: (raw: unknown, place: CheckPlace) => void,
  onHeader: (field: string, value: unknown) => void,
): Promise<DocumentRest> {
  // keepStack stays on, so that everything but the checks is kept; each
  // check is taken out of its array by hand once handed on (see below).
  const parser = new JSONParser({ paths: [CHECKS_PATH, ...HEADER_PATHS, '$'] });
  let root: Record<string, unknown> | undefined;
  let sawToken = false;
  // The arrays the checks came from, to tell a repeated field (above).
  let projectsList: unknown;
  const checksLists = new Map<number, unknown>();
  const callbackErrors = new WeakSet<object>();
  const rethrowing = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      callbackErrors.add(err as object);
      throw err;
    }
  };

  parser.onToken = () => {
    sawToken = true;
  };
  parser.onValue = ({ value, key, parent, stack }) => {
    const entries = stack as StackEntry[];
    if (entries.length === 0) {
      if (isPlainObject(value)) root = value;
      return;
    }
    if (entries.length === 1) {
      rethrowing(() => onHeader(String(key), value));
      return;
    }
    // projects[i].checks[j], both arrays: stack is [before the root, root, projects, project].
    const projects = entries[2]!;
    if (!Array.isArray(projects.value) || !Array.isArray(parent) || typeof projects.key !== 'number') return;
    const project = projects.key;
    if ((projectsList ?? projects.value) !== projects.value) throw new RepeatedFieldError('projects: given more than once');
    if ((checksLists.get(project) ?? parent) !== parent) throw repeatedChecks(project);
    projectsList = projects.value;
    checksLists.set(project, parent);
    // The parser appended the check to its array when it began; it is the
    // last element. The array stays empty; the parser counts the index itself.
    (parent as unknown[]).pop();
    rethrowing(() => onCheck(value, { project, index: key as number }));
  };

  const fail = (err: unknown): never => {
    if (callbackErrors.has(err as object) || err instanceof RepeatedFieldError || err instanceof InputError || err instanceof NotJsonError) throw err;
    throw new NotJsonError((err as Error).message);
  };
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
      parser.write(next.value);
    }
    if (!sawToken) throw new NotJsonError('the input is empty');
    if (!parser.isEnded) parser.end();
  } catch (err) {
    await input.return?.(); // closes the file when the read stops early
    fail(err);
  }
  // A later "projects" or "checks" that brought no checks of its own.
  if (projectsList !== undefined && root?.projects !== projectsList) throw new RepeatedFieldError('projects: given more than once');
  for (const [project, list] of checksLists) {
    if ((root?.projects as Array<{ checks?: unknown } | undefined>)[project]?.checks !== list) throw repeatedChecks(project);
  }
  return { root };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const repeatedChecks = (project: number) => new RepeatedFieldError(`projects[${project}].checks: given more than once`);
