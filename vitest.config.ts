import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20000,
    hookTimeout: 20000,
    // Daemon processes and ports per file: keep parallelism modest for 2-core CI.
    pool: 'forks',
    maxWorkers: 2,
  },
});
