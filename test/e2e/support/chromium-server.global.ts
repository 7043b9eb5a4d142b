/**
 * vitest global setup of the browser tests (vitest.e2e.config.ts): starts the run's one Chromium
 * (playwright-core's `launchServer`, with the harness's launch options) and hands its WebSocket
 * address to the test workers through the environment ({@link CHROMIUM_ENDPOINT_ENV}); each test
 * file connects to it once and opens its own browser contexts (cookies, storage and viewport of
 * their own, closed by the app that opened them), so no state passes between files. Closed after
 * the run. Without Chromium it starts nothing: each file then fails with the harness's one-line reason.
 */
import { chromium } from 'playwright-core';
import { findChromium } from '../../../scripts/chromium-path.js';
import { CHROMIUM_ENDPOINT_ENV, chromiumLaunchOptions } from './chromium-launch.js';

export default async function setup(): Promise<() => Promise<void>> {
  const found = findChromium();
  if (found.path === undefined) return async () => {};
  const server = await chromium.launchServer(chromiumLaunchOptions(found.path));
  process.env[CHROMIUM_ENDPOINT_ENV] = server.wsEndpoint();
  return async () => {
    delete process.env[CHROMIUM_ENDPOINT_ENV];
    await server.close();
  };
}
