#!/usr/bin/env node
// The project's test command (`npm test`): typecheck, lint, the CLI bundle (built from the current
// sources, so the CLI tests never run a stale one), unit + integration tests (vitest), then the
// browser end-to-end tests (vitest + playwright-core + Debian Chromium). Ends with one line
// `N passed, N failed` (typecheck, lint and the CLI build count as one check each).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { findChromium } from './chromium-path.js';

let passed = 0;
let failed = 0;
const failures = [];

function run(label, cmd, args) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  return result.status === 0;
}

function check(label, cmd, args) {
  if (run(label, cmd, args)) passed++;
  else {
    failed++;
    failures.push(label);
  }
}

function vitest(label, config, reportFile) {
  rmSync(reportFile, { force: true });
  const ok = run(label, 'npx', ['vitest', 'run', '-c', config, '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`]);
  if (!existsSync(reportFile)) {
    failed++;
    failures.push(`${label} (no report)`);
    return;
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A suite that fails to load has no failed tests but must still fail the run.
  const broken = (report.testResults ?? []).filter((r) => r.status === 'failed' && (r.assertionResults ?? []).every((a) => a.status !== 'failed'));
  failed += broken.length;
  for (const r of broken) failures.push(`${label}: ${r.name} failed to run`);
  if (!ok && report.numFailedTests === 0 && broken.length === 0) {
    failed++;
    failures.push(`${label} (vitest exited non-zero)`);
  }
  if (report.numFailedTests > 0) failures.push(`${label}: ${report.numFailedTests} failed`);
}

const only = process.argv[2];
if (!only || only === 'static') {
  check('typecheck', 'npx', ['tsc', '-p', 'tsconfig.node.json']);
  check('typecheck (renderer)', 'npx', ['tsc', '-p', 'tsconfig.web.json']);
  check('typecheck (browser tests)', 'npx', ['tsc', '-p', 'tsconfig.e2e.json']);
  check('lint', 'npx', ['eslint', '--max-warnings', '0', '.']);
}
if (!only || only === 'unit') {
  check('build CLI bundle', process.execPath, ['scripts/build-cli.js']);
  vitest('unit + integration', 'vitest.config.ts', '.vitest-unit.json');
}
if (!only || only === 'e2e') {
  const chromium = findChromium();
  if (existsSync('test/e2e') && chromium.path === undefined) {
    // One line instead of a playwright launch error per browser test.
    console.log(`\n=== e2e (chromium): not run — ${chromium.reason}`);
    failed++;
    failures.push(`e2e (chromium): ${chromium.reason}`);
  } else if (existsSync('test/e2e') && run('build renderer', 'npx', ['vite', 'build', '--logLevel', 'warn'])) {
    vitest('e2e (chromium)', 'vitest.e2e.config.ts', '.vitest-e2e.json');
  } else if (existsSync('test/e2e')) {
    failed++;
    failures.push('renderer build');
  }
}
if (failures.length > 0) console.log(`\nFailures:\n- ${failures.join('\n- ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
