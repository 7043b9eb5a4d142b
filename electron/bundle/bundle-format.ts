/**
 * The portable session bundle (issue 26): one file holding a session, the fork tree around it,
 * their provenance and, optionally, the workspace checkpoints they reference.
 *
 * Container: **JSON lines**, like the session export (docs/architecture.md §7), chosen over tar or
 * zip because
 * - every part is plain UTF-8 JSON that `grep`, `jq` and a text editor can read, so "is my key in
 *   this file?" is answered by grepping it (nothing is compressed, nothing hides a secret);
 * - it streams in both directions with constant memory (one event per line), as the JSONL export does;
 * - an archive format maps member names to paths, the classic way a bundle escapes its folder
 *   (zip-slip); here no name in the file ever becomes a path: parts are named by us, checkpoint
 *   files only ever reach git's object store through plumbing, after their paths are validated;
 * - no dependency: the format is a few rules, below, and the parts are our own JSON.
 * Binary checkpoint files are base64 (text files stay text so that redaction and grep apply).
 *
 * Layout (every line ends with `\n`):
 * 1. the header line `{"forklineBundle": FORMAT, "manifestSha256": …, "manifestBytes": …}`;
 * 2. the manifest line `{"manifest": {…}}` ({@link BundleManifest}): format version, the sessions in
 *    creation order (parents first), every part with its line count, byte count and SHA-256, and
 *    what was redacted where;
 * 3. the parts, in manifest order, each a run of lines. A part's hash is the SHA-256 of its lines'
 *    bytes, newlines included.
 * Parts: `provenance` (one line), `session/<id>` (a header line, then one event per line),
 * `checkpoint/<commit>` (one line: the file list of a snapshot), `blob/<sha256>` (one line: a
 * file's bytes, named by the SHA-256 of those bytes).
 *
 * A reader refuses a newer format, a file that ends early (fewer lines than the manifest, a last line
 * without its newline), a part whose hash differs (naming it), and ids or paths that could escape
 * the data folder; see bundle-import.ts.
 */
import { BUNDLE_FILE_MAGIC } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import type { SessionHeader, SessionOrigin } from '../../shared/events.js';

/** The bundle format this build writes and the newest it reads. Bump when a reader of the previous version would misread a new bundle. */
export const BUNDLE_FORMAT_VERSION = 1;

/** The format id imported sessions carry in `origin.format`. */
export const BUNDLE_ORIGIN_FORMAT = 'forkline-bundle';

/** The first bytes of every bundle (how `forkline import` tells a bundle from a session log). */
export const BUNDLE_MAGIC = BUNDLE_FILE_MAGIC;

/** One part of the bundle as the manifest lists it. */
export interface BundlePart {
  /** `provenance`, `session/<id>`, `checkpoint/<commit>` or `blob/<sha256>`. */
  readonly name: string;
  readonly lines: number;
  readonly bytes: number;
  /** Lowercase hex SHA-256 of the part's lines, each with its `\n`. */
  readonly sha256: string;
}

/** One session of the bundle's tree as the manifest lists it. */
export interface BundleSession {
  readonly id: string;
  /** The session whose stored events this one reads its first `seedLength` events from (fork by reference), when it does. */
  readonly prefixFrom?: string;
  /** First seq stored in the bundle for this session (`seedLength` for a fork by reference, else 0). */
  readonly ownFrom: number;
  /** Total events (inherited included). */
  readonly eventCount: number;
}

/** What kind of secret a redaction removed. */
export type RedactionKind = 'configured-key' | 'env-secret' | 'secret-variable' | 'authorization-header' | 'user-listed';

/** One redaction: which part, where in it (a line and a JSON pointer), what kind. Never the value. */
export interface RedactionRecord {
  readonly part: string;
  /** 1-based line within the part. */
  readonly line: number;
  /** JSON pointer inside that line's value, e.g. `/data/message/content/0/text`. */
  readonly pointer: string;
  readonly kind: RedactionKind;
}

