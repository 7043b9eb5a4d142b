/**
 * Importing a bundle whose session ids the data folder already holds, through the real CLI
 * (`forkline export --bundle`, `forkline import`; issue 26). By content hash: the same content is
 * "already imported" (nothing written), different content under a taken id gets fresh ids with the
 * bundle's lineage (parent, by-reference prefix, seed length) rewritten consistently.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoredSessions } from '../../../electron/cli/stored-sessions.js';
import { forkline } from '../../support/cli-process.js';
import { AgentLogWriter } from '../../support/store-fixtures.js';
import { derivedHash } from './bundle-support.js';

let base: string;
let home: string;
let root: string;
let fork: string;
let bundle: string;

/** Environment of every CLI run here: no checkpoints folder needed, no provider key. */
const ENV = { FORKLINE_CHECKPOINTS: 'off' };

/** A root of two turns and a fork (by reference) of it with one more turn, in `dataDir`. */
async function buildTree(dataDir: string): Promise<{ root: string; fork: string }> {
  const stored = openStoredSessions(dataDir, {});
  try {
    const live = stored.repository.create({ title: 'travels twice' });
    const w = new AgentLogWriter(live.session);
    w.completedTurn('first prompt', 3);
    w.completedTurn('second prompt', 3);
    const firstEnd = live.session.events.find((e) => e.type === 'turn/end')!.seq;
    await live.release();
    const child = (await stored.repository.fork(live.session.id, firstEnd)).header.id;
    const f = stored.repository.resume(child);
    new AgentLogWriter(f.session).completedTurn('the fork goes on', 2);
    await f.release();
    return { root: live.session.id, fork: child };
  } finally {
    await stored.close();
  }
}

/** Every session of a data folder: id, parent, seed, prefix, origin's bundle record and derived-message hash. */
async function snapshot(dataDir: string) {
  const stored = openStoredSessions(dataDir, {});
  try {
    return stored.repository
      .list()
      .map((r) => {
        const { events } = stored.repository.load(r.header.id);
        const origin = r.header.origin;
        return {
          id: r.header.id,
          parent: r.header.parentSession,
          seedLength: r.header.seedLength,
          prefixFrom: r.prefixFrom,
          events: r.eventCount,
          bundle: origin?.kind === 'imported' ? origin.bundle : undefined,
          derived: derivedHash(events, r.header),
        };
      })
      .sort((a, b) => a.id.localeCompare(b.id));
  } finally {
    await stored.close();
  }
}

async function importCli(dataDir: string): Promise<string> {
  const run = await forkline(['import', bundle], { dataDir, env: ENV });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'forkline-reimport-'));
  home = join(base, 'home-data');
  ({ root, fork } = await buildTree(home));
  bundle = join(base, 'tree.bundle');
  const run = await forkline(['export', root, '--bundle', bundle], { dataDir: home, env: ENV });
  expect(run.code, run.stderr).toBe(0);
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('importing a bundle whose ids are already here', () => {
  it('into the data folder it came from, unchanged: already imported, nothing written', async () => {
    const before = await snapshot(home);
    const out = await importCli(home);
    expect(out).toContain('is already imported');
    expect(out).toContain('nothing changed');
    expect(await snapshot(home)).toEqual(before);
  }, 60_000);

  it('twice into another data folder: the second import is a no-op', async () => {
    const other = join(base, 'other-data');
    const first = await importCli(other);
    expect(first).toContain('imported bundle');
    expect(first).not.toContain('already');
    const afterFirst = await snapshot(other);
    expect(afterFirst.map((s) => s.id)).toEqual([root, fork].sort());
    expect(afterFirst.every((s) => s.bundle !== undefined)).toBe(true);
    const second = await importCli(other);
    expect(second).toContain('is already imported');
    expect(await snapshot(other)).toEqual(afterFirst);
  }, 60_000);

  it('into a folder where the ids hold other content: fresh ids, lineage remapped inside the bundle, said in the output', async () => {
    // The home root goes on after the export: same id, different content.
    const stored = openStoredSessions(home, {});
    const live = stored.repository.resume(root);
    new AgentLogWriter(live.session).completedTurn('a third prompt after the export', 2);
    await live.release();
    await stored.close();
    const before = await snapshot(home);
    const bundleSource = await snapshot(join(base, 'other-data'));

    const out = await importCli(home);
    expect(out).toContain('imported bundle');
    expect(out).toContain(`bundle id ${root}`);
    expect(out).toContain(`bundle id ${fork}`);
    expect(out).toContain('new id');
    const after = await snapshot(home);
    // What was here is untouched.
    for (const s of before) expect(after).toContainEqual(s);
    const added = after.filter((s) => !before.some((b) => b.id === s.id));
    expect(added).toHaveLength(2);
    const newRoot = added.find((s) => s.bundle?.sessionId === root)!;
    const newFork = added.find((s) => s.bundle?.sessionId === fork)!;
    expect(newRoot.id).not.toBe(root);
    expect(newFork.id).not.toBe(fork);
    // The fork reads its history from the new root, not the home root that went on.
    expect(newFork.parent).toBe(newRoot.id);
    expect(newFork.prefixFrom).toBe(newRoot.id);
    expect(newFork.seedLength).toBe(bundleSource.find((s) => s.id === fork)!.seedLength);
    // The model-visible history is the bundle's (as imported elsewhere), not the grown root's.
    expect(newRoot.derived).toBe(bundleSource.find((s) => s.id === root)!.derived);
    expect(newFork.derived).toBe(bundleSource.find((s) => s.id === fork)!.derived);
    expect(newRoot.derived).not.toBe(before.find((s) => s.id === root)!.derived);
    // The output names each session's id here and its parent here.
    expect(out).toContain(`${newFork.id}`);
    expect(out).toMatch(new RegExp(`${newFork.id}\\s+\\d+ events\\s+fork of ${newRoot.id}`));

    // Once more: the renamed copies are recognised by their recorded content hash.
    const again = await importCli(home);
    expect(again).toContain('is already imported');
    expect(await snapshot(home)).toEqual(after);
  }, 90_000);
});
