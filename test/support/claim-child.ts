/**
 * A Forkline process racing another one to claim the same sessions (run with `node --import tsx`).
 * Usage: claim-child.ts <dbFile> <name> <startAtEpochMs> <count> <quitFile>
 * Session i is claimed (`SessionRepository.resume`) at startAt + 20 ms × i, at the same instant as
 * the other process does. Prints `claims {"won":[i…],"live":[i…],"other":[msg…]}`, then holds every
 * session it won (so the loser keeps seeing a live owner) until <quitFile> exists.
 */
import { existsSync } from 'node:fs';
import { ForklineError } from '../../shared/errors.js';
import { SessionRepository } from '../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';

const SLOT_MS = 20;
const [file, name, at, count, quit] = process.argv.slice(2) as [string, string, string, string, string];
const store = new SqliteSessionStore(file);
const repository = new SessionRepository(store, { newId: () => `${name}-unused`, writeWindowMs: 5 });
const won: number[] = [];
const live: number[] = [];
const other: string[] = [];
for (let i = 0; i < Number(count); i++) {
  while (Date.now() < Number(at) + i * SLOT_MS) {
    // spin until session i's agreed instant
  }
  try {
    repository.resume(`race-${i}`);
    won.push(i);
  } catch (error) {
    if (ForklineError.isInstance(error) && error.code === 'SESSION_LIVE') live.push(i);
    else other.push(`${i}: ${String(error)}`);
  }
}
process.stdout.write(`claims ${JSON.stringify({ won, live, other })}\n`);
while (!existsSync(quit)) await new Promise((r) => setTimeout(r, 20));
await repository.releaseAll();
store.close();
