import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20000,
    hookTimeout: 20000,
    // Daemon processes and ports per file: keep parallelism modest for 2-core CI.
    pool: 'forks',
    maxWorkers: 2,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: process.env.CHECKD_TEST_REPORT ?? join(tmpdir(), 'checkd-vitest.json') }]],
  },
});
