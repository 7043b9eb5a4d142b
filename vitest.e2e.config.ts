import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: real Chromium (Debian, /usr/bin/chromium) through playwright-core,
// driving the built renderer in browser mode against the real host and the scripted model server.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
