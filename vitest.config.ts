import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/support/duration-sequencer.js';

// Unit (test/unit) and integration (test/integration) tests; `npm run test:unit` / `test:integration`
// run one of the two folders. vitest's default on a 2-core machine is one worker (cores - 1), which
// leaves a core idle while the integration tests wait on the child processes they spawn. Four
// workers: alone, two used 1.2 cores (252 CPU-s in 210 s); in the full run beside the browser
// tests three took the lane from 378 s to 300 s, and the whole run still averaged 1.3 of 2 cores
// with three (886 CPU-s in 681 s), so a fourth fills waits. FORKLINE_TEST_WORKERS overrides it
// (e.g. 1 on a busy machine).
//
// Unit files share their worker process (`isolate: false`: one vitest worker runs many files instead
// of a fresh process per file, which halves the unit tests' CPU time: 80 s instead of 169 s). A
// unit file that changes module or global state for its own file — `vi.mock`/`vi.doMock`, stubbed
// globals or env, fake timers, another test environment — or that runs processes (the bash tool
// and its process supervisor keep module-level state; a shared worker hung one of them) is found
// by the scan below and runs isolated.
//
// Integration files share their workers too, unless the scan below finds one that changes module or
// process state (mocks, env, cwd, its own signal handlers, the pty or the process supervisor): for
// the integration area alone that took vitest's summed import time from 55 s to 36 s and the area's
// CPU from 261 to ~240 CPU-s (2026-12-06). A PostgreSQL cluster is then one per worker, shared by
// the team files it runs (test/support/postgres-cluster.ts).

const UNIT = 'test/unit';
/** What changes module or process state for the rest of a file's worker, in unit and integration files alike. */
const STATE_CHANGES = String.raw`\bvi\.(mock|doMock|hoisted|stubGlobal|stubEnv|useFakeTimers)\(|@vitest-environment|process\.chdir\(|node-pty|createBashTool|createBuiltinTools|process-supervisor`;
/** What makes a unit file run in a process of its own: a state change, or running processes at all. */
const OWN_STATE = new RegExp(`${STATE_CHANGES}|child_process`);

/** The `*.test.ts` files under `dir`, recursively. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}
const isolatedUnit = testFiles(join(import.meta.dirname, UNIT))
  .filter((file) => OWN_STATE.test(readFileSync(file, 'utf8')))
  .map((file) => file.slice(import.meta.dirname.length + 1));
const INTEGRATION = 'test/integration';
/** What makes an integration file run in a process of its own (they all run processes): a state change, a `process.env` assignment or signal handlers of its own. */
const INTEGRATION_OWN_STATE = new RegExp(`${STATE_CHANGES}|process\\.env\\[?[^=]*\\]? *=[^=]|process\\.on\\(`);
const isolatedIntegration = testFiles(join(import.meta.dirname, INTEGRATION))
  .filter((file) => INTEGRATION_OWN_STATE.test(readFileSync(file, 'utf8')))
  .map((file) => file.slice(import.meta.dirname.length + 1));

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: Number(process.env['FORKLINE_TEST_WORKERS'] ?? 4),
    // Longest recorded file first across the three projects (test/support/duration-sequencer.ts).
    sequence: { sequencer: DurationSequencer },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { FORKLINE_INVARIANTS: 'enforce' },
    // Bundles the children the integration tests spawn (test/support/child-bundles.ts).
    globalSetup: ['test/support/child-bundles.global.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: [`${UNIT}/**/*.test.ts`], exclude: isolatedUnit, isolate: false } },
      { extends: true, test: { name: 'unit (isolated)', include: isolatedUnit.length > 0 ? isolatedUnit : ['<none>'] } },
      // Integration tests run real CLIs, servers and shells; on a loaded 2-core CI machine one can take
      // three times as long as on a quiet one, so they get 90 s (a hang still fails, later).
      { extends: true, test: { name: 'integration', include: [`${INTEGRATION}/**/*.test.ts`], exclude: isolatedIntegration, isolate: false, testTimeout: 90_000, hookTimeout: 90_000 } },
      { extends: true, test: { name: 'integration (isolated)', include: isolatedIntegration.length > 0 ? isolatedIntegration : ['<none>'], testTimeout: 90_000, hookTimeout: 90_000 } },
    ],
  },
});
