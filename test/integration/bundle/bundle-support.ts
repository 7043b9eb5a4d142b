/**
 * Builders for the bundle tests: a real data folder (SQLite store, shadow git repository) holding a
 * session with compaction, checkpoints and a tree of forks, written the way the agent writes
 * (AgentLogWriter), plus helpers that read what a test compares (derived-message hashes,
 * checkpoint files through plain git) and rewrite a bundle with valid hashes (to build hostile ones).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '../../../shared/events.js';
import { openStoredSessions, type StoredSessions } from '../../../electron/cli/stored-sessions.js';
import { Session } from '../../../electron/session/session.js';
import { WorkspaceCheckpoints } from '../../../electron/workspace/checkpoints.js';
import { AgentLogWriter } from '../../support/store-fixtures.js';

export const CONFIGURED_KEY = 'sk-configured-3f9a1c7e5b2d4086';
export const ENV_SECRET = 'tok-env-secret-77c41e0b9a';
/** The environment the export sees: a provider key (the configured key) and a secret-looking variable. */
export const EXPORT_ENV = { DEEPSEEK_API_KEY: CONFIGURED_KEY, MY_SERVICE_TOKEN: ENV_SECRET, PATH: process.env['PATH'] ?? '' };

/** The source tree: the root and its forks (fork3 is a fork of fork1), and the workspace folder. */
export interface SourceTree {
  readonly stored: StoredSessions;
  readonly dataDir: string;
  readonly workspace: string;
  readonly root: string;
  readonly forks: readonly string[];
}

function checkpoint(session: Session, turn: number, commit: string): void {
  session.append({ type: 'workspace/checkpoint', data: { turn, commit } });
}

/** Secrets in places the model never sees: a warning's text, a check's output, an endpoint URL. */
function leakSecrets(session: Session, w: AgentLogWriter): void {
  w.inboxInsert('why did it fail?');
  w.turnStart();
  w.claim();
  w.stepStart();
  w.user('why did it fail?');
  session.append({
    type: 'llm/warning',
    data: {
      turn: w.turn,
      step: w.step,
      code: 'PROMPT_TRUNCATED',
      message: `request sent with Authorization: Bearer ${CONFIGURED_KEY}`,
      estimatedPromptTokens: 10,
      reportedPromptTokens: 9,
      contextWindow: 100,
    },
  });
  w.assistantMessage(w.stream({ text: ['it ', 'did not'] }));
  w.stepEnd();
  w.turnEnd();
  session.append({
    type: 'check/result',
    data: { purpose: 'check', turn: w.turn, command: 'npm test', exitCode: 0, timedOut: false, durationMs: 5, passed: true, outputTail: `env: MY_SERVICE_TOKEN=${ENV_SECRET}\nok\n` },
  });
}

/** A compaction transaction replacing the first two surface nodes (as the agent writes it). */
function compact(session: Session): void {
  const [first, second] = session.surface;
  session.append({ type: 'compaction/start', data: { compactionId: 'c1', turn: null } });
  const summary = session.append({
    type: 'compaction/summary',
    data: {
      compactionId: 'c1',
      summary: [{ type: 'text', text: 'summary of the start' }],
      shadowedRange: { start: first!, end: second! },
      shadowedSeqs: [first!, second!],
      shadowedTokenCount: 40,
      provider: 'deepseek',
      model: 'deepseek-chat',
    },
  });
  session.append({
    type: 'user/message',
    data: { id: 'compaction-c1', role: 'user', content: [{ type: 'text', text: 'Summary of earlier work.' }], source: { kind: 'compaction', compactionId: 'c1' } },
    surfaceOp: { op: 'replace', start: first!, end: second! },
    sourceEventSeqs: [summary.seq, first!, second!],
  });
  session.append({ type: 'compaction/end', data: { compactionId: 'c1', turn: null } });
}

/**
 * Root with 3 turns (checkpoint after each, a compaction after turn 2, secrets in log-only events),
 * fork1 at turn 1 (+1 turn, a checkpoint), fork2 at turn 3, fork3 of fork1 at its turn 2 (+1 turn).
 */
