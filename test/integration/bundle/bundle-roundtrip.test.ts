/**
 * Portable bundles (issue 26) on real parts: SQLite data folders, the shadow git repository, files
 * on disk. A session with 3 forks (one a fork of a fork), a compaction and checkpoints is exported
 * with its files, imported into an empty data folder, and compared: derived messages, lineage,
 * checkpoint files; the bundle holds neither the configured key nor the env secret. Then each
 * refusal: newer format, truncated, damaged part, ids and paths that escape, a failure mid-import.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { exportBundle } from '../../../electron/bundle/bundle-export.js';
import { importBundle, isBundleFile, verifyBundle } from '../../../electron/bundle/bundle-import.js';
import { redactionRules } from '../../../electron/cli/bundle-commands.js';
import { openStoredSessions, type StoredSessions } from '../../../electron/cli/stored-sessions.js';
import { recordedHereFrom } from '../../../electron/store/session-provenance.js';
import { WorkspaceCheckpoints } from '../../../electron/workspace/checkpoints.js';
import { AgentLogWriter } from '../../support/store-fixtures.js';
import { buildSourceTree, checkpointFiles, CONFIGURED_KEY, derivedHash, ENV_SECRET, EXPORT_ENV, rewriteBundle, type SourceTree } from './bundle-support.js';

let base: string;
let source: SourceTree;
let bundle: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'forkline-bundle-'));
  source = await buildSourceTree(base);
  bundle = join(base, 'tree.bundle');
  await exportBundle(
    { repository: source.stored.repository, checkpointsGitDir: join(source.dataDir, 'checkpoints.git') },
    { sessionId: source.root, file: bundle, withFiles: true, rules: redactionRules(source.dataDir, EXPORT_ENV, []) },
  );
}, 60_000);

afterAll(async () => {
  await source?.stored.close();
  rmSync(base, { recursive: true, force: true });
});

function emptyTarget(name: string): { stored: StoredSessions; dataDir: string } {
  const dataDir = join(base, name);
  return { stored: openStoredSessions(dataDir, {}), dataDir };
}

function checkpointCommits(events: readonly SessionEvent[]): string[] {
  return events.filter((e): e is SessionEvent<'workspace/checkpoint'> => e.type === 'workspace/checkpoint').map((e) => e.data.commit);
}

async function refusal(file: string, dataDirName: string): Promise<{ error: ForklineError & { part?: string }; target: ReturnType<typeof emptyTarget> }> {
  const target = emptyTarget(dataDirName);
  const error = await importBundle({ repository: target.stored.repository, checkpointsGitDir: join(target.dataDir, 'checkpoints.git') }, file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ForklineError.isInstance(error), `expected a refusal, got ${String(error)}`).toBe(true);
  return { error: error as ForklineError & { part?: string }, target };
}

/** Nothing was imported: no session listed or stored, no checkpoint ref. */
function expectNothingImported(target: ReturnType<typeof emptyTarget>): void {
  expect(target.stored.repository.store.list()).toEqual([]);
  const gitDir = join(target.dataDir, 'checkpoints.git');
  if (existsSync(gitDir)) expect(execFileSync('git', ['--git-dir', gitDir, 'for-each-ref'], { encoding: 'utf8' })).toBe('');
}

