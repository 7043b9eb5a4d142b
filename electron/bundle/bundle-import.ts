/**
 * Reading a portable bundle into a data folder (issue 26; the format is in bundle-format.ts).
 *
 * All or nothing, in three reads of the file:
 * 1. **verify** — header (a newer format is refused before anything else), manifest (its own hash
 *    from the header), then every part's hash and shape: session ids and lineage, event envelopes
 *    and payload shapes (electron/session/event-shapes.ts), seqs contiguous from each session's
 *    first stored seq, checkpoint paths inside their folder, blob bytes matching their names.
 *    A file that ends early is TRUNCATED, a part that does not match is DAMAGED naming the part,
 *    an id or path that could leave the data folder is UNSAFE. Nothing is written before this passed.
 * 2. **checkpoints** (`--with-files` bundles) — blobs, trees and commits into the shadow repository's
 *    object store; objects no ref names yet, harmless if a later step fails.
 * 3. **sessions** — parents first, each stored as an import in progress (an owner record hides it
 *    from every listing, and a later run deletes it if this process dies: the same rule as other
 *    imports, SessionRepository.removeAbandonedImports); forks by reference read their parent's
 *    stored events again. The file is hashed again as it is read: if it changed since step 1, or
 *    any write fails, every session stored so far is removed. Then one transaction clears all the
 *    owner records at once: the whole tree appears together.
 *
 * Imported sessions follow the rules of every import (docs/architecture.md §8b, issue 8): their origin is
 * `imported` (format `forkline-bundle`), so nothing in them (folders, endpoints, checkpoint ids)
 * is used to act, and they are continued only as forks. Lineage is kept: `parentSession` and
 * `seedLength` as in the source. Checkpoint ids in the events are rewritten to the commits made here.
 *
 * Ids the data folder already holds (the same bundle imported twice, a bundle of sessions exported
 * from this folder) are told apart by content hash ({@link ownContentHash}, with the lineage): the
 * same content is `present` and not stored again (all present: "already imported", nothing written);
 * a different session under the id gets a fresh id, and its forks in the bundle name that id as
 * parent and by-reference prefix. Every imported session records its bundle id and hash in
 * `origin.bundle`.
 *
 * Size: over 500 lines because verification and storing read the same file with the same line
 * walker ({@link walkBundle}) and the same per-part rules; the two passes must agree on what a part
 * is, so they stay beside each other. The format itself is in bundle-format.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { KNOWN_EVENT_TYPES, SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../../shared/events.js';
import type { JsonObject } from '../../shared/json.js';
import { eventShapeProblem } from '../session/event-shapes.js';
import { isSafeSessionId } from '../session/import-limits.js';
import { decodeEnvelopes } from '../session/jsonl.js';
import { selfIdentity } from '../store/session-ownership.js';
import type { SessionRepository } from '../store/session-repository.js';
import type { SessionRecord } from '../store/session-store.js';
import { isCheckpointId } from '../workspace/checkpoints.js';
import {
  BUNDLE_FORMAT_VERSION,
  BUNDLE_MAGIC,
  BUNDLE_ORIGIN_FORMAT,
  BundleError,
  isSafeRelativePath,
  isSha256,
  PART_NAME,
  type BundleBlobLine,
  type BundleCheckpointLine,
  type BundleManifest,
  type BundlePart,
  type BundleSession,
  type RedactionReport,
} from './bundle-format.js';
import { CheckpointGit } from './checkpoint-files.js';

/** Longest line read (a blob of a large checkpoint file, base64). */
const MAX_LINE_BYTES = 512 * 1024 * 1024;
/** Events stored per write. */
const BATCH = 1_000;

/** One line of the file, without its newline. */
interface RawLine {
  readonly bytes: Buffer;
  /** False for a last line the file ends inside of. */
  readonly terminated: boolean;
}

