/**
 * The TypeScript programs the integration tests run as child processes (crash, ownership, fault
 * and supervisor children, through {@link spawnTsx} in crash-harness.ts), bundled ahead of time
 * once per vitest run by child-bundles.global.ts, the way the CLI is (scripts/build-cli.js).
 *
 * Why: started through tsx, a child that loads the runtime spent ~1.8 CPU-s compiling before its
 * first line ran (measured on the CI machine, with tsx's transform cache warm); the fault matrix
 * alone starts 15 of them. A bundled child starts in a tenth of that. The bundles are built from the
 * current sources at the start of every run and used only when the run built them (the env
 * variable below), so a stale bundle never runs.
 *
 * The bundles sit in dist/test-children/, two folders below the repository root like
 * test/support/ and like dist/cli/, so paths the code derives from `import.meta` resolve the same.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

const REPO_ROOT = join(import.meta.dirname, '../..');

/** The children bundled (repository-relative entries). Add a child here when a test spawns a new one through spawnTsx. */
export const CHILD_ENTRIES = [
  'test/support/claim-child.ts',
  'test/support/crash-child.ts',
  'test/support/fault-child.ts',
  'test/support/off-thread-exec-child.ts',
  'test/support/owner-child.ts',
  'test/support/store-open-child.ts',
  'test/support/store-writer-child.ts',
  'test/support/supervised-child.ts',
] as const;

/** Where the bundles go. */
export const CHILD_BUNDLE_DIR = join(REPO_ROOT, 'dist', 'test-children');

/** Set (to {@link CHILD_BUNDLE_DIR}) by the global setup once this run's bundles are built. */
export const CHILD_BUNDLE_ENV = 'FORKLINE_TEST_CHILD_BUNDLES';

/** The bundle name of a child entry: `test/support/fault-child.ts` → `fault-child`. */
export function childBundleName(entry: string): string {
  return basename(entry, '.ts');
}

/**
 * The built bundle of `entry` when this run built one (absolute path of its .js file), else
 * undefined (the caller falls back to tsx: a child not listed in {@link CHILD_ENTRIES}, or a run
 * without the global setup).
 */
export function bundledChild(entry: string): string | undefined {
  const dir = process.env[CHILD_BUNDLE_ENV];
  if (!dir) return undefined;
  const file = join(dir, `${childBundleName(entry)}.js`);
  return existsSync(file) ? file : undefined;
}
