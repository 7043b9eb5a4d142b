/**
 * Writing a portable bundle (issue 26; the format is in bundle-format.ts): the asked session, its
 * ancestors (those whose stored events it reads by reference), every fork under it, their
 * provenance and, with `withFiles`, the workspace checkpoints their events name. Every string is
 * redacted first (redaction.ts); the manifest says what was removed and where.
 *
 * Each session is written as stored: a fork by reference carries only its own events (from its
 * `seedLength`) and names the session it reads the rest from, so a bundle of many forks costs the
 * parent's history once. Parts go to a side file while their hashes are computed; the header and
 * manifest are then written first and the parts copied after them, into a temporary file renamed
 * over `file` at the end — a failed export leaves no partial bundle.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { SessionEvent } from '../../shared/events.js';
import type { JsonValue } from '../../shared/json.js';
import { recordedHereFrom } from '../store/session-provenance.js';
import type { SessionRepository } from '../store/session-repository.js';
import type { SessionRecord } from '../store/session-store.js';
import { isCheckpointId } from '../workspace/checkpoints.js';
import {
  BUNDLE_FORMAT_VERSION,
  BundleError,
  PART_NAME,
  type BundleBlobLine,
  type BundleCheckpointLine,
  type BundleManifest,
  type BundlePart,
  type BundleProvenance,
  type BundleSession,
  type RedactionReport,
} from './bundle-format.js';
import { CheckpointGit } from './checkpoint-files.js';
import { Redactor, type RedactionRules } from './redaction.js';

/** What an export needs from its surroundings. */
export interface BundleExportDeps {
  readonly repository: SessionRepository;
  /** The shadow repository of workspace checkpoints (`<data dir>/checkpoints.git`), for `withFiles`. */
  readonly checkpointsGitDir?: string;
  /** Epoch-ms clock. */
  readonly now?: () => number;
  /** Written into the provenance part, e.g. `forkline 0.1.0`. */
  readonly generator?: string;
}

export interface BundleExportOptions {
  readonly sessionId: string;
  /** Where the bundle goes (replaced when it exists). */
  readonly file: string;
  /** Include the workspace checkpoints the events name. */
  readonly withFiles: boolean;
  readonly rules: RedactionRules;
}

/** What an export wrote. */
export interface BundleExportResult {
  readonly file: string;
  readonly bytes: number;
  readonly sessions: readonly BundleSession[];
  readonly events: number;
  readonly checkpoints: number;
  readonly missingCheckpoints: readonly string[];
  readonly redactions: RedactionReport;
}

/** Events read from the store at a time. */
const PAGE = 2_000;

/** Writes lines to a file descriptor through a buffer, hashing each part as it goes. */
class PartWriter {
  readonly parts: BundlePart[] = [];
  private buffer: string[] = [];
  private buffered = 0;
  private current: { name: string; lines: number; bytes: number; hash: ReturnType<typeof createHash> } | undefined;

  constructor(private readonly fd: number) {}

  begin(name: string): void {
    if (this.current) this.end();
    this.current = { name, lines: 0, bytes: 0, hash: createHash('sha256') };
  }

  /** Appends one line (no newline inside) to the current part; returns its 1-based line number in the part. */
  line(text: string): number {
    const part = this.current!;
    const line = `${text}\n`;
    const bytes = Buffer.byteLength(line);
    part.hash.update(line);
    part.lines++;
    part.bytes += bytes;
    this.buffer.push(line);
    this.buffered += bytes;
    if (this.buffered >= 1 << 20) this.flush();
    return part.lines;
  }

  /** The 1-based number the next line of the current part will get. */
  get nextLine(): number {
    return (this.current?.lines ?? 0) + 1;
  }

  end(): void {
    const part = this.current;
    if (!part) return;
    this.parts.push({ name: part.name, lines: part.lines, bytes: part.bytes, sha256: part.hash.digest('hex') });
    this.current = undefined;
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.buffered = 0;
  }
}

/**
 * The sessions to bundle, parents before children: the ancestors `id` reads stored events from,
 * `id`, then every session forked from it (by reference or materialised), breadth first.
 * Imports still being written are left out.
 */