/** What the bundle's redaction did. */
export interface RedactionReport {
  readonly total: number;
  readonly byKind: Partial<Record<RedactionKind, number>>;
  /** The first {@link MAX_REDACTION_RECORDS} places; `total` counts all. */
  readonly places: readonly RedactionRecord[];
}

/** Places listed in the manifest at most (the count is always complete). */
export const MAX_REDACTION_RECORDS = 10_000;

/** The manifest line's value. */
export interface BundleManifest {
  readonly formatVersion: number;
  /** Epoch ms of the export. */
  readonly createdAt: number;
  /** The session the export was asked for. */
  readonly root: string;
  /** Parents before children. */
  readonly sessions: readonly BundleSession[];
  readonly parts: readonly BundlePart[];
  readonly redactions: RedactionReport;
  /** True when workspace checkpoints (`--with-files`) are included. */
  readonly withFiles: boolean;
  /** Checkpoint ids the events name that the bundle does not hold (not asked for, or gone from the shadow repository). */
  readonly missingCheckpoints: readonly string[];
}

/** The `provenance` part: where each session came from, as the exporting installation knew it. */
export interface BundleProvenance {
  readonly exportedAt: number;
  readonly generator: string;
  readonly sessions: readonly {
    readonly id: string;
    /** The session's origin in the exporting store (absent: recorded there). */
    readonly origin?: SessionOrigin;
    /** First seq the exporting installation recorded itself; null when none (an imported log). */
    readonly recordedHereFrom: number | null;
  }[];
}

/** First line of a `session/<id>` part. */
export interface BundleSessionHeaderLine {
  readonly header: SessionHeader;
}

/** One file of a checkpoint: a git tree entry. */
export interface BundleCheckpointFile {
  /** Relative, `/`-separated path inside the workspace. */
  readonly path: string;
  /** git file mode: `100644`, `100755` or `120000` (a symbolic link; the blob is its target). */
  readonly mode: string;
  /** The `blob/<sha256>` part that holds the (redacted) bytes. */
  readonly blob: string;
}

/** The line of a `checkpoint/<commit>` part. */
export interface BundleCheckpointLine {
  readonly commit: string;
  readonly files: readonly BundleCheckpointFile[];
  /** Tree entries not carried (submodules), by path. */
  readonly skipped: readonly string[];
  /** The commit's author and committer dates (git `raw` format), reused for the imported commit. */
  readonly dates?: { readonly author: string; readonly committer: string };
}

/** The line of a `blob/<sha256>` part. */
export interface BundleBlobLine {
  readonly encoding: 'utf8' | 'base64';
  readonly data: string;
}

/** Error codes of bundle import and export (IMPORT_* are bad input: exit 2). */
export type BundleErrorCode =
  'IMPORT_BUNDLE_NEWER_FORMAT' | 'IMPORT_BUNDLE_TRUNCATED' | 'IMPORT_BUNDLE_DAMAGED' | 'IMPORT_BUNDLE_UNSAFE' | 'IMPORT_BUNDLE_INVALID' | 'BUNDLE_EXPORT_FAILED' | 'BUNDLE_CHECKPOINTS_UNAVAILABLE';

/** A refused bundle or a failed export; `part` names the damaged part when one is to blame. */
export class BundleError extends ForklineError {
  constructor(
    code: BundleErrorCode,
    message: string,
    readonly part?: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = 'BundleError';
  }
}

/** Names of parts (the only names a reader accepts). */
export const PART_NAME = {
  provenance: 'provenance',
  session: (id: string): string => `session/${id}`,
  checkpoint: (commit: string): string => `checkpoint/${commit}`,
  blob: (sha256: string): string => `blob/${sha256}`,
} as const;

/** A lowercase hex SHA-256. */
export function isSha256(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

/**
 * True for a checkpoint file path that stays inside its workspace: relative, `/`-separated, no
 * empty, `.` or `..` segment, no `.git` segment, no NUL or backslash, at most 4096 bytes.
 */
export function isSafeRelativePath(path: unknown): path is string {
  if (typeof path !== 'string' || path === '' || path.length > 4096) return false;
  if (path.includes('\0') || path.includes('\\') || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..' && segment.toLowerCase() !== '.git');
}
