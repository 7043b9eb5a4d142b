#!/usr/bin/env node
// `npm start`: opens the desktop app where the Electron runtime is available; otherwise says so and
// starts browser mode (the same UI and host over a token-protected WebSocket on 127.0.0.1).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function electronBinary() {
  // The electron package resolves (and, on first use, downloads) its binary. Ask in a child
  // process so a failed download's noise stays out of the terminal.
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('electron')))"], { encoding: 'utf8', timeout: 120_000 });
  const path = probe.stdout.trim();
  if (probe.status === 0 && path && existsSync(path)) return { path };
  const fetchFailed = /fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN/.test(probe.stderr);
  return { reason: fetchFailed ? 'its binary could not be downloaded from this machine' : 'the electron package could not provide its binary' };
}

function run(cmd, args) {
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const electron = process.env.FORKLINE_BROWSER_MODE ? { reason: 'FORKLINE_BROWSER_MODE is set' } : electronBinary();
if (electron.path) {
  run('npm', ['run', 'build']);
  const child = spawn(electron.path, ['.'], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(`Forkline: the Electron runtime is not available here (${electron.reason}).`);
  console.log('Starting browser mode instead: open the URL below in your browser.\n');
  if (!existsSync('dist/renderer/index.html')) run('npx', ['vite', 'build', '--logLevel', 'warn']);
  const child = spawn(process.execPath, ['bin/forkline.js', 'serve', ...process.argv.slice(2)], { stdio: 'inherit' });
  const stop = () => child.kill('SIGINT');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}