export async function buildSourceTree(base: string): Promise<SourceTree> {
  const dataDir = join(base, 'source-data');
  const workspace = join(base, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  const stored = openStoredSessions(dataDir, {});
  const { repository } = stored;
  const cp = new WorkspaceCheckpoints(join(dataDir, 'checkpoints.git'));
  const live = repository.create({ cwd: workspace, title: 'bundle source' });
  const root = live.session.id;
  const w = new AgentLogWriter(live.session);
  const turnEnds: number[] = [];
  for (let turn = 1; turn <= 3; turn++) {
    writeFileSync(join(workspace, 'src', `${turn}.ts`), `export const n = ${turn};\n`);
    if (turn === 2) writeFileSync(join(workspace, 'bin.dat'), Buffer.from([0, 1, 2, 255, 254]));
    w.completedTurn(`prompt ${turn}`, 5);
    if (turn === 2) leakSecrets(live.session, w);
    checkpoint(live.session, turn, await cp.snapshot(workspace, `refs/forkline/${root}`, `turn ${turn}`));
    if (turn === 2) compact(live.session);
    turnEnds.push(live.session.events.findLast((e) => e.type === 'turn/end')!.seq);
  }
  await live.release();
  const fork1 = (await repository.fork(root, turnEnds[0])).header.id;
  const fork2 = (await repository.fork(root, turnEnds[2])).header.id;
  const f1 = repository.resume(fork1);
  const w1 = new AgentLogWriter(f1.session);
  writeFileSync(join(workspace, 'src', 'fork1.ts'), 'export const fork = 1;\n');
  w1.completedTurn('fork one goes on', 4);
  checkpoint(f1.session, w1.turn, await cp.snapshot(workspace, `refs/forkline/${fork1}`, 'fork1'));
  await f1.release();
  const fork1End = repository.load(fork1).events.findLast((e) => e.type === 'turn/end')!.seq;
  const fork3 = (await repository.fork(fork1, fork1End)).header.id;
  const f3 = repository.resume(fork3);
  new AgentLogWriter(f3.session).completedTurn('fork of a fork', 3);
  await f3.release();
  return { stored, dataDir, workspace, root, forks: [fork1, fork2, fork3] };
}

/** SHA-256 of the provider messages a session's log folds into (deriveMessages of the surface). */
export function derivedHash(events: readonly SessionEvent[], header: Session['header']): string {
  const session = new Session({ header, seed: events, invariants: 'report' });
  return createHash('sha256').update(JSON.stringify(session.deriveMessages())).digest('hex');
}

/** A checkpoint's files as `path mode sha256(content)` lines, read with plain git. */
export function checkpointFiles(gitDir: string, commit: string): string[] {
  const listing = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', commit], { encoding: 'utf8' });
  return listing
    .split('\0')
    .filter((r) => r !== '')
    .map((record) => {
      const [meta, path] = record.split('\t');
      const [mode, , oid] = meta!.split(' ');
      const bytes = execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'blob', oid!]);
      return `${path} ${mode} ${createHash('sha256').update(bytes).digest('hex')}`;
    })
    .sort();
}

/**
 * Rewrites a bundle with `edit` applied to its parsed manifest and part lines, then recomputes
 * every part hash and the header, so only what `edit` changed is wrong.
 */
export function rewriteBundle(file: string, out: string, edit: (manifest: Record<string, unknown>, parts: { name: string; lines: unknown[] }[]) => void): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop();
  const manifest = (JSON.parse(lines[1]!) as { manifest: Record<string, unknown> }).manifest;
  const listed = manifest['parts'] as { name: string; lines: number }[];
  let at = 2;
  const parts = listed.map((p) => {
    const part = { name: p.name, lines: lines.slice(at, at + p.lines).map((l) => JSON.parse(l) as unknown) };
    at += p.lines;
    return part;
  });
  edit(manifest, parts);
  const body: string[] = [];
  manifest['parts'] = parts.map((p) => {
    const text = p.lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    body.push(text);
    return { name: p.name, lines: p.lines.length, bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
  });
  const manifestLine = `${JSON.stringify({ manifest })}\n`;
  const header = `${JSON.stringify({ forklineBundle: manifest['formatVersion'], manifestSha256: createHash('sha256').update(manifestLine).digest('hex'), manifestBytes: Buffer.byteLength(manifestLine) })}\n`;
  writeFileSync(out, header + manifestLine + body.join(''));
}
