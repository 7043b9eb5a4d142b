/**
 * vitest global setup of the browser tests (vitest.e2e.config.ts), once per run. It bundles the
 * main-process code the harness uses (e2e-host.ts) and hands its path over ({@link E2E_HOST_BUNDLE_ENV}),
 * and it starts the run's one Chromium
 * (playwright-core's `launchServer`, with the harness's launch options) and hands its WebSocket
 * address to the test workers through the environment ({@link CHROMIUM_ENDPOINT_ENV}); each test
 * file connects to it once and opens its own browser contexts (cookies, storage and viewport of
 * their own, closed by the app that opened them), so no state passes between files. Closed after
 * the run. Without Chromium it starts nothing: each file then fails with the harness's one-line reason.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { findChromium } from '../../../scripts/chromium-path.js';
import { buildTestBundle } from '../../support/test-bundle-build.js';
import { CHROMIUM_ENDPOINT_ENV, E2E_HOST_BUNDLE_ENV, chromiumLaunchOptions } from './chromium-launch.js';

/** Where the e2e-host bundle goes: two folders below the repository root, like dist/cli/, so paths derived from `import.meta` resolve the same. */
const HOST_BUNDLE_DIR = join(import.meta.dirname, '../../../dist/test-e2e');

export default async function setup(): Promise<() => Promise<void>> {
  // A folder of this run's own (runs of two checkouts never share it), built from the current sources.
  const outdir = join(HOST_BUNDLE_DIR, String(process.pid));
  rmSync(outdir, { recursive: true, force: true });
  await buildTestBundle({ 'e2e-host': join(import.meta.dirname, 'e2e-host.ts') }, outdir);
  process.env[E2E_HOST_BUNDLE_ENV] = join(outdir, 'e2e-host.js');
  const removeBundle = (): void => {
    delete process.env[E2E_HOST_BUNDLE_ENV];
    rmSync(outdir, { recursive: true, force: true });
  };
  const found = findChromium();
  if (found.path === undefined) return async () => removeBundle();
  const server = await chromium.launchServer(chromiumLaunchOptions(found.path));
  process.env[CHROMIUM_ENDPOINT_ENV] = server.wsEndpoint();
  return async () => {
    delete process.env[CHROMIUM_ENDPOINT_ENV];
    await server.close();
    removeBundle();
  };
}
