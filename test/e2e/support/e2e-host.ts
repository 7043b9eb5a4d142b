/**
 * What the browser tests' harness takes from the main-process code: the runtime and the browser-mode
 * server. The e2e run's global setup (e2e-run.global.ts) bundles this file with the CLI's
 * esbuild options into dist/test-e2e/e2e-host.js, and the harness loads that bundle natively: through
 * vitest's module runner the ~200 source modules behind it took ~2.5 CPU-s per test file to load
 * (37 files), the bundle ~0.2 s.
 */
export { createRuntime } from '../../../electron/host/runtime.js';
export { startBrowserServer } from '../../../electron/host/transport/ws-server.js';
