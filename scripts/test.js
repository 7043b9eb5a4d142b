#!/usr/bin/env node
// The project's test command (`npm test`): typecheck, lint, the CLI bundle (built from the current
// sources, so the CLI tests never run a stale one), unit + integration tests (vitest), and the
// browser end-to-end tests (vitest + playwright-core + Debian Chromium). Ends with one line
// `N passed, N failed` (typecheck, lint and the CLI build count as one check each).
//
// Three lanes run side by side from the start (the CI machine has 2 cores, and the tests spend
// much of their time waiting on child processes, servers and the browser): lane 1 builds the CLI
// bundle and runs the unit + integration tests (output streamed); lane 2 builds the renderer and
// runs the browser tests; lane 3 runs the three typechecks, the format check and the lint (at nice 10: the other
// lanes are what the run waits for). Lanes 2 and 3 print each
// step's output whole when it ends, so nothing interleaves within a step.
//
// The typechecks use TypeScript 7 (the native compiler, package alias `typescript-native`): the
// same type system and tsconfig files as TypeScript 6, which typescript-eslint still needs, at a
// fifth of the CPU time.
//
// FORKLINE_REBUILD_NATIVE=1 (.ci/run sets it after `npm ci --ignore-scripts`): lanes 1 and 2 first
// wait for `npm rebuild` (the dependencies' install scripts: the native builds of better-sqlite3
// and node-pty, esbuild's check), which runs beside lane 3: the typechecks and the lint load no
// native code and no esbuild.
//
// `node scripts/test.js static|unit|integration|e2e` runs one area alone (the npm scripts
// test:static, test:unit = test/unit only, test:integration = test/integration only, test:e2e),
// with the same closing `N passed, N failed` line.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { findChromium } from './chromium-path.js';

/** coreutils' `nice`, when the machine has it (the static checks run at a lower priority, see staticChecks). */
const NICE = ['/usr/bin/nice', '/bin/nice'].find((p) => existsSync(p));

let passed = 0;
let failed = 0;
const failures = [];
const timings = [];

/**
 * Runs one command. `buffered`: its output is collected and printed whole at the end (for the lane
 * that runs beside the streamed one). Resolves true when it exits 0.
 */
function run(label, cmd, args, { buffered = false, niceness = 0 } = {}) {
  const started = Date.now();
  const header = `\n=== ${label}: ${niceness > 0 ? `nice -n ${niceness} ` : ''}${cmd} ${args.join(' ')}`;
  if (!buffered) console.log(header);
  return new Promise((resolve) => {
    const [file, argv] = niceness > 0 && NICE !== undefined ? [NICE, ['-n', String(niceness), cmd, ...args]] : [cmd, args];
    const child = spawn(file, argv, { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    const chunks = [];
    if (buffered) {
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
    }
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const seconds = (Date.now() - started) / 1000;
      timings.push(`${label}: ${seconds.toFixed(1)} s`);
      if (buffered) {
        const out = Buffer.concat(chunks).toString('utf8').trimEnd();
        console.log(`${header}  (${seconds.toFixed(1)} s)${out ? `\n${out}` : ''}`);
      }
      resolve(code === 0);
    });
  });
}

async function check(label, cmd, args, options) {
  if (await run(label, cmd, args, options)) passed++;
  else {
    failed++;
    failures.push(label);
  }
}

