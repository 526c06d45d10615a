// Failures of the operations commands (backup, export, import) that are not
// bad arguments: a clear one-line message on stderr and exit code 1.
// Bad arguments and bad input files are UsageError (exit code 2, admin.ts).

export class OpsError extends Error {}

/** Wrap a command action: an OpsError becomes `checkd: message` and exit code 1. */
export function opsAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      if (err instanceof OpsError) {
        process.stderr.write(`checkd: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  };
}