export function bundleTree(repository: SessionRepository, id: string): SessionRecord[] {
  const root = repository.get(id);
  if (!root) throw new BundleError('BUNDLE_EXPORT_FAILED', `session ${id} does not exist`);
  const ancestors: SessionRecord[] = [];
  const seen = new Set<string>([id]);
  for (let at = root.prefixFrom; at !== undefined && !seen.has(at);) {
    seen.add(at);
    const record = repository.get(at);
    if (!record) break;
    ancestors.unshift(record);
    at = record.prefixFrom;
  }
  const all = repository.list();
  const out = [...ancestors, root];
  for (let i = ancestors.length; i < out.length; i++) {
    const parent = out[i]!.header.id;
    const children = [...repository.store.children(parent), ...all.filter((r) => r.header.parentSession === parent && r.prefixFrom === undefined)];
    for (const child of children.sort((a, b) => a.header.createdAt - b.header.createdAt)) {
      if (seen.has(child.header.id) || repository.importing(child.header.id)) continue;
      seen.add(child.header.id);
      out.push(child);
    }
  }
  return out;
}

/** Checkpoint ids an event names (the snapshot it logged, an apply's or rewind's commits). */
export function checkpointIdsOf(event: SessionEvent): string[] {
  const data = event.data as unknown as Record<string, unknown>;
  const fields =
    event.type === 'workspace/checkpoint' ? ['commit'] : event.type === 'workspace/apply' ? ['base', 'theirs', 'before'] : event.type === 'workspace/rewind' ? ['restored', 'abandoned'] : [];
  return fields.map((f) => data[f]).filter(isCheckpointId);
}

/**
 * Writes the bundle of `options.sessionId`'s tree to `options.file`.
 * @throws BundleError BUNDLE_EXPORT_FAILED (no such session); StoreError / SessionCorruptionError
 *   from reading the store; BundleError BUNDLE_CHECKPOINTS_UNAVAILABLE when git fails on a
 *   checkpoint the shadow repository holds. Nothing is left at `file` after a failure.
 */