describe('bundle round trip', () => {
  it('restores the tree into an empty data folder: derived messages, lineage and checkpoint files identical', async () => {
    const { repository: src } = source.stored;
    expect(await isBundleFile(bundle)).toBe(true);
    const target = emptyTarget('target-data');
    try {
      const result = await importBundle({ repository: target.stored.repository, checkpointsGitDir: join(target.dataDir, 'checkpoints.git') }, bundle);
      const ids = [source.root, ...source.forks];
      expect(result.sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
      const dst = target.stored.repository;
      expect(
        dst
          .list()
          .map((r) => r.header.id)
          .sort(),
      ).toEqual([...ids].sort());
      let checkpointsCompared = 0;
      for (const id of ids) {
        const before = src.load(id);
        const after = dst.load(id);
        expect(after.events.length).toBe(before.events.length);
        expect(derivedHash(after.events, after.record.header)).toBe(derivedHash(before.events, before.record.header));
        // Lineage as stored: parent, seed length and the by-reference prefix.
        expect(after.record.header.parentSession).toBe(before.record.header.parentSession);
        expect(after.record.header.seedLength).toBe(before.record.header.seedLength);
        expect(after.record.prefixFrom).toBe(before.record.prefixFrom);
        // Imports are read-only: nothing in them is trusted to act.
        expect(after.record.header.origin).toMatchObject({ kind: 'imported', format: 'forkline-bundle' });
        expect(recordedHereFrom(dst, id)).toBe(Number.POSITIVE_INFINITY);
        // Checkpoints: the same files (paths, modes, bytes) under the commit ids the imported events name.
        const oldCommits = checkpointCommits(before.events);
        const newCommits = checkpointCommits(after.events);
        expect(newCommits.length).toBe(oldCommits.length);
        oldCommits.forEach((old, i) => {
          expect(checkpointFiles(join(target.dataDir, 'checkpoints.git'), newCommits[i]!)).toEqual(checkpointFiles(join(source.dataDir, 'checkpoints.git'), old));
          checkpointsCompared++;
        });
      }
      expect(checkpointsCompared).toBeGreaterThanOrEqual(4);
      // The compaction travelled: the root's surface starts with the replacement message.
      expect(dst.load(source.root).events.some((e) => e.type === 'compaction/summary')).toBe(true);
      // Every forked session of the tree is there, fork3 under fork1.
      expect(dst.get(source.forks[2]!)!.header.parentSession).toBe(source.forks[0]);
    } finally {
      await target.stored.close();
    }
  });

  it('holds neither the configured key nor the env secret, and its manifest says what was redacted where', () => {
    // The secrets were in the source log (so the grep below can fail).
    const sourceLog = source.stored.repository.exportJsonl(source.root);
    expect(sourceLog).toContain(CONFIGURED_KEY);
    expect(sourceLog).toContain(ENV_SECRET);
    const text = readFileSync(bundle, 'utf8');
    expect(text).not.toContain(CONFIGURED_KEY);
    expect(text).not.toContain(ENV_SECRET);
    const manifest = (JSON.parse(text.split('\n')[1]!) as { manifest: { redactions: { total: number; byKind: Record<string, number>; places: { part: string; pointer: string; kind: string }[] } } })
      .manifest;
    expect(manifest.redactions.byKind['configured-key']).toBeGreaterThanOrEqual(1);
    expect(manifest.redactions.byKind['env-secret']).toBeGreaterThanOrEqual(1);
    expect(manifest.redactions.places).toContainEqual(expect.objectContaining({ part: `session/${source.root}`, pointer: '/data/message', kind: 'configured-key' }));
    expect(manifest.redactions.places).toContainEqual(expect.objectContaining({ part: `session/${source.root}`, pointer: '/data/outputTail', kind: 'env-secret' }));
  });

  it('redacts user-listed strings and secrets in checkpoint files, and the imported history shows the marker where the source had the string', async () => {
    const { repository } = source.stored;
    const live = repository.resume(source.forks[1]!);
    const w = new AgentLogWriter(live.session);
    const prompt = 'my codename is BLUE-HERON and AUTH_TOKEN=abc123456789';
    w.inboxInsert(prompt);
    w.turnStart();
    w.claim();
    w.stepStart();
    w.user(prompt);
    w.assistantMessage(w.stream({ text: ['noted'] }));
    w.stepEnd();
    w.turnEnd();
    writeFileSync(join(source.workspace, '.env'), `DEEPSEEK_API_KEY=${CONFIGURED_KEY}\n`);
    const cp = new WorkspaceCheckpoints(join(source.dataDir, 'checkpoints.git'));
    live.session.append({ type: 'workspace/checkpoint', data: { turn: w.turn, commit: await cp.snapshot(source.workspace, `refs/forkline/${source.forks[1]}`, 'with .env') } });
    await live.release();
    const file = join(base, 'redact.bundle');
    await exportBundle(
      { repository, checkpointsGitDir: join(source.dataDir, 'checkpoints.git') },
      { sessionId: source.forks[1]!, file, withFiles: true, rules: redactionRules(source.dataDir, EXPORT_ENV, ['BLUE-HERON']) },
    );
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('BLUE-HERON');
    expect(text).not.toContain('abc123456789');
    expect(text).not.toContain(CONFIGURED_KEY);
    const places = (JSON.parse(text.split('\n')[1]!) as { manifest: { redactions: { places: { part: string; pointer: string; kind: string }[] } } }).manifest.redactions.places;
    expect(places).toContainEqual(expect.objectContaining({ pointer: '/files/.env', kind: 'configured-key' }));
    expect(places).toContainEqual(expect.objectContaining({ part: `session/${source.forks[1]}`, pointer: '/data/content/0/text', kind: 'user-listed' }));
    const target = emptyTarget('target-redact');
    try {
      await importBundle({ repository: target.stored.repository, checkpointsGitDir: join(target.dataDir, 'checkpoints.git') }, file);
      const events = target.stored.repository.load(source.forks[1]!).events;
      const message = events.findLast((e) => e.type === 'user/message')!;
      expect(JSON.stringify(message.data)).toContain('my codename is [REDACTED:user-listed] and AUTH_TOKEN=[REDACTED:secret-variable]');
      // The checkpoint's .env is there, with the key replaced.
      const commit = events.findLast((e): e is SessionEvent<'workspace/checkpoint'> => e.type === 'workspace/checkpoint')!.data.commit;
      const env = execFileSync('git', ['--git-dir', join(target.dataDir, 'checkpoints.git'), 'cat-file', 'blob', `${commit}:.env`], { encoding: 'utf8' });
      expect(env).toBe('DEEPSEEK_API_KEY=[REDACTED:configured-key]\n');
    } finally {
      await target.stored.close();
    }
  });
});

describe('bundle refusals (nothing half-imported)', () => {
  it('refuses a newer format, before reading anything else', async () => {
    const lines = readFileSync(bundle, 'utf8').split('\n');
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    lines[0] = JSON.stringify({ ...header, forklineBundle: 2 });
    const file = join(base, 'newer.bundle');
    writeFileSync(file, lines.join('\n'));
    const { error, target } = await refusal(file, 'target-newer');
    expect(error.code).toBe('IMPORT_BUNDLE_NEWER_FORMAT');
    expect(error.message).toMatch(/newer than this build reads \(1\)/);
    expectNothingImported(target);
    await target.stored.close();
    const file2 = join(base, 'newer-manifest.bundle');
    rewriteBundle(bundle, file2, (manifest) => (manifest['formatVersion'] = 3));
    const second = await refusal(file2, 'target-newer2');
    expect(second.error.code).toBe('IMPORT_BUNDLE_NEWER_FORMAT');
    await second.target.stored.close();
  });

  it('refuses a truncated file: cut in the middle, or only its last newline missing', async () => {
    const bytes = readFileSync(bundle);
    for (const [name, cut] of [
      ['half', Math.floor(bytes.length / 2)],
      ['newline', bytes.length - 1],
      ['header', 10],
    ] as const) {
      const file = join(base, `truncated-${name}.bundle`);
      writeFileSync(file, bytes.subarray(0, cut));
      const { error, target } = await refusal(file, `target-truncated-${name}`);
      expect(error.code, name).toBe('IMPORT_BUNDLE_TRUNCATED');
      expectNothingImported(target);
      await target.stored.close();
    }
  });

  it('refuses a damaged part, naming it', async () => {
    const text = readFileSync(bundle, 'utf8');
    const lines = text.split('\n');
    // A same-length change inside one of fork3's events.
    const index = lines.findIndex((l) => l.includes('fork of a fork'));
    lines[index] = lines[index]!.replace('fork of a fork', 'fork of a fark');
    const file = join(base, 'damaged.bundle');
    writeFileSync(file, lines.join('\n'));
    const { error, target } = await refusal(file, 'target-damaged');
    expect(error.code).toBe('IMPORT_BUNDLE_DAMAGED');
    expect(error.part).toBe(`session/${source.forks[2]}`);
    expect(error.message).toContain(`session/${source.forks[2]}`);
    expectNothingImported(target);
    await target.stored.close();
    // The manifest itself.
    const m = text.split('\n');
    m[1] = m[1]!.replace('"formatVersion":1', '"formatVersion":1 ');
    writeFileSync(file, m.join('\n'));
    const second = await refusal(file, 'target-damaged-manifest');
    expect(second.error.code).toBe('IMPORT_BUNDLE_DAMAGED');
    expect(second.error.part).toBe('manifest');
    await second.target.stored.close();
  });

  it('refuses a session id or a checkpoint path that would escape the data folder', async () => {
    const file = join(base, 'escape-id.bundle');
    rewriteBundle(bundle, file, (manifest, parts) => {
      const sessions = manifest['sessions'] as { id: string }[];
      const victim = sessions[0]!.id;
      sessions[0]!.id = '../../outside';
      const part = parts.find((p) => p.name === `session/${victim}`)!;
      part.name = 'session/../../outside';
    });
    const first = await refusal(file, 'target-escape-id');
    expect(first.error.code).toBe('IMPORT_BUNDLE_UNSAFE');
    expectNothingImported(first.target);
    await first.target.stored.close();

    const file2 = join(base, 'escape-path.bundle');
    rewriteBundle(bundle, file2, (_manifest, parts) => {
      const part = parts.find((p) => p.name.startsWith('checkpoint/'))!;
      (part.lines[0] as { files: { path: string }[] }).files[0]!.path = '../../outside.txt';
    });
    const second = await refusal(file2, 'target-escape-path');
    expect(second.error.code).toBe('IMPORT_BUNDLE_UNSAFE');
    expect(second.error.message).toContain('../../outside.txt');
    expectNothingImported(second.target);
    await second.target.stored.close();
  });

  it('removes every session it stored when a later one fails: the tree appears whole or not at all', async () => {
    // fork3 claims more inherited events than fork1 holds: the store refuses it after root, fork1 and fork2 were staged.
    const file = join(base, 'midway.bundle');
    rewriteBundle(bundle, file, (manifest, parts) => {
      const sessions = manifest['sessions'] as { id: string; ownFrom: number; eventCount: number; prefixFrom?: string }[];
      const last = sessions.find((s) => s.id === source.forks[2])!;
      const part = parts.find((p) => p.name === `session/${last.id}`)!;
      const shift = 10_000;
      last.ownFrom += shift;
      last.eventCount += shift;
      const head = part.lines[0] as { header: { seedLength: number } };
      head.header.seedLength += shift;
      for (const line of part.lines.slice(1)) (line as { seq: number }).seq += shift;
    });
    await verifyBundle(file);
    const { error, target } = await refusal(file, 'target-midway');
    expect(error.code).toBe('STALE_APPEND');
    expectNothingImported(target);
    await target.stored.close();
  });
});
