#!/usr/bin/env node
// `forkline` (`npx forkline …`, `npm run cli -- …`): runs the CLI bundled ahead of time in
// dist/cli/forkline.js (`npm run build:cli`; `npm install` builds it through `prepare`) — plain
// JavaScript, no TypeScript transpiling at run time.
//
// In a development checkout (the TypeScript sources are here) a bundle that is missing or older
// than any source it was built from is rebuilt first, with a note on stderr, so a stale bundle
// never runs. The check stats the ~100 files listed in dist/cli/build-info.json (well under 1 ms).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist', 'cli', 'forkline.js');
const infoFile = join(root, 'dist', 'cli', 'build-info.json');
const devCheckout = existsSync(join(root, 'electron', 'cli.ts'));

/** Why the bundle must be rebuilt, or undefined when it is current. */
function staleReason() {
  if (!existsSync(bundle) || !existsSync(infoFile)) return 'the CLI is not built yet';
  let info;
  try {
    info = JSON.parse(readFileSync(infoFile, 'utf8'));
  } catch {
    return 'the CLI build is damaged';
  }
  for (const file of info.inputs ?? []) {
    let mtime;
    try {
      mtime = statSync(join(root, file)).mtimeMs;
    } catch {
      return `${file} was removed since the CLI was built`;
    }
    if (mtime > info.builtAt) return `${file} changed since the CLI was built`;
  }
  return undefined;
}

if (devCheckout) {
  const reason = staleReason();
  if (reason !== undefined) {
    let buildCli;
    try {
      ({ buildCli } = await import('../scripts/build-cli.js'));
    } catch (error) {
      process.stderr.write(`forkline: ${reason}, and it cannot be built here (${error instanceof Error ? error.message : String(error)}).\nRun npm install (or npm run build:cli) in ${root}.\n`);
      process.exit(2);
    }
    process.stderr.write(`forkline: ${reason}; rebuilding it (npm run build:cli)…\n`);
    await buildCli({ quiet: true });
  }
} else if (!existsSync(bundle)) {
  process.stderr.write(`forkline: ${bundle} is missing; reinstall the package.\n`);
  process.exit(2);
}

await import(pathToFileURL(bundle).href);
