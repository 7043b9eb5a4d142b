import { defineConfig } from 'vitest/config';

// Unit (test/unit) and integration (test/integration) tests; `npm run test:unit` / `test:integration`
// run one of the two folders. vitest's default on a 2-core machine is one worker (cores - 1), which
// leaves a core idle while the integration tests wait on the child processes they spawn; two
// workers keep both busy. FORKLINE_TEST_WORKERS overrides it (e.g. 1 on a busy machine).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: Number(process.env['FORKLINE_TEST_WORKERS'] ?? 2),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { FORKLINE_INVARIANTS: 'enforce' },
  },
});
