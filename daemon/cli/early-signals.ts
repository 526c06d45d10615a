// SIGTERM and SIGINT held from the entry's first line until `serve` takes them.
// Loading the program (commander, pino, lmdb-js...) takes ~0.1 s, and a signal in
// that time would otherwise end the process by the signal itself (exit 143)
// instead of a clean shutdown with exit 0 (contract.md).

let held: NodeJS.Signals | null = null;
let deliver: ((signal: NodeJS.Signals) => void) | null = null;

const onSignal = (signal: NodeJS.Signals): void => {
  if (deliver) deliver(signal);
  else held ??= signal;
};

export function holdSignals(): void {
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * From now on signals go to `handler`. Returns the signal that came while they
 * were held, if any. Holds them first if the entry did not (a test importing
 * the program directly).
 */
export function takeSignals(handler: (signal: NodeJS.Signals) => void): NodeJS.Signals | null {
  if (!process.listeners('SIGTERM').includes(onSignal)) holdSignals();
  deliver = handler;
  return held;
}
