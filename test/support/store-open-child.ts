/**
 * Opens many fresh store files at a given wall-clock instant, as a second Forkline instance
 * starting at the same time as another would (run with `node --import tsx`).
 * Usage: store-open-child.ts <dir> <name> <startAtEpochMs> <count> (file i is opened at start + 25 ms × i)
 * Prints `opened {"failures":[...]}`; each file gets a session named `<name>-<i>`.
 */
import { join } from 'node:path';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';

const [dir, name, at, count] = process.argv.slice(2) as [string, string, string, string];
const failures: string[] = [];
const SLOT_MS = 25;
for (let i = 0; i < Number(count); i++) {
  while (Date.now() < Number(at) + i * SLOT_MS) {
    // spin until file i's agreed instant, so both processes open each fresh file together
  }
  try {
    const store = new SqliteSessionStore(join(dir, `fresh-${i}.db`));
    try {
      store.createSession({ version: 0, id: `${name}-${i}`, createdAt: 0 }, []);
    } finally {
      store.close();
    }
  } catch (error) {
    failures.push(`${i}: ${String(error)}`);
  }
}
process.stdout.write(`opened ${JSON.stringify({ failures })}\n`);