async function vitest(label, config, reportFile, extraArgs = [], { buffered = false } = {}) {
  rmSync(reportFile, { force: true });
  const ok = await run(label, 'npx', ['vitest', 'run', '-c', config, ...extraArgs, '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`], { buffered });
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

/** TypeScript 7's `tsc` (see the note at the top). */
const TSC = 'node_modules/typescript-native/bin/tsc';

/**
 * Typecheck ×3, the formatter's check and lint, one after the other. `niceness` > 0 (the full run): at a lower CPU
 * priority, because nothing waits for them, while the native builds they run beside are what every
 * test waits for (at the same priority, the type-aware lint's two threads made the builds take
 * 200 s instead of 70).
 */
async function staticChecks(buffered, niceness = 0) {
  await check('typecheck', process.execPath, [TSC, '-p', 'tsconfig.node.json'], { buffered, niceness });
  await check('typecheck (renderer)', process.execPath, [TSC, '-p', 'tsconfig.web.json'], { buffered, niceness });
  await check('typecheck (browser tests)', process.execPath, [TSC, '-p', 'tsconfig.e2e.json'], { buffered, niceness });
  // One formatter for the code (.prettierrc.json; `npm run format` applies it). Before the lint: in
  // the full run the short checks take the core the native builds leave free (the SQLite
  // amalgamation compiles on one); after the lint, at nice 10 behind the tests, the 10 s check took 111 s.
  await check('format', 'npx', ['prettier', '--check', '--log-level', 'warn', '.'], { buffered, niceness });
  // Alone, two lint threads (parsing, most of eslint's time, on both cores: 39 s instead of 43 s
  // here). In the full run one: both cores are busy with the tests, and each thread builds its own
  // type-checked program (50 CPU-s with two against 32 with one).
  await check('lint', 'npx', ['eslint', '--max-warnings', '0', '--concurrency', niceness > 0 ? '1' : '2', '.'], { buffered, niceness });
}

/** The CLI bundle (which the integration tests run), then vitest over `paths` (all of vitest.config.ts's include when empty). */
async function vitestTests(label, paths, { cli = true } = {}) {
  if (cli) await check('build CLI bundle', process.execPath, ['scripts/build-cli.js']);
  await vitest(label, 'vitest.config.ts', '.vitest-unit.json', paths);
}

/** undefined when Chromium and the renderer build are there; else the failure already counted. */
function chromiumMissing() {
  const chromium = findChromium();
  if (existsSync('test/e2e') && chromium.path === undefined) {
    // One line instead of a playwright launch error per browser test.
    console.log(`\n=== e2e (chromium): not run — ${chromium.reason}`);
    failed++;
    failures.push(`e2e (chromium): ${chromium.reason}`);
    return true;
  }
  return false;
}

async function buildRenderer(buffered) {
  const ok = await run('build renderer', 'npx', ['vite', 'build', '--logLevel', 'warn'], { buffered });
  if (!ok) {
    failed++;
    failures.push('renderer build');
  }
  return ok;
}

const only = process.argv[2];
const started = Date.now();
if (only === 'static') await staticChecks(false);
else if (only === 'unit') await vitestTests('unit', ['test/unit'], { cli: false });
else if (only === 'integration') await vitestTests('integration', ['test/integration']);
else if (only === 'e2e') {
  if (existsSync('test/e2e') && !chromiumMissing() && (await buildRenderer(false))) await vitest('e2e (chromium)', 'vitest.e2e.config.ts', '.vitest-e2e.json');
} else if (only === undefined) {
  // The native builds, when .ci/run left them to us; the lanes that load native code wait for them.
  const native =
    process.env['FORKLINE_REBUILD_NATIVE'] === '1'
      ? check('native builds (npm rebuild)', 'npm', ['rebuild', '--foreground-scripts'], { buffered: true }).then(() => !failures.includes('native builds (npm rebuild)'))
      : Promise.resolve(true);
  await Promise.all([
    (async () => {
      if (await native) await vitestTests('unit + integration', []);
    })(),
    (async () => {
      if (!existsSync('test/e2e')) return;
      // After the install scripts too: the browser tests' host loads better-sqlite3, and esbuild's
      // install script may rewrite its own files while a build would load them.
      if ((await native) && (await buildRenderer(true)) && !chromiumMissing()) await vitest('e2e (chromium)', 'vitest.e2e.config.ts', '.vitest-e2e.json', [], { buffered: true });
    })(),
    staticChecks(true, 10),
  ]);
} else {
  console.error(`unknown area ${only}: static, unit, integration or e2e`);
  process.exit(2);
}
console.log(`\nTimings (wall, ${((Date.now() - started) / 1000).toFixed(1)} s in all):\n- ${timings.join('\n- ')}`);
if (failures.length > 0) console.log(`\nFailures:\n- ${failures.join('\n- ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
