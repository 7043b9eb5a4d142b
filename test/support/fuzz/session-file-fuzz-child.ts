/**
 * The session-file fuzz driver (issue 8), run as its own process with a 1 GB heap cap:
 *   node --max-old-space-size=1024 --import tsx session-file-fuzz-child.ts <workDir> <seed> <runs>
 * with a PATH whose `git`, `bash` and `sh` record their argv (see the test).
 *
 * fast-check generates random and mutated session files (seq gaps, huge numbers, wrong types, deep
 * nesting, control characters, option-like strings in every string field, torn and shuffled lines)
 * and sends each through what `forkline import`, `show`, `compare` and `fork` run: the repository's
 * import, the timeline text of every event, the host's compare (with file diff) against a native
 * session that has real checkpoints, and forks (plain, into a named folder, into its own folder),
 * then tries to continue the import. Each operation must succeed or fail with a typed
 * ForklineError; anything else (a TypeError, a RangeError, an abort) is a failure.
 *
 * Prints one line `fuzz-report {json}`: runs, failures (with the counterexample), the outcome
 * counts per operation and the peak heap.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { TimelineText } from '../../../electron/cli/timeline-text.js';
import { createRuntime } from '../../../electron/host/runtime.js';
import { exportJsonl } from '../../../electron/session/jsonl.js';
import { Session } from '../../../electron/session/session.js';
import { WorkspaceCheckpoints } from '../../../electron/workspace/checkpoints.js';
import { hostileLog } from '../hostile-logs.js';
import { AgentLogWriter, everyEventTypeLog, header, steppingClock } from '../store-fixtures.js';

const [workDir, seedArg, runsArg] = process.argv.slice(2) as [string, string, string];
/** Every string the generator puts into a file contains this, so its use anywhere can be seen. */
export const MARK = 'FZMARK';

const dataDir = join(workDir, 'data');
const runtime = createRuntime({ dataDir, env: {}, overrides: { approvalPolicy: 'deny' }, writeWindowMs: 1 });
const connection = runtime.host.connect(() => undefined);
const chosen = join(workDir, 'chosen');
mkdirSync(chosen, { recursive: true });

/** A native session recorded here, with two real checkpoints, to compare fuzzed files against. */
async function nativeSession(): Promise<string> {
  const project = join(workDir, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'a.txt'), 'one\n');
  const ckpt = new WorkspaceCheckpoints(join(dataDir, 'checkpoints.git'));
  const live = runtime.repository.create({ cwd: project, title: 'native' });
  const w = new AgentLogWriter(live.session);
  w.completedTurn('first', 2);
  live.session.append({ type: 'workspace/checkpoint', data: { turn: 1, commit: await ckpt.snapshot(project, `refs/forkline/${live.session.id}`, 'first') } });
  writeFileSync(join(project, 'a.txt'), 'two\n');
  w.completedTurn('second', 2);
  live.session.append({ type: 'workspace/checkpoint', data: { turn: 2, commit: await ckpt.snapshot(project, `refs/forkline/${live.session.id}`, 'second') } });
  await live.release();
  // The paths that give git checkpoint ids, exercised once with ids recorded here (the shim sees them).
  const firstTurnEnd = live.session.events.find((e) => e.type === 'turn/end')!.seq;
  const fork = await connection.forkSession({ sessionId: live.session.id, worktree: true, atSeq: firstTurnEnd });
  const compared = await connection.compareSessions({ a: live.session.id, b: fork.id });
  if (compared.files.length === 0) throw new Error('the native compare found no changed file');
  return live.session.id;
}

// ---- generators ----------------------------------------------------------------------------

const hostileString = fc.oneof(
  fc.constantFrom(
    `--output=${join(workDir, MARK)}`,
    `--index-output=${join(workDir, MARK)}`,
    `-c core.pager=touch ${MARK}`,
    `--upload-pack=touch ${MARK}`,
    `$(touch ${MARK})`,
    `\`touch ${MARK}\``,
    `; touch ${MARK}`,
    `../../${MARK}`,
    `/tmp/${MARK}`,
    `${MARK}\u0000`,
    `\x1b]0;${MARK}\x07\r\x1b[2K\x1b[8m`,
    `\u202e${MARK}\ud800`,
    `-${MARK}`,
    `${MARK}^{tree}`,
    `refs/forkline/../${MARK}`,
  ),
  fc.string({ maxLength: 12 }).map((s) => `-${MARK}${s}`),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => `${MARK}${s}`),
);
const hugeNumber = fc.constantFrom(100_000_000, 2_000_000, 1_999_999, 2 ** 53 + 2, 1e21, 1e308, -1, -1e308, 1.5, 0.1, 2 ** 31, 2 ** 53);
/** Any JSON value, shallow, with hostile strings. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hugeNumber,
  fc.constantFrom(null, true, false, 0, '', [], {}),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);
/** A deeply nested array, kept as a placeholder until the line is written (fast-check and JSON.stringify recurse). */
const deepValue = fc.integer({ min: 20, max: 20_000 }).map((depth) => `__DEEP_${depth}__`);
const expandDeep = (line: string) => line.replace(/"__DEEP_(\d+)__"/g, (_m, n: string) => '['.repeat(Number(n)) + ']'.repeat(Number(n)));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths (key lists) of every value inside `value`. */
function paths(value: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

function setAt(root: Json, path: (string | number)[], value: Json): Json {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) return root.map((v, i) => (i === head ? setAt(v, rest, value) : v));
  if (root !== null && typeof root === 'object') return { ...root, [head!]: setAt(root[head as string]!, rest, value) };
  return root;
}

