#!/usr/bin/env node
// `checkd`'s entry. For `serve`, the signals are held before anything else loads
// (early-signals.ts); only then is the program imported and run.
import { holdSignals } from './cli/early-signals.js';

if (process.argv[2] === 'serve') holdSignals();
const { main } = await import('./cli/program.js');
await main(process.argv);
