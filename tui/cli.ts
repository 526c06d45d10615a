#!/usr/bin/env node
// `checktop`'s entry: settle the environment, then load the program. Node
// runs the CommonJS modules an ES module imports (React among them) before
// the body of any ES module, so an environment set in an imported module
// would come too late for them: the program is loaded only afterwards.
import { settleEnvironment } from './tty-env.js';

settleEnvironment();
await import('./checktop.js');