/** The file's lines as bytes (exact: `\r` stays, so hashes see what was written). */
async function* readLines(file: string): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let at = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, at);
      if (nl === -1) break;
      const piece = chunk.subarray(at, nl);
      yield { bytes: pending.length > 0 ? Buffer.concat([...pending, piece]) : piece, terminated: true };
      pending = [];
      pendingBytes = 0;
      at = nl + 1;
    }
    if (at < chunk.length) {
      pending.push(chunk.subarray(at));
      pendingBytes += chunk.length - at;
      if (pendingBytes > MAX_LINE_BYTES) throw new BundleError('IMPORT_BUNDLE_INVALID', `a line is longer than ${MAX_LINE_BYTES} bytes`);
    }
  }
  if (pendingBytes > 0) yield { bytes: Buffer.concat(pending), terminated: false };
}

function parseLine(raw: RawLine, part: string): unknown {
  try {
    return JSON.parse(raw.bytes.toString('utf8')) as unknown;
  } catch {
    throw new BundleError('IMPORT_BUNDLE_DAMAGED', `the bundle's part ${part} is damaged (a line is not JSON)`, part);
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** True when the file starts like a bundle (how `forkline import` routes it). */
export async function isBundleFile(file: string): Promise<boolean> {
  for await (const chunk of createReadStream(file, { start: 0, end: BUNDLE_MAGIC.length - 1 }) as AsyncIterable<Buffer>) {
    return chunk.toString('utf8') === BUNDLE_MAGIC;
  }
  return false;
}

/** A verified bundle's manifest, as step 1 read it. */
export interface VerifiedBundle {
  readonly manifest: BundleManifest;
  /** Per bundle session id: the {@link ownContentHash} of its events and its header as stored in the bundle. */
  readonly content: ReadonlyMap<string, { readonly sha256: string; readonly header: SessionHeader }>;
}

/** Checks the header line; returns the manifest's expected hash and size. */
function readHeaderLine(raw: RawLine | undefined): { sha256: string; bytes: number } {
  if (raw === undefined || raw.bytes.length === 0) throw new BundleError('IMPORT_BUNDLE_TRUNCATED', 'the bundle is empty');
  if (!raw.terminated && Buffer.from(BUNDLE_MAGIC).subarray(0, raw.bytes.length).equals(raw.bytes.subarray(0, BUNDLE_MAGIC.length))) {
    throw new BundleError('IMPORT_BUNDLE_TRUNCATED', 'the bundle ends inside its header line');
  }
  if (!raw.bytes.subarray(0, BUNDLE_MAGIC.length).equals(Buffer.from(BUNDLE_MAGIC))) throw new BundleError('IMPORT_BUNDLE_INVALID', 'this is not a Forkline bundle (no bundle header)');
  if (!raw.terminated) throw new BundleError('IMPORT_BUNDLE_TRUNCATED', 'the bundle ends inside its header line');
  const header = parseLine(raw, 'header');
  if (!isObject(header)) throw new BundleError('IMPORT_BUNDLE_DAMAGED', 'the bundle header is damaged', 'header');
  const version = header['forklineBundle'];
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw new BundleError('IMPORT_BUNDLE_INVALID', `bundle format ${JSON.stringify(version)} is not a format version`);
  if (version > BUNDLE_FORMAT_VERSION)
    throw new BundleError('IMPORT_BUNDLE_NEWER_FORMAT', `the bundle's format version ${version} is newer than this build reads (${BUNDLE_FORMAT_VERSION}); upgrade Forkline to import it`);
  const sha256 = header['manifestSha256'];
  const bytes = header['manifestBytes'];
  if (!isSha256(sha256) || !isCount(bytes)) throw new BundleError('IMPORT_BUNDLE_DAMAGED', 'the bundle header does not name its manifest', 'header');
  return { sha256, bytes };
}

/** Checks the manifest's structure (names, ids, lineage); returns it typed. */
function checkManifest(value: unknown): BundleManifest {
  const m = isObject(value) ? value['manifest'] : undefined;
  if (!isObject(m)) throw new BundleError('IMPORT_BUNDLE_DAMAGED', 'the manifest is damaged', 'manifest');
  if (typeof m['formatVersion'] === 'number' && m['formatVersion'] > BUNDLE_FORMAT_VERSION) {
    throw new BundleError('IMPORT_BUNDLE_NEWER_FORMAT', `the bundle's format version ${m['formatVersion']} is newer than this build reads (${BUNDLE_FORMAT_VERSION}); upgrade Forkline to import it`);
  }
  if (m['formatVersion'] !== BUNDLE_FORMAT_VERSION) throw new BundleError('IMPORT_BUNDLE_INVALID', `manifest format ${JSON.stringify(m['formatVersion'])} is not supported`);
  const sessions = m['sessions'];
  const parts = m['parts'];
  if (!Array.isArray(sessions) || !Array.isArray(parts) || sessions.length === 0) throw new BundleError('IMPORT_BUNDLE_INVALID', 'the manifest lists no sessions or no parts');
  const known = new Set<string>();
  for (const s of sessions) {
    if (!isObject(s)) throw new BundleError('IMPORT_BUNDLE_INVALID', 'a manifest session entry is not an object');
    if (!isSafeSessionId(s['id']))
      throw new BundleError('IMPORT_BUNDLE_UNSAFE', `session id ${JSON.stringify(String(s['id']).slice(0, 160))} is not usable (it could name a path outside the data folder)`);
    if (known.has(s['id'])) throw new BundleError('IMPORT_BUNDLE_INVALID', `session ${s['id']} is listed twice`);
    if (s['prefixFrom'] !== undefined && (typeof s['prefixFrom'] !== 'string' || !known.has(s['prefixFrom']))) {
      throw new BundleError('IMPORT_BUNDLE_INVALID', `session ${s['id']} reads its history from ${JSON.stringify(s['prefixFrom'])}, which the bundle does not hold before it`);
    }
    if (!isCount(s['ownFrom']) || !isCount(s['eventCount']) || s['ownFrom'] > s['eventCount'] || (s['prefixFrom'] === undefined && s['ownFrom'] !== 0)) {
      throw new BundleError('IMPORT_BUNDLE_INVALID', `session ${s['id']} has impossible event counts`);
    }
    known.add(s['id']);
  }
  const names = new Set<string>();
  for (const p of parts) {
    if (!isObject(p) || typeof p['name'] !== 'string' || !isCount(p['lines']) || p['lines'] < 1 || !isCount(p['bytes']) || !isSha256(p['sha256'])) {
      throw new BundleError('IMPORT_BUNDLE_INVALID', 'a manifest part entry is malformed');
    }
    const name = p['name'];
    const [kind, id] = [name.slice(0, name.indexOf('/')), name.slice(name.indexOf('/') + 1)];
    const ok = name === PART_NAME.provenance || (kind === 'session' && known.has(id)) || (kind === 'checkpoint' && isCheckpointId(id)) || (kind === 'blob' && isSha256(id));
    if (!ok)
      throw new BundleError(kind === 'session' && !isSafeSessionId(id) ? 'IMPORT_BUNDLE_UNSAFE' : 'IMPORT_BUNDLE_INVALID', `the manifest names an unknown part ${JSON.stringify(name.slice(0, 160))}`);
    if (names.has(name)) throw new BundleError('IMPORT_BUNDLE_INVALID', `part ${name} is listed twice`);
    names.add(name);
  }
  for (const id of known) if (!names.has(PART_NAME.session(id))) throw new BundleError('IMPORT_BUNDLE_INVALID', `session ${id} has no part`);
  return m as unknown as BundleManifest;
}

/** Per-part content checks of step 1 (shapes, ids, seqs, paths). */
class PartChecker {
  private session: { readonly entry: BundleSession; nextSeq: number; readonly hash: ReturnType<typeof createHash> } | undefined;
  private readonly sessions: Map<string, BundleSession>;
  private readonly blobs: Set<string>;
  /** Per session: the {@link ownContentHash} of its events and its header, as the bundle holds them. */
  readonly content = new Map<string, { sha256: string; header: SessionHeader }>();

  constructor(manifest: BundleManifest) {
    this.sessions = new Map(manifest.sessions.map((s) => [s.id, s]));
    this.blobs = new Set(manifest.parts.filter((p) => p.name.startsWith('blob/')).map((p) => p.name.slice(5)));
  }

  line(part: BundlePart, lineNo: number, value: unknown): void {
    const name = part.name;
    const bad = (why: string, code: 'IMPORT_BUNDLE_INVALID' | 'IMPORT_BUNDLE_UNSAFE' = 'IMPORT_BUNDLE_INVALID'): never => {
      throw new BundleError(code, `part ${name}, line ${lineNo}: ${why}`, name);
    };
    if (!isObject(value)) bad('not a JSON object');
    const v = value as JsonObject;
    if (name.startsWith('session/')) {
      const entry = this.sessions.get(name.slice(8))!;
      if (lineNo === 1) {
        const h = v['header'];
        if (!isObject(h) || h['id'] !== entry.id) bad('the session header does not name this session');
        const header = h as JsonObject;
        if (header['parentSession'] !== undefined && !isSafeSessionId(header['parentSession']))
          bad(`parent session ${JSON.stringify(String(header['parentSession']).slice(0, 160))} is not a usable id`, 'IMPORT_BUNDLE_UNSAFE');
        if (entry.prefixFrom !== undefined && (header['parentSession'] !== entry.prefixFrom || header['seedLength'] !== entry.ownFrom)) bad('a fork by reference must name its parent and seed length');
        this.session = { entry, nextSeq: entry.ownFrom, hash: createHash('sha256') };
        this.content.set(entry.id, { sha256: '', header: header as unknown as SessionHeader });
        if (part.lines === 1) this.content.get(entry.id)!.sha256 = this.session.hash.digest('hex');
        return;
      }
      let events: SessionEvent[];
      try {
        events = decodeEnvelopes(v);
      } catch (error) {
        return bad((error as Error).message);
      }
      for (const event of events) {
        if (event.seq !== this.session!.nextSeq) bad(`event seq ${event.seq} where ${this.session!.nextSeq} was due`);
        if (KNOWN_EVENT_TYPES.has(event.type)) {
          const problem = eventShapeProblem(event);
          if (problem !== undefined) bad(problem);
        } else if (event.ignorable !== true) bad(`event type ${JSON.stringify(event.type)} is unknown to this build`);
        this.session!.nextSeq++;
        hashEvent(this.session!.hash, event);
      }
      if (lineNo === part.lines) {
        if (this.session!.nextSeq !== entry.eventCount) bad(`the session holds events up to ${this.session!.nextSeq}, the manifest says ${entry.eventCount}`);
        this.content.get(entry.id)!.sha256 = this.session!.hash.digest('hex');
      }
      return;
    }
    if (name.startsWith('checkpoint/')) {
      if (v['commit'] !== name.slice(11) || !Array.isArray(v['files'])) bad('not a checkpoint of this commit');
      for (const f of v['files'] as unknown[]) {
        if (!isObject(f)) bad('a file entry is not an object');
        const file = f as JsonObject;
        if (!isSafeRelativePath(file['path'])) bad(`file path ${JSON.stringify(String(file['path']).slice(0, 200))} would leave its folder`, 'IMPORT_BUNDLE_UNSAFE');
        if (file['mode'] !== '100644' && file['mode'] !== '100755' && file['mode'] !== '120000') bad(`file ${String(file['path'])} has mode ${String(file['mode'])}`, 'IMPORT_BUNDLE_UNSAFE');
        if (!isSha256(file['blob']) || !this.blobs.has(file['blob'])) bad(`file ${String(file['path'])} names a blob the bundle does not hold`);
      }
      return;
    }
    if (name.startsWith('blob/')) {
      if (decodeBlob(v, name) === undefined) bad('not a blob');
      return;
    }
    if (name === PART_NAME.provenance && !Array.isArray(v['sessions'])) bad('not a provenance record');
  }
}

/** Adds one event to an {@link ownContentHash}. */
function hashEvent(hash: ReturnType<typeof createHash>, event: SessionEvent): void {
  hash.update(JSON.stringify(event)).update('\n');
}

/**
 * The content hash of a session's own events (those from its `ownFrom`, as a bundle holds them):
 * SHA-256 of each event's `JSON.stringify` followed by `\n`, in seq order. A session recorded here
 * and exported without redaction hashes the same in the store and in the bundle; an import records
 * the bundle's hash in `origin.bundle` (its stored events differ where checkpoint ids were rewritten).
 */
export function ownContentHash(events: Iterable<SessionEvent>): string {
  const hash = createHash('sha256');
  for (const event of events) hashEvent(hash, event);
  return hash.digest('hex');
}

/** A blob line's bytes when its SHA-256 matches its name; undefined for a malformed line. @throws BundleError DAMAGED on a mismatch */
function decodeBlob(v: JsonObject, name: string): Buffer | undefined {
  const line = v as unknown as BundleBlobLine;
  if ((line.encoding !== 'utf8' && line.encoding !== 'base64') || typeof line.data !== 'string') return undefined;
  const bytes = line.encoding === 'utf8' ? Buffer.from(line.data, 'utf8') : Buffer.from(line.data, 'base64');
  if (createHash('sha256').update(bytes).digest('hex') !== name.slice(5))
    throw new BundleError('IMPORT_BUNDLE_DAMAGED', `the bundle's part ${name} is damaged (its bytes do not match its name)`, name);
  return bytes;
}

/**
 * Reads the file once, checking every hash; calls `onLine` with each part line's parsed value.
 * @throws BundleError as described in the module docstring.
 */
async function walkBundle(file: string, onLine: (part: BundlePart, lineNo: number, value: unknown) => Promise<void> | void, onManifest?: (manifest: BundleManifest) => void): Promise<BundleManifest> {
  const lines = readLines(file);
  const expected = readHeaderLine((await lines.next()).value as RawLine | undefined);
  const manifestRaw = (await lines.next()).value as RawLine | undefined;
  if (manifestRaw === undefined || !manifestRaw.terminated) throw new BundleError('IMPORT_BUNDLE_TRUNCATED', 'the bundle ends inside its manifest');
  const manifestHash = createHash('sha256').update(manifestRaw.bytes).update('\n').digest('hex');
  if (manifestHash !== expected.sha256 || manifestRaw.bytes.length + 1 !== expected.bytes)
    throw new BundleError('IMPORT_BUNDLE_DAMAGED', "the bundle's manifest is damaged (its hash does not match the header)", 'manifest');
  const manifest = checkManifest(parseLine(manifestRaw, 'manifest'));
  onManifest?.(manifest);
  let index = 0;
  let lineNo = 0;
  let hash = createHash('sha256');
  let bytes = 0;
  for await (const raw of { [Symbol.asyncIterator]: () => lines }) {
    const part = manifest.parts[index];
    if (part === undefined) throw new BundleError('IMPORT_BUNDLE_INVALID', 'the bundle has data after its last part');
    if (!raw.terminated) throw new BundleError('IMPORT_BUNDLE_TRUNCATED', `the bundle ends inside part ${part.name}`, part.name);
    lineNo++;
    hash.update(raw.bytes).update('\n');
    bytes += raw.bytes.length + 1;
    if (bytes > part.bytes) throw new BundleError('IMPORT_BUNDLE_DAMAGED', `the bundle's part ${part.name} is damaged (longer than the manifest says)`, part.name);
    if (lineNo === part.lines) {
      if (bytes !== part.bytes || hash.digest('hex') !== part.sha256)
        throw new BundleError('IMPORT_BUNDLE_DAMAGED', `the bundle's part ${part.name} is damaged (its SHA-256 does not match the manifest)`, part.name);
    }
    await onLine(part, lineNo, parseLine(raw, part.name));
    if (lineNo === part.lines) {
      index++;
      lineNo = 0;
      hash = createHash('sha256');
      bytes = 0;
    }
  }
  if (index < manifest.parts.length) {
    throw new BundleError(
      'IMPORT_BUNDLE_TRUNCATED',
      `the bundle ends before part ${manifest.parts[index]!.name} is complete (${manifest.parts.length - index} of ${manifest.parts.length} parts missing or cut)`,
      manifest.parts[index]!.name,
    );
  }
  return manifest;
}

/**
 * Step 1 alone: checks the whole file (hashes, format, shapes, ids, paths) without writing anything.
 * @throws BundleError IMPORT_BUNDLE_NEWER_FORMAT | IMPORT_BUNDLE_TRUNCATED | IMPORT_BUNDLE_DAMAGED (naming the part) | IMPORT_BUNDLE_UNSAFE | IMPORT_BUNDLE_INVALID.
 */
export async function verifyBundle(file: string): Promise<VerifiedBundle> {
  let checker: PartChecker | undefined;
  const manifest = await walkBundle(
    file,
    (part, lineNo, value) => checker!.line(part, lineNo, value),
    (m) => (checker = new PartChecker(m)),
  );
  return { manifest, content: checker!.content };
}

/**
 * What became of one bundle session: `new` stored under its own id; `renamed` stored under a fresh
 * id because the data folder holds a different session with its id (its forks in the bundle follow
 * the new id); `present` not stored, because the data folder already holds the same content with the
 * same lineage (an earlier import of it, or the session it was exported from) under `id`.
 */
export type BundleSessionOutcome = 'new' | 'renamed' | 'present';

/** One session of an imported bundle. */
export interface ImportedBundleSession {
  /** Its id in the bundle. */
  readonly bundleId: string;
  /** Its id here. */
  readonly id: string;
  readonly parentSession?: string;
  readonly eventCount: number;
  readonly outcome: BundleSessionOutcome;
}

/** What an import did. */
export interface BundleImportResult {
  readonly sessions: readonly ImportedBundleSession[];
  /** True when every session of the bundle was `present`: nothing was written. */
  readonly alreadyImported: boolean;
  /** The id here of the session the bundle was exported for (its manifest's root). */
  readonly rootId: string;
  /** Checkpoints restored into the shadow repository: bundle commit → commit here. */
  readonly checkpoints: ReadonlyMap<string, string>;
  /** What the exporter redacted (from the manifest). */
  readonly redactions: RedactionReport;
  readonly warnings: readonly string[];
}

export interface BundleImportDeps {
  readonly repository: SessionRepository;
  /** The shadow repository checkpoints go into (`<data dir>/checkpoints.git`); without it, a bundle's files are not restored. */
  readonly checkpointsGitDir?: string;
  readonly now?: () => number;
}

/**
 * Imports a bundle (all three steps of the module docstring).
 * @throws BundleError for a refused bundle (nothing stored); StoreError when the store refuses a write (everything stored so far removed).
 */
export async function importBundle(deps: BundleImportDeps, file: string): Promise<BundleImportResult> {
  const { repository } = deps;
  const store = repository.store;
  const now = deps.now ?? Date.now;
  const { manifest, content } = await verifyBundle(file);
  const warnings: string[] = [];
  const { ids, outcomes } = placeSessions(repository, manifest, content);
  if (manifest.sessions.every((s) => outcomes.get(s.id) === 'present')) {
    const sessions = manifest.sessions.map((s) => importedEntry(s, ids, content, 'present'));
    return { sessions, alreadyImported: true, rootId: ids.get(manifest.root) ?? manifest.root, checkpoints: new Map(), redactions: manifest.redactions, warnings };
  }

  // Step 2: checkpoint files into the shadow repository.
  const checkpointMap = new Map<string, string>();
  const hasCheckpoints = manifest.parts.some((p) => p.name.startsWith('checkpoint/'));
  if (hasCheckpoints && deps.checkpointsGitDir === undefined) warnings.push('workspace checkpoints in the bundle were not restored (checkpoints are off here)');
  if (hasCheckpoints && deps.checkpointsGitDir !== undefined) {
    const git = new CheckpointGit(deps.checkpointsGitDir);
    await git.init();
    const blobOids = new Map<string, string>();
    const lines: BundleCheckpointLine[] = [];
    await walkBundle(file, async (part, _lineNo, value) => {
      if (part.name.startsWith('checkpoint/')) lines.push(value as BundleCheckpointLine);
      else if (part.name.startsWith('blob/')) blobOids.set(part.name.slice(5), await git.writeBlob(decodeBlob(value as JsonObject, part.name)!));
    });
    for (const line of lines) {
      const files = line.files.map((f) => ({ path: f.path, mode: f.mode, oid: blobOids.get(f.blob)! }));
      const { commit } = await git.writeCommit(files, `forkline bundle import of checkpoint ${line.commit}`, line.dates);
      checkpointMap.set(line.commit, commit);
    }
  }

  // Step 3: the sessions, staged, then shown all at once.
  const entries = new Map(manifest.sessions.map((s) => [s.id, s]));
  const staged: string[] = [];
  const imported: ImportedBundleSession[] = [];
  const identity = selfIdentity();
  const owner = {
    pid: identity.pid,
    since: now(),
    token: randomUUID(),
    ...(identity.host !== undefined ? { host: identity.host } : {}),
    ...(identity.start !== undefined ? { start: identity.start } : {}),
  };
  const importedAt = now();
  let current: { entry: BundleSession; header: SessionHeader; batch: SessionEvent[]; created: boolean } | undefined;
  const flush = (): void => {
    if (!current) return;
    const { header, batch, entry } = current;
    if (!current.created) {
      store.atomically(() => {
        store.createSession(header, batch, { deferSearch: true, ...(entry.prefixFrom !== undefined ? { prefixFrom: ids.get(entry.prefixFrom)! } : {}) });
        store.setOwner(header.id, owner);
      });
      staged.push(header.id);
      current.created = true;
    } else if (batch.length > 0) {
      store.append(header.id, batch);
    }
    current.batch = [];
  };
  const remap = (event: SessionEvent): SessionEvent => {
    if (checkpointMap.size === 0 || (event.type !== 'workspace/checkpoint' && event.type !== 'workspace/apply' && event.type !== 'workspace/rewind')) return event;
    const data: Record<string, unknown> = { ...(event.data as unknown as Record<string, unknown>) };
    for (const [key, value] of Object.entries(data)) if (typeof value === 'string' && checkpointMap.has(value)) data[key] = checkpointMap.get(value);
    return { ...event, data } as unknown as SessionEvent;
  };
  try {
    await walkBundle(file, (part, lineNo, value) => {
      if (!part.name.startsWith('session/')) return;
      const v = value as JsonObject;
      if (lineNo === 1) {
        flush();
        current = undefined;
        const entry = entries.get(part.name.slice(8))!;
        if (outcomes.get(entry.id) === 'present') {
          imported.push(importedEntry(entry, ids, content, 'present'));
          return;
        }
        const source = v['header'] as unknown as SessionHeader;
        const parent = source.parentSession !== undefined ? (ids.get(source.parentSession) ?? source.parentSession) : undefined;
        const header: SessionHeader = {
          version: SESSION_FORMAT_VERSION,
          id: ids.get(entry.id)!,
          createdAt: isCount(source.createdAt) ? source.createdAt : importedAt,
          ...(typeof source.cwd === 'string' ? { cwd: source.cwd } : {}),
          ...(typeof source.title === 'string' ? { title: source.title } : {}),
          ...(parent !== undefined ? { parentSession: parent } : {}),
          ...(isCount(source.seedLength) ? { seedLength: source.seedLength } : {}),
          origin: {
            kind: 'imported',
            format: BUNDLE_ORIGIN_FORMAT,
            formatVersion: String(manifest.formatVersion),
            file: basename(file),
            importedAt,
            bundle: { sessionId: entry.id, contentSha256: content.get(entry.id)!.sha256 },
          },
        };
        current = { entry, header, batch: [], created: false };
        if (entry.ownFrom === entry.eventCount) flush();
        imported.push(importedEntry(entry, ids, content, outcomes.get(entry.id)!));
        return;
      }
      if (current === undefined) return;
      for (const event of decodeEnvelopes(v)) current.batch.push(remap(event));
      if (current.batch.length >= BATCH || lineNo === part.lines) flush();
    });
    flush();
    // All at once: the tree is listed together or not at all.
    store.atomically(() => {
      for (const id of staged) store.setOwner(id, undefined);
    });
  } catch (error) {
    for (const id of staged.reverse()) {
      try {
        store.delete(id);
      } catch {
        // already gone
      }
    }
    throw error;
  }
  repository.indexSearchInBackground();
  if (checkpointMap.size > 0) {
    const git = new CheckpointGit(deps.checkpointsGitDir!);
    for (const commit of new Set(checkpointMap.values())) {
      try {
        await git.setRef(`bundle-${commit}`, commit);
      } catch (error) {
        warnings.push(`checkpoint ${commit} is stored but not pinned: ${(error as Error).message}`);
      }
    }
  }
  if (manifest.missingCheckpoints.length > 0) warnings.push(`${manifest.missingCheckpoints.length} checkpoint(s) the events name are not in the bundle (exported without --with-files, or gone)`);
  return { sessions: imported, alreadyImported: false, rootId: ids.get(manifest.root) ?? manifest.root, checkpoints: checkpointMap, redactions: manifest.redactions, warnings };
}

/** The result entry of one bundle session, its parent named by its id here. */
function importedEntry(entry: BundleSession, ids: ReadonlyMap<string, string>, content: VerifiedBundle['content'], outcome: BundleSessionOutcome): ImportedBundleSession {
  const source = content.get(entry.id)!.header.parentSession;
  const parent = source !== undefined ? (ids.get(source) ?? source) : undefined;
  return { bundleId: entry.id, id: ids.get(entry.id)!, ...(parent !== undefined ? { parentSession: parent } : {}), eventCount: entry.eventCount, outcome };
}

/** Events hashed per store read when comparing a stored session with a bundle's. */
const HASH_PAGE = 2_000;

/**
 * The {@link ownContentHash} of a stored session's events from `ownFrom`: the recorded bundle hash
 * for a session imported from a bundle (its stored checkpoint ids were rewritten), else computed from the store.
 */
function storedOwnHash(repository: SessionRepository, record: SessionRecord, ownFrom: number): string {
  const origin = record.header.origin;
  if (origin?.kind === 'imported' && origin.format === BUNDLE_ORIGIN_FORMAT && origin.bundle !== undefined) return origin.bundle.contentSha256;
  const hash = createHash('sha256');
  for (let from = ownFrom; from < record.eventCount; from += HASH_PAGE) {
    for (const event of repository.store.readRange(record.header.id, from, Math.min(record.eventCount, from + HASH_PAGE))) hashEvent(hash, event);
  }
  return hash.digest('hex');
}

/**
 * Decides, parents first, where each bundle session goes (see {@link BundleSessionOutcome}). A stored
 * session is the same as a bundle's when it has the same event count, the same lineage (its
 * by-reference parent, `parentSession` and `seedLength`, with parents mapped to their ids here) and
 * the same {@link ownContentHash}. Candidates: the stored session with the bundle's id, and sessions
 * an earlier import stored from the same content under another id (`origin.bundle`). Each stored
 * session stands for at most one bundle session.
 */
function placeSessions(repository: SessionRepository, manifest: BundleManifest, content: VerifiedBundle['content']): { ids: Map<string, string>; outcomes: Map<string, BundleSessionOutcome> } {
  const ids = new Map<string, string>();
  const outcomes = new Map<string, BundleSessionOutcome>();
  const claimed = new Set<string>();
  let byHash: Map<string, SessionRecord[]> | undefined;
  const importedWithHash = (sha256: string): SessionRecord[] => {
    if (byHash === undefined) {
      byHash = new Map();
      for (const record of repository.list()) {
        const origin = record.header.origin;
        if (origin?.kind !== 'imported' || origin.bundle === undefined) continue;
        byHash.set(origin.bundle.contentSha256, [...(byHash.get(origin.bundle.contentSha256) ?? []), record]);
      }
    }
    return byHash.get(sha256) ?? [];
  };
  for (const entry of manifest.sessions) {
    const { sha256, header } = content.get(entry.id)!;
    const parent = header.parentSession !== undefined ? (ids.get(header.parentSession) ?? header.parentSession) : undefined;
    const prefixFrom = entry.prefixFrom !== undefined ? ids.get(entry.prefixFrom) : undefined;
    const same = (record: SessionRecord | undefined): record is SessionRecord =>
      record !== undefined &&
      !claimed.has(record.header.id) &&
      !repository.importing(record.header.id) &&
      record.eventCount === entry.eventCount &&
      record.prefixFrom === prefixFrom &&
      record.header.parentSession === parent &&
      record.header.seedLength === header.seedLength &&
      storedOwnHash(repository, record, entry.ownFrom) === sha256;
    const byId = repository.get(entry.id);
    const match = same(byId) ? byId : importedWithHash(sha256).find(same);
    if (match !== undefined) {
      ids.set(entry.id, match.header.id);
      outcomes.set(entry.id, 'present');
      claimed.add(match.header.id);
      continue;
    }
    const taken = repository.exists(entry.id) || claimed.has(entry.id);
    const id = taken ? randomUUID() : entry.id;
    ids.set(entry.id, id);
    outcomes.set(entry.id, taken ? 'renamed' : 'new');
    claimed.add(id);
  }
  return { ids, outcomes };
}
