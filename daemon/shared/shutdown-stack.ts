// What start-up has started, to be undone in reverse: the last thing started
// is the first closed. A failed start and a stop unwind the same stack, so the
// order of teardown is written once, by the order of start-up.

export type Closer = () => void | Promise<unknown>;

export class ShutdownStack {
  private readonly closers: Closer[] = [];

  /** Called once the component is started: from now on, closing undoes it. */
  push(closer: Closer): void {
    this.closers.push(closer);
  }

  /**
   * Run the closers, newest first, each once. A closer that throws ends the
   * unwinding with its error: the ones below it stay (a failed shutdown).
   */
  async close(): Promise<void> {
    for (let closer = this.closers.pop(); closer; closer = this.closers.pop()) await closer();
  }
}
