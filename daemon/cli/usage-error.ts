// A bad argument to a `checkd` command: the program prints its message and
// exits with code 2, having written nothing.
export class UsageError extends Error {}
