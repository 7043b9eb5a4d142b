#!/usr/bin/env node
// `npm run build:cli` (also run by `npm install` through `prepare`, and by `npm test` first):
// bundles the CLI — electron/cli.ts and everything it imports — ahead of time with esbuild into
// dist/cli/forkline.js, so `forkline` runs plain JavaScript and never transpiles TypeScript at run
// time. Native modules (better-sqlite3, node-pty) stay in node_modules. Modules the CLI loads with
// `import()` (the agent, model client, tools, MCP) are split into their own chunks, so commands that
// do not need them (`ls`, `show`, `help`) neither parse nor run them.
//
// dist/cli/build-info.json lists the source files that went in; bin/forkline.js compares their
// times with the build's to notice a stale bundle in a development checkout.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const outDir = join(root, 'dist', 'cli');
// Build next to the target and swap in at the end, so a concurrent `forkline` never sees half a bundle.
const tmpDir = join(root, 'dist', `cli.tmp-${process.pid}`);

/**
 * The esbuild options of the CLI bundle, writing to `outdir` (also used by the test that checks
 * what `forkline ls` loads: test/integration/cli/ls-module-graph.test.ts).
 */
export function cliBuildOptions(outdir) {
  return {
    absWorkingDir: root,
    entryPoints: { forkline: 'electron/cli.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    external: ['better-sqlite3', 'node-pty', 'electron', 'bufferutil', 'utf-8-validate', 'pg-native'],
    // Bundled CommonJS packages call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __forklineCreateRequire } from 'node:module'; const require = __forklineCreateRequire(import.meta.url);" },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  };
}

export async function buildCli({ quiet = false } = {}) {
  const started = Date.now();
  const { build } = await import('esbuild');
  rmSync(tmpDir, { recursive: true, force: true });
  const result = await build(cliBuildOptions(tmpDir));
  const inputs = Object.keys(result.metafile.inputs)
    .filter((p) => !p.includes('node_modules/'))
    .map((p) => relative(root, join(root, p)))
    .sort();
  writeFileSync(join(tmpDir, 'build-info.json'), `${JSON.stringify({ builtAt: started, inputs: [...inputs, 'package.json', 'package-lock.json'] }, null, 1)}\n`);
  mkdirSync(join(root, 'dist'), { recursive: true });
  const old = join(root, 'dist', `cli.old-${process.pid}`);
  try {
    renameSync(outDir, old);
  } catch {
    // no previous build
  }
  try {
    renameSync(tmpDir, outDir);
  } catch (error) {
    // Another build finished first (same sources, same result): keep it.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    rmSync(tmpDir, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  if (!quiet) console.log(`built dist/cli/forkline.js from ${inputs.length} source files in ${Date.now() - started} ms`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    await buildCli();
  } catch (error) {
    // `npm install --omit=dev` has no esbuild: a package installed that way ships dist/cli already.
    if (process.argv.includes('--if-possible') && error?.code === 'ERR_MODULE_NOT_FOUND') {
      console.log('esbuild is not installed (dev dependency); skipping the CLI build');
    } else throw error;
  }
}
