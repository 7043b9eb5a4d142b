/**
 * A portable bundle imported from the app (issue 26): the renderer streams the file's text in
 * chunks (`importBundleBegin` / `importBundleChunk`, as the session-log import does), each written
 * at once to a file in a private temporary folder, so neither side holds the whole bundle; at
 * `importBundleEnd` the same reader as `forkline import BUNDLE` (electron/bundle/bundle-import.ts)
 * verifies and imports it, all or nothing: ids already here are "already imported" when the
 * content is the same, else renamed with their lineage. The folder is removed at the end, on
 * abort, or when the connection goes.
 */
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { BundleImportView } from '../../../shared/api.js';
import { importBundle } from '../../bundle/bundle-import.js';
import { checkFileSize } from '../../session/import-limits.js';
import type { SessionRepository } from '../../store/session-repository.js';

/** One bundle being received. */
export class BundleUpload {
  private readonly dir = mkdtempSync(join(tmpdir(), 'forkline-bundle-in-'));
  private readonly file = join(this.dir, 'upload.bundle.jsonl');
  private fd: number | undefined = openSync(this.file, 'wx', 0o600);
  /** Bytes received so far (UTF-8). */
  bytes = 0;

  /** @param fileName the file's base name, recorded as the imported sessions' provenance. */
  constructor(readonly fileName: string) {}

  /**
   * Appends the next chunk of the file's text.
   * @throws ImportLimitError when the file grows past the import limit (the upload is removed).
   */
  write(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    try {
      checkFileSize(this.bytes + bytes.length);
      writeSync(this.fd!, bytes);
    } catch (error) {
      this.abort();
      throw error;
    }
    this.bytes += bytes.length;
  }

  /**
   * Imports the received bundle and removes the upload.
   * @throws BundleError for a refused bundle (nothing imported); StoreError.
   */
  async end(deps: { readonly repository: SessionRepository; readonly checkpointsGitDir?: string }): Promise<BundleImportView> {
    this.closeFile();
    // The provenance the sessions record is the file's base name (never a path to act on).
    // A base name, never '.' or '..' (which would name the folder or its parent).
    const base = basename(this.fileName)
      .replace(/[\\\0]/g, '_')
      .slice(0, 200);
    const named = join(this.dir, base === '' || base === '.' || base === '..' ? 'bundle.jsonl' : base);
    try {
      if (named !== this.file) renameSync(this.file, named);
      const result = await importBundle({ repository: deps.repository, ...(deps.checkpointsGitDir !== undefined ? { checkpointsGitDir: deps.checkpointsGitDir } : {}) }, named);
      return {
        rootId: result.rootId,
        alreadyImported: result.alreadyImported,
        sessions: result.sessions.map((s) => ({
          id: s.id,
          bundleId: s.bundleId,
          eventCount: s.eventCount,
          outcome: s.outcome,
          ...(s.parentSession !== undefined ? { parentSession: s.parentSession } : {}),
        })),
        checkpoints: result.checkpoints.size,
        redacted: result.redactions.total,
        warnings: result.warnings,
      };
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /** Gives the upload up (its file is removed). */
  abort(): void {
    this.closeFile();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
