import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/support/duration-sequencer.js';

// Browser end-to-end tests: real Chromium (Debian, /usr/bin/chromium) through playwright-core,
// driving the built renderer in browser mode against the real host and the scripted model server.
// Each file starts its own host (temp data folder, port 0) and scripted server, and opens its own
// browser contexts in the run's one Chromium (test/e2e/support/e2e-run.global.ts), so files
// run three at a time (a browser test mostly waits: on the page, the host, the scripted server;
// FORKLINE_E2E_WORKERS overrides it, 1 runs them one after another).
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    pool: 'forks',
    maxWorkers: Number(process.env['FORKLINE_E2E_WORKERS'] ?? 3),
    // Longest recorded file first (test/support/duration-sequencer.ts).
    sequence: { sequencer: DurationSequencer },
    globalSetup: ['test/e2e/support/e2e-run.global.ts'],
    // The main-process bundle that global setup builds is loaded by Node itself, not vitest's module runner.
    server: { deps: { external: [/\/dist\/test-e2e\//] } },
    // Generous: on a loaded 2-core CI machine (beside the unit lane) a browser test can take three
    // times as long as alone; the waits inside the tests are what catch a real hang.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
