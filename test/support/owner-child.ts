/**
 * A running Forkline that holds one session live (run with `node --import tsx`), for the
 * take-over test. Usage: owner-child.ts <dbFile> <sessionId> <controlDir>
 *   prints `holding {"pid":N}` once it owns the session;
 *   after <controlDir>/append exists: appends one event, flushes, prints `append {"code":…}`
 *   (the error code, or "ok"); then releases and exits.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ForklineError } from '../../shared/errors.js';
import { SessionRepository } from '../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';

const [file, id, control] = process.argv.slice(2) as [string, string, string];
const store = new SqliteSessionStore(file);
const repository = new SessionRepository(store, { newId: () => 'unused', writeWindowMs: 5 });
const live = repository.resume(id);
await live.flush();
process.stdout.write(`holding ${JSON.stringify({ pid: process.pid })}\n`);
while (!existsSync(join(control, 'append'))) await new Promise((r) => setTimeout(r, 10));
live.session.append({ type: 'session/title', data: { title: 'written by the old owner' } });
let code = 'ok';
try {
  await live.flush();
} catch (error) {
  code = ForklineError.isInstance(error) ? error.code : String(error);
}
process.stdout.write(`append ${JSON.stringify({ code })}\n`);
await live.release();
store.close();
