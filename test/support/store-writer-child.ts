/**
 * A second Forkline instance for the two-process store test (run with `node --import tsx`). It opens
 * its own SqliteSessionStore on the same file and writes while the test process writes too.
 * Control: the parent creates files in <controlDir>; the child reports on stdout, one line each.
 *
 * Usage: store-writer-child.ts <dbFile> <controlDir> <raceMs>
 *   ready                       store opened
 *   busy {startedAt, finishedAt} after `lock-held` appears: writes `appending`, then one append while
 *                               the parent holds the write lock
 *   race {appended, stale, own} after `race` appears: hammer the shared session for raceMs, and
 *                               on until one of its appends won
 *   once {from}                 after `once` appears: one batch to the shared session
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';
import { raceOnce, titleBatch } from './store-writer-shared.js';

async function waitFor(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 2));
}

async function main(): Promise<void> {
  const [file, control, raceMsText] = process.argv.slice(2) as [string, string, string];
  const store = new SqliteSessionStore(file);
  const say = (tag: string, value: unknown = {}) => process.stdout.write(`${tag} ${JSON.stringify(value)}\n`);
  say('ready');

  await waitFor(join(control, 'lock-held'));
  const next = store.get('child-own')!.eventCount;
  writeFileSync(join(control, 'appending'), '1');
  const startedAt = Date.now();
  store.append('child-own', titleBatch('child', next, 1, 0));
  const finishedAt = Date.now();
  say('busy', { startedAt, finishedAt, ms: finishedAt - startedAt, ok: true });

  await waitFor(join(control, 'race'));
  const until = performance.now() + Number(raceMsText);
  const giveUp = performance.now() + 30_000;
  let appended = 0;
  let stale = 0;
  let own = 0;
  // For the window, and on until one append won (a loaded machine can give the other side every lock in the window).
  for (let round = 1; (performance.now() < until || appended === 0) && performance.now() < giveUp; round++) {
    if (raceOnce(store, 'child', round) === 'ok') appended++;
    else stale++;
    store.append('child-own', titleBatch('child', store.get('child-own')!.eventCount, 1, round));
    own++;
    await new Promise((r) => setTimeout(r, 1));
  }
  say('race', { appended, stale, own });

  await waitFor(join(control, 'once'));
  const from = store.get('shared')!.eventCount;
  store.append('shared', titleBatch('child-once', from, 3, 0));
  say('once', { from });
  store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
