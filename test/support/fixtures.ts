/**
 * Where the real-data fixtures live: a vendored copy of the team's shared fixtures (provider
 * streams, agent session logs, coding tasks) in test/fixtures, with their sources and licences
 * (test/fixtures/INDEX.md, the NOTES.md of each folder, LICENSES/). Vendored so a clean clone tests the same data.
 */
import { join } from 'node:path';

export const FIXTURES_DIR = join(import.meta.dirname, '..', 'fixtures');
export const PROVIDER_STREAMS = join(FIXTURES_DIR, 'provider-streams');
export const DSH_SESSION_LOGS = join(FIXTURES_DIR, 'agent-session-logs', 'deepseek-harness');
export const CODING_TASKS = join(FIXTURES_DIR, 'coding-tasks');
