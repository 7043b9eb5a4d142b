// Where the browser end-to-end tests (and the UI benchmark) find Chromium. playwright-core ships no
// browser, and this project never downloads one: it uses the Chromium or Chrome already installed.
import { accessSync, constants } from 'node:fs';

/**
 * Usual install locations, in the order they are tried after `CHROMIUM_PATH`: Debian/Ubuntu
 * packages and snaps, Google's Linux packages, then the macOS application bundles.
 */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** The one line that says what to install when no browser is found. */
export const CHROMIUM_INSTALL_HINT =
  'the browser tests need Chromium or Chrome and none was found; install it (Debian/Ubuntu: apt-get install chromium; macOS: brew install --cask chromium) or set CHROMIUM_PATH to its executable';

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium executable to launch: `env.CHROMIUM_PATH` when set (even when it does not exist, so a
 * wrong setting is reported rather than silently replaced), else the first executable candidate.
 * @param {{ env?: Record<string, string | undefined>, candidates?: readonly string[] }} [options]
 * @returns {{ path: string } | { path: undefined, reason: string }}
 */
export function findChromium(options = {}) {
  const env = options.env ?? process.env;
  const fromEnv = env['CHROMIUM_PATH'];
  if (fromEnv !== undefined && fromEnv !== '') {
    return isExecutable(fromEnv) ? { path: fromEnv } : { path: undefined, reason: `CHROMIUM_PATH=${fromEnv} is not an executable file` };
  }
  for (const candidate of options.candidates ?? CHROMIUM_CANDIDATES) {
    if (isExecutable(candidate)) return { path: candidate };
  }
  return { path: undefined, reason: CHROMIUM_INSTALL_HINT };
}
