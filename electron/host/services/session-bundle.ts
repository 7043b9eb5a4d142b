/**
 * "Export bundle…" in the app (issue 26): the portable bundle of a session and the forks under it,
 * written by the same writer as `forkline export ID --bundle FILE [--with-files]`
 * (electron/bundle/bundle-export.ts) into a private temporary folder, which the renderer then reads
 * in chunks (file-downloads.ts) and saves: never one message of the whole file. The secrets redacted are the API keys this host
 * knows (Settings' vault and the providers' key variables) and the values of this process's
 * secret-looking environment variables, as the CLI does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BundleDownload } from '../../../shared/api.js';
import { ForklineError } from '../../../shared/errors.js';
import { exportBundle } from '../../bundle/bundle-export.js';
import type { SessionRepository } from '../../store/session-repository.js';
import { secretValuesOf } from '../../tools/tool-environment.js';

/** What the bundle export needs from the host. */
export interface SessionBundleDeps {
  readonly repository: SessionRepository;
  /** The shadow git repository of workspace checkpoints (absent: checkpoints are off, none are included). */
  readonly checkpointsGitDir?: string;
  /** The configured API keys (SettingsStore.secretValues). */
  readonly configuredKeys: () => readonly string[];
  /** The environment whose secret-looking variables are redacted (default process.env). */
  readonly env?: { readonly [name: string]: string | undefined };
}

/** A bundle written for download: what went in (less the id the caller gives it), and where the file is. */
export interface WrittenBundle {
  readonly info: Omit<BundleDownload, 'downloadId'>;
  /** The bundle file, inside `dir`. */
  readonly file: string;
  /** The private temporary folder holding it; the caller owns it (FileDownloads removes it). */
  readonly dir: string;
}

/**
 * Writes the bundle of `sessionId`'s tree into a private temporary folder and returns it with what went in.
 * @throws ForklineError SESSION_NOT_FOUND; BundleError / StoreError from the writer (nothing is left behind).
 */
export async function bundleForDownload(deps: SessionBundleDeps, params: { readonly sessionId: string; readonly withFiles?: boolean }): Promise<WrittenBundle> {
  const record = deps.repository.get(params.sessionId);
  if (!record) throw new ForklineError('SESSION_NOT_FOUND', `session ${params.sessionId} does not exist`);
  const dir = mkdtempSync(join(tmpdir(), 'forkline-bundle-'));
  try {
    const file = join(dir, 'session.bundle.jsonl');
    const result = await exportBundle(
      { repository: deps.repository, ...(deps.checkpointsGitDir !== undefined ? { checkpointsGitDir: deps.checkpointsGitDir } : {}), generator: 'forkline' },
      {
        sessionId: params.sessionId,
        file,
        withFiles: params.withFiles === true,
        rules: { configuredKeys: deps.configuredKeys(), envSecrets: secretValuesOf(deps.env ?? process.env), userStrings: [] },
      },
    );
    const slug =
      (record.header.title ?? 'session')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 40) || 'session';
    const info = {
      fileName: `forkline-${slug}-${params.sessionId.slice(0, 8)}.bundle.jsonl`,
      bytes: result.bytes,
      sessions: result.sessions.length,
      events: result.events,
      checkpoints: result.checkpoints,
      missingCheckpoints: result.missingCheckpoints.length,
      redacted: result.redactions.total,
    };
    return { info, file, dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
