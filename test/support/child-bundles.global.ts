/**
 * vitest global setup (vitest.config.ts): bundles the test children listed in child-bundles.ts
 * from the current sources with the CLI's esbuild options, into dist/test-children/ (built beside
 * it and swapped in, so a concurrent run never sees half a build), and tells the test workers
 * where they are through the environment. Takes well under a second.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHILD_BUNDLE_DIR, CHILD_BUNDLE_ENV, CHILD_ENTRIES, childBundleName } from './child-bundles.js';
import { buildTestBundle } from './test-bundle-build.js';

export default async function setup(): Promise<void> {
  const tmp = `${CHILD_BUNDLE_DIR}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await buildTestBundle(Object.fromEntries(CHILD_ENTRIES.map((entry) => [childBundleName(entry), entry])), tmp);
  mkdirSync(join(CHILD_BUNDLE_DIR, '..'), { recursive: true });
  const old = `${CHILD_BUNDLE_DIR}.old-${process.pid}`;
  try {
    renameSync(CHILD_BUNDLE_DIR, old);
  } catch {
    // no earlier build
  }
  try {
    renameSync(tmp, CHILD_BUNDLE_DIR);
  } catch (error) {
    // Another run swapped its build in first (same sources): use that one.
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  process.env[CHILD_BUNDLE_ENV] = CHILD_BUNDLE_DIR;
}
