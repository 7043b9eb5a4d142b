#!/usr/bin/env node
// `npm run pack:dir:offline`: checks the packaged layout (files, asar, unpacked native modules)
// without downloading Electron: builds the app, then runs electron-builder's `dir` target against a
// stub Electron distribution made in a temp folder (STACK.md §6). The result in release/linux-unpacked
// cannot run (the stub is not Electron); it shows what a real package would contain.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const electronVersion = require('electron/package.json').version;

function run(cmd, args) {
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const stub = mkdtempSync(join(tmpdir(), 'forkline-stub-electron-'));
writeFileSync(join(stub, 'electron'), '#!/bin/sh\necho "stub Electron: packaging check only" >&2\nexit 1\n');
chmodSync(join(stub, 'electron'), 0o755);
writeFileSync(join(stub, 'version'), electronVersion);
writeFileSync(join(stub, 'LICENSE'), 'stub');
writeFileSync(join(stub, 'LICENSES.chromium.html'), '<p>stub</p>');
writeFileSync(join(stub, 'chrome-sandbox'), '');
mkdirSync(join(stub, 'resources'));

run('npm', ['run', 'build']);
run('npx', ['electron-builder', '--linux', 'dir', `-c.electronDist=${stub}`, `-c.electronVersion=${electronVersion}`, '-c.npmRebuild=false']);

const asar = require('@electron/asar');
const archive = join('release', 'linux-unpacked', 'resources', 'app.asar');
const files = asar.listPackage(archive);
const need = ['/dist/main/main.js', '/dist/preload/preload.cjs', '/dist/renderer/index.html'];
const missing = need.filter((f) => !files.includes(f));
const unpacked = spawnSync('find', [join('release', 'linux-unpacked', 'resources', 'app.asar.unpacked'), '-name', '*.node'], { encoding: 'utf8' })
  .stdout.trim()
  .split('\n')
  .filter(Boolean);
console.log(`\napp.asar: ${files.length} entries; unpacked native modules:\n  ${unpacked.join('\n  ') || '(none)'}`);
if (missing.length > 0 || !unpacked.some((f) => f.endsWith('better_sqlite3.node')) || !unpacked.some((f) => f.endsWith('pty.node'))) {
  console.error(`packaging check failed: missing ${missing.join(', ') || 'unpacked native modules'}`);
  process.exit(1);
}
console.log('packaging layout OK (the native modules here are Node builds; see README "Packaging").');