export async function exportBundle(deps: BundleExportDeps, options: BundleExportOptions): Promise<BundleExportResult> {
  const { repository } = deps;
  const now = deps.now ?? Date.now;
  const redactor = new Redactor(options.rules);
  const tree = bundleTree(repository, options.sessionId);
  const partsFile = `${options.file}.parts-${process.pid}`;
  const finalTmp = `${options.file}.tmp-${process.pid}`;
  const fd = openSync(partsFile, 'w', 0o600);
  let closed = false;
  try {
    const writer = new PartWriter(fd);
    const exportedAt = now();
    const ids = new Set(tree.map((r) => r.header.id));
    // Provenance first: what the exporting store knew about each session's origin.
    const provenance: BundleProvenance = {
      exportedAt,
      generator: deps.generator ?? 'forkline',
      sessions: tree.map((r) => {
        const from = recordedHereFrom(repository, r.header.id);
        return { id: r.header.id, ...(r.header.origin ? { origin: r.header.origin } : {}), recordedHereFrom: Number.isFinite(from) ? from : null };
      }),
    };
    writer.begin(PART_NAME.provenance);
    writer.line(JSON.stringify(redactor.redactJson(provenance as unknown as JsonValue, PART_NAME.provenance, 1)));

    const sessions: BundleSession[] = [];
    const checkpointIds: string[] = [];
    const seenCheckpoints = new Set<string>();
    let events = 0;
    for (const stale of tree) {
      const id = stale.header.id;
      const live = repository.live(id);
      if (live) await live.flush();
      const record = live ? repository.get(id)! : repository.recover(id).record;
      const byReference = record.prefixFrom !== undefined && ids.has(record.prefixFrom);
      const ownFrom = byReference ? (record.header.seedLength ?? 0) : 0;
      const name = PART_NAME.session(id);
      writer.begin(name);
      writer.line(JSON.stringify({ header: redactor.redactJson(record.header as unknown as JsonValue, name, 1) }));
      for (let from = ownFrom; from < record.eventCount; from += PAGE) {
        for (const event of repository.store.readRange(id, from, Math.min(record.eventCount, from + PAGE))) {
          for (const commit of checkpointIdsOf(event)) {
            if (!seenCheckpoints.has(commit)) {
              seenCheckpoints.add(commit);
              checkpointIds.push(commit);
            }
          }
          writer.line(JSON.stringify(redactor.redactJson(event as unknown as JsonValue, name, writer.nextLine)));
          events++;
        }
      }
      sessions.push({ id, ...(byReference ? { prefixFrom: record.prefixFrom! } : {}), ownFrom, eventCount: record.eventCount });
    }

    const missing: string[] = [];
    let checkpoints = 0;
    if (options.withFiles) {
      const git = deps.checkpointsGitDir !== undefined ? new CheckpointGit(deps.checkpointsGitDir) : undefined;
      const blobsWritten = new Set<string>();
      for (const commit of checkpointIds) {
        if (!git || !(await git.hasCommit(commit))) {
          missing.push(commit);
          continue;
        }
        const name = PART_NAME.checkpoint(commit);
        const entries = await git.listTree(commit);
        const files = entries.filter((e) => e.type === 'blob');
        const contents = await git.readBlobs(files.map((f) => f.oid));
        const pending: { sha: string; line: BundleBlobLine }[] = [];
        const list = files.map((f) => {
          const raw = contents.get(f.oid)!;
          const { bytes, line } = blobLine(raw, (text) => redactor.redactText(text, name, 1, `/files/${f.path}`));
          const sha = createHash('sha256').update(bytes).digest('hex');
          if (!blobsWritten.has(sha)) {
            blobsWritten.add(sha);
            pending.push({ sha, line });
          }
          return { path: redactor.redactText(f.path, name, 1, '/files'), mode: f.mode, blob: sha };
        });
        const line: BundleCheckpointLine = { commit, files: list, skipped: entries.filter((e) => e.type !== 'blob').map((e) => e.path), dates: await git.commitDates(commit) };
        writer.begin(name);
        writer.line(JSON.stringify(line));
        for (const blob of pending) {
          writer.begin(PART_NAME.blob(blob.sha));
          writer.line(JSON.stringify(blob.line));
        }
        checkpoints++;
      }
    } else {
      missing.push(...checkpointIds);
    }
    writer.end();
    writer.flush();
    closeSync(fd);
    closed = true;

    const manifest: BundleManifest = {
      formatVersion: BUNDLE_FORMAT_VERSION,
      createdAt: exportedAt,
      root: options.sessionId,
      sessions,
      parts: writer.parts,
      redactions: redactor.report(),
      withFiles: options.withFiles,
      missingCheckpoints: missing,
    };
    const manifestLine = `${JSON.stringify({ manifest })}\n`;
    const headerLine = `${JSON.stringify({ forklineBundle: BUNDLE_FORMAT_VERSION, manifestSha256: createHash('sha256').update(manifestLine).digest('hex'), manifestBytes: Buffer.byteLength(manifestLine) })}\n`;
    const bytes = writeFinal(finalTmp, headerLine + manifestLine, partsFile);
    renameSync(finalTmp, options.file);
    return { file: options.file, bytes, sessions, events, checkpoints, missingCheckpoints: missing, redactions: manifest.redactions };
  } catch (error) {
    rmSync(finalTmp, { force: true });
    throw error;
  } finally {
    if (!closed) closeSync(fd);
    rmSync(partsFile, { force: true });
  }
}

/**
 * A checkpoint file as a blob line: valid UTF-8 without NUL bytes is text (redacted), anything
 * else base64 (not searched). Returns the bytes the line stands for (after redaction).
 */
function blobLine(raw: Buffer, redact: (text: string) => string): { bytes: Buffer; line: BundleBlobLine } {
  if (!raw.includes(0)) {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(raw);
    if (Buffer.from(text, 'utf8').equals(raw)) {
      const redacted = redact(text);
      return { bytes: redacted === text ? raw : Buffer.from(redacted, 'utf8'), line: { encoding: 'utf8', data: redacted } };
    }
  }
  return { bytes: raw, line: { encoding: 'base64', data: raw.toString('base64') } };
}

/** Writes `head` then the content of `partsFile` into `target`; returns the total bytes. */
function writeFinal(target: string, head: string, partsFile: string): number {
  const out = openSync(target, 'w', 0o600);
  try {
    let total = writeSync(out, head);
    const input = openSync(partsFile, 'r');
    try {
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const n = readSync(input, chunk, 0, chunk.length, null);
        if (n === 0) break;
        let done = 0;
        while (done < n) done += writeSync(out, chunk, done, n - done);
        total += n;
      }
    } finally {
      closeSync(input);
    }
    return total;
  } finally {
    closeSync(out);
  }
}
