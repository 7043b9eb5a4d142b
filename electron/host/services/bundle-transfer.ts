/**
 * One connection's bundle transfers (issue 26, "Export bundle…" / "Import bundle…"), the HostApi
 * handlers `exportBundle`, `readDownload`, `closeDownload` and `importBundleBegin` / `Chunk` /
 * `End` / `Abort`, moved out of host-connection.ts (which routes to them):
 * - a download is the bundle written to a private temporary folder (services/session-bundle.ts),
 *   read by the renderer in chunks (services/file-downloads.ts);
 * - an upload is the file the renderer sends in chunks (services/bundle-upload.ts), imported when it
 *   ends; at most {@link MAX_OPEN_BUNDLE_UPLOADS} run at once.
 * What a connection opened ends with it ({@link BundleTransfers.dispose}).
 */
import type { BundleDownload, BundleImportView, DownloadChunk } from '../../../shared/api.js';
import { ForklineError } from '../../../shared/errors.js';
import type { IDisposable } from '../../../shared/lifecycle.js';
import { checkFileSize } from '../../session/import-limits.js';
import type { SessionRepository } from '../../store/session-repository.js';
import { BundleUpload } from './bundle-upload.js';
import { FileDownloads } from './file-downloads.js';
import { bundleForDownload } from './session-bundle.js';

/** Bundle uploads one connection may run at once. */
export const MAX_OPEN_BUNDLE_UPLOADS = 4;

/** What the transfers use of the host; each is read when a transfer needs it. */
export interface BundleTransferDeps {
  readonly repository: () => SessionRepository;
  /** The workspace checkpoints' git folder (absent when checkpoints are off). */
  readonly checkpointsGitDir: () => string | undefined;
  /** The configured API keys (redacted from a bundle). */
  readonly configuredKeys: () => readonly string[];
  readonly newId: () => string;
  /** Tells every window the session list changed (a bundle was imported). */
  readonly sessionsChanged: () => void;
}

/** The bundle downloads and uploads of one connection. */
export class BundleTransfers implements IDisposable {
  /** Bundles this connection is sending in chunks (importBundleBegin) and has not ended. */
  private readonly uploads = new Map<string, BundleUpload>();
  /** Files this connection's renderer is reading in chunks (exportBundle). */
  private readonly downloads = new FileDownloads();

  constructor(private readonly deps: BundleTransferDeps) {}

  /** Ends every open download and upload (the connection went). */
  dispose(): void {
    this.downloads.dispose();
    for (const upload of this.uploads.values()) upload.abort();
    this.uploads.clear();
  }

  /** A session's bundle written for the renderer to read in chunks (`readDownload`). */
  async exportBundle(params: { sessionId: string; withFiles?: boolean }): Promise<BundleDownload> {
    const gitDir = this.deps.checkpointsGitDir();
    const written = await bundleForDownload(
      { repository: this.deps.repository(), ...(gitDir !== undefined ? { checkpointsGitDir: gitDir } : {}), configuredKeys: this.deps.configuredKeys },
      { sessionId: params.sessionId, ...(params.withFiles !== undefined ? { withFiles: params.withFiles } : {}) },
    );
    const downloadId = this.deps.newId();
    this.downloads.add(downloadId, written.file, written.dir);
    return { downloadId, ...written.info };
  }

  /** The next chunk of a download (the last one closes it). */
  readDownload(params: { downloadId: string }): DownloadChunk {
    return this.downloads.read(params.downloadId);
  }

  closeDownload(params: { downloadId: string }): null {
    this.downloads.close(params.downloadId);
    return null;
  }

  /**
   * Starts an upload.
   * @throws ForklineError (a file over the import size limit), TOO_MANY_IMPORTS.
   */
  importBundleBegin(params: { fileName: string; size?: number }): { importId: string } {
    if (params.size !== undefined) checkFileSize(params.size);
    if (this.uploads.size >= MAX_OPEN_BUNDLE_UPLOADS) throw new ForklineError('TOO_MANY_IMPORTS', `at most ${MAX_OPEN_BUNDLE_UPLOADS} imports may run at once in one window`);
    const importId = this.deps.newId();
    this.uploads.set(importId, new BundleUpload(params.fileName));
    return { importId };
  }

  /** Adds a chunk to an upload; one that fails ends the upload. */
  importBundleChunk(params: { importId: string; text: string }): { bytes: number } {
    const upload = this.upload(params.importId);
    try {
      upload.write(params.text);
    } catch (error) {
      this.uploads.delete(params.importId);
      throw error;
    }
    return { bytes: upload.bytes };
  }

  /** Ends an upload and imports the bundle. */
  async importBundleEnd(params: { importId: string }): Promise<BundleImportView> {
    const upload = this.upload(params.importId);
    this.uploads.delete(params.importId);
    const gitDir = this.deps.checkpointsGitDir();
    const view = await upload.end({ repository: this.deps.repository(), ...(gitDir !== undefined ? { checkpointsGitDir: gitDir } : {}) });
    if (!view.alreadyImported) this.deps.sessionsChanged();
    return view;
  }

  importBundleAbort(params: { importId: string }): null {
    this.uploads.get(params.importId)?.abort();
    this.uploads.delete(params.importId);
    return null;
  }

  private upload(importId: string): BundleUpload {
    const upload = this.uploads.get(importId);
    if (!upload) throw new ForklineError('IMPORT_NOT_FOUND', `no bundle import ${importId} is running in this window (it ended, failed or was aborted)`);
    return upload;
  }
}
