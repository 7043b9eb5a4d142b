/**
 * Bundles test-side programs with the CLI's esbuild options (scripts/build-cli.js), unminified so a
 * failing child's stack trace reads: used by the global setups that build the integration tests'
 * children (child-bundles.global.ts) and the browser tests' host (test/e2e/support/e2e-run.global.ts).
 */
import { build } from 'esbuild';
// @ts-expect-error -- plain JavaScript build script without type declarations
import { cliBuildOptions } from '../../scripts/build-cli.js';

/**
 * Builds `entryPoints` (output name → source path) into `outdir` (its chunks in `outdir/chunks`).
 * Throws esbuild's error when a source does not build.
 */
export async function buildTestBundle(entryPoints: Record<string, string>, outdir: string): Promise<void> {
  const options = (cliBuildOptions as (outdir: string) => Record<string, unknown>)(outdir);
  await build({ ...options, entryPoints, minifyWhitespace: false, minifySyntax: false, metafile: false });
}