/** Keys whose string values say what a value is (event type, role, kind …): kept, so the rest stays readable. */
const DISCRIMINATORS = new Set(['type', 'role', 'kind', 'target', 'op', 'reason', 'blockType']);

/** Replaces every string field in `value` by a hostile one (keys and discriminators stay). */
function everyStringHostile(value: Json, pick: () => string, key?: string): Json {
  if (typeof value === 'string') return key !== undefined && DISCRIMINATORS.has(key) ? value : pick();
  if (Array.isArray(value)) return value.map((v) => everyStringHostile(v, pick));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, everyStringHostile(v, pick, k)]));
  return value;
}

type Mutation =
  | { kind: 'set'; line: number; pathPick: number; value: unknown }
  | { kind: 'seq'; line: number; seq: unknown }
  | { kind: 'strings'; line: number; picks: string[] }
  | { kind: 'all-strings'; picks: string[] }
  | { kind: 'drop'; line: number }
  | { kind: 'duplicate'; line: number }
  | { kind: 'swap'; line: number; other: number }
  | { kind: 'tear'; cut: number }
  | { kind: 'raw'; line: number; text: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), line: fc.nat(), pathPick: fc.nat(), value: fc.oneof(jsonValue, deepValue) }),
  fc.record({ kind: fc.constant('seq' as const), line: fc.nat(), seq: fc.oneof(hugeNumber, fc.nat({ max: 300 }), fc.constantFrom('5', null, [], 1.5)) }),
  fc.record({ kind: fc.constant('strings' as const), line: fc.nat(), picks: fc.array(hostileString, { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('all-strings' as const), picks: fc.array(hostileString, { minLength: 1, maxLength: 12 }) }),
  fc.record({ kind: fc.constant('drop' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), line: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constant('tear' as const), cut: fc.nat() }),
  fc.record({ kind: fc.constant('raw' as const), line: fc.nat(), text: fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.json({ maxDepth: 3 })) }),
);

/** Applies a mutation; one the generator itself cannot apply (e.g. to an already very deep line) is skipped. */
function applyMutation(lines: string[], m: Mutation): string[] {
  try {
    return mutate(lines, m);
  } catch (error) {
    if (error instanceof RangeError) return lines;
    throw error;
  }
}

function mutate(lines: string[], m: Mutation): string[] {
  if (lines.length === 0) return lines;
  // Mutations that edit a line mostly hit events (line ≥ 1); the header gets its share through 'strings'/'raw'/'seq'.
  const i = 'line' in m ? (m.kind === 'set' && lines.length > 1 ? 1 + (m.line % (lines.length - 1)) : m.line % lines.length) : 0;
  const out = [...lines];
  let parsed: Json | undefined;
  try {
    parsed = JSON.parse(out[i]!) as Json;
  } catch {
    parsed = undefined;
  }
  switch (m.kind) {
    case 'set': {
      if (parsed === undefined) return out;
      // Wrong types where the code looks: inside the event's data when it has one.
      const all = paths(parsed).filter((p, _i, every) => p[0] === 'data' || !every.some((q) => q[0] === 'data'));
      out[i] = expandDeep(JSON.stringify(setAt(parsed, all[m.pathPick % all.length]!, m.value as Json)));
      return out;
    }
    case 'seq':
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) out[i] = JSON.stringify({ ...parsed, ...('seq0' in parsed ? { seq0: m.seq } : { seq: m.seq }) } as Json);
      return out;
    case 'strings': {
      if (parsed === undefined) return out;
      let n = 0;
      out[i] = JSON.stringify(everyStringHostile(parsed, () => m.picks[n++ % m.picks.length]!));
      return out;
    }
    case 'all-strings': {
      let n = 0;
      return out.map((line) => {
        try {
          return JSON.stringify(everyStringHostile(JSON.parse(line) as Json, () => m.picks[n++ % m.picks.length]!));
        } catch {
          return line;
        }
      });
    }
    case 'drop':
      out.splice(i, 1);
      return out;
    case 'duplicate':
      out.splice(i, 0, out[i]!);
      return out;
    case 'swap': {
      const j = m.other % out.length;
      [out[i], out[j]] = [out[j]!, out[i]!];
      return out;
    }
    case 'tear': {
      const text = out.join('\n');
      return text.slice(0, m.cut % (text.length + 1)).split('\n');
    }
    case 'raw':
      out[i] = m.text;
      return out;
  }
}

