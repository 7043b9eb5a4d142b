/**
 * What the browser tests' harness (e2e-harness.ts) and the run's global setup (e2e-run.global.ts)
 * share: how Chromium starts, and the environment variables through which the setup hands over what it started or built.
 */

/** How the browser tests start Chromium at `executablePath` (here and in e2e-run.global.ts). */
export function chromiumLaunchOptions(executablePath: string): { executablePath: string; headless: true; args: string[] } {
  return {
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  };
}

/**
 * The environment variable through which vitest's global setup (e2e-run.global.ts) hands the
 * test workers the WebSocket address of the one Chromium the whole run shares.
 */
export const CHROMIUM_ENDPOINT_ENV = 'FORKLINE_E2E_CHROMIUM_WS';

/** Set by the global setup to the absolute path of this run's e2e-host bundle (see e2e-host.ts). */
export const E2E_HOST_BUNDLE_ENV = 'FORKLINE_E2E_HOST_BUNDLE';