/** Seed logs: every event type, a hostile log, a compacted session, the reference runtime's fixtures. */
function seeds(): string[][] {
  const every = everyEventTypeLog('fz-every');
  const session = new Session({ header: header('fz-plain', { cwd: `/tmp/${MARK}` }), now: steppingClock() });
  new AgentLogWriter(session).completedTurn(`prompt ${MARK}`, 4);
  const out = [
    exportJsonl(every.header, every.events),
    exportJsonl(session.header, session.events, { pack: false }),
    hostileLog({ id: 'fz-hostile', cwd: `/tmp/${MARK}`, baseUrl: `http://127.0.0.1:9/${MARK}`, commit: `--output=${join(workDir, MARK)}`, readRecord: { path: `../${MARK}`, content: MARK } }),
  ];
  const fixtures = join(import.meta.dirname, '../../fixtures/agent-session-logs/deepseek-harness');
  for (const name of ['dsh_fs-edit.session.jsonl', 'dsh_compaction-recovery.session.jsonl']) out.push(readFileSync(join(fixtures, name), 'utf8'));
  return out.map((text) => text.split('\n').filter((l) => l !== ''));
}

const fileArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ seed: fc.nat(), mutations: fc.array(mutation, { minLength: 1, maxLength: 6 }) }).map(({ seed, mutations }) => ({ seed, mutations })) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.json({ maxDepth: 4 }), fc.string({ unit: 'binary', maxLength: 60 })), { maxLength: 8 }).map((lines) => ({ random: lines })) },
);

// ---- the property ---------------------------------------------------------------------------

interface Failure {
  readonly op: string;
  readonly error: string;
  readonly file: string;
}

const outcomes: Record<string, Record<string, number>> = {};
const failures: Failure[] = [];
/** One error message per operation and code (to read what the typed refusals say). */
const samples: Record<string, string> = {};
let peakHeap = 0;

function note(op: string, outcome: string): void {
  outcomes[op] ??= {};
  outcomes[op][outcome] = (outcomes[op][outcome] ?? 0) + 1;
}

/** Runs one operation: ok, or a typed ForklineError; anything else is recorded as a failure. */
async function attempt<T>(op: string, file: string, fn: () => T | Promise<T>): Promise<T | undefined> {
  try {
    const value = await fn();
    note(op, 'ok');
    return value;
  } catch (error) {
    if (ForklineError.isInstance(error)) {
      note(op, error.code);
      samples[`${op} ${error.code}`] ??= error.message.slice(0, 300);
      return undefined;
    }
    note(op, 'CRASH');
    failures.push({ op, error: error instanceof Error ? (error.stack ?? error.message).slice(0, 2000) : String(error), file: file.slice(0, 4000) });
    return undefined;
  }
}

function showText(id: string): string {
  const loaded = runtime.repository.load(id);
  const printer = new TimelineText({ live: false, color: false, seqs: true });
  let out = `${loaded.record.header.title ?? ''}${loaded.record.header.cwd ?? ''}`;
  for (const event of loaded.events as readonly SessionEvent[]) out += printer.render(event);
  return out;
}

async function main(): Promise<void> {
  const native = await nativeSession();
  const seedLines = seeds();
  const property = fc.asyncProperty(fileArb, async (spec) => {
    const lines = 'random' in spec ? spec.random.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))) : spec.mutations.reduce(applyMutation, seedLines[spec.seed % seedLines.length]!);
    const file = lines.join('\n') + '\n';
    const imported = await attempt('import', file, () => connection.importSession({ jsonl: file }));
    if (imported) {
      const id = imported.sessionId;
      await attempt('show', file, () => showText(id));
      await attempt('compare', file, () => connection.compareSessions({ a: native, b: id }));
      await attempt('continue', file, () => connection.followup({ sessionId: id, text: 'continue' }));
      const length = (await attempt('load', file, () => runtime.repository.load(id).events.length)) ?? 0;
      const at = length > 0 ? createHash('sha256').update(file).digest()[0]! % length : undefined;
      await attempt('fork --worktree', file, () => connection.forkSession({ sessionId: id, worktree: true, ...(at !== undefined ? { atSeq: at } : {}) }));
      const child = await attempt('fork --cwd', file, () => connection.forkSession({ sessionId: id, cwd: chosen }));
      const plain = await attempt('fork', file, () => connection.forkSession({ sessionId: id }));
      if (child) {
        await attempt('show', file, () => showText(child.id));
        await attempt('compare', file, () => connection.compareSessions({ a: child.id, b: native }));
        await attempt('fork --worktree', file, () => connection.forkSession({ sessionId: child.id, worktree: true }));
      }
      if (plain) await attempt('continue', file, () => connection.followup({ sessionId: plain.id, text: 'continue' }));
    }
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    return true;
  });
  await fc.assert(property, { seed: Number(seedArg), numRuns: Number(runsArg), endOnFailure: true });
  connection.dispose();
  await runtime.close();
  process.stdout.write(`fuzz-report ${JSON.stringify({ runs: Number(runsArg), seed: Number(seedArg), failures, outcomes, samples, peakHeap })}\n`);
}

void main().catch((error: unknown) => {
  process.stdout.write(`fuzz-report ${JSON.stringify({ fatal: error instanceof Error ? (error.stack ?? error.message) : String(error), failures, outcomes, peakHeap })}\n`);
  process.exit(1);
});
