/**
 * "Export bundle…" in the app (issue 26): the portable bundle of a session and the forks under it,
 * written by the same writer as `forkline export ID --bundle FILE [--with-files]`
 * (electron/bundle/bundle-export.ts) into a private temporary folder, read back and removed, and
 * handed to the renderer as text to download. The secrets redacted are the API keys this host
 * knows (Settings' vault and the providers' key variables) and the values of this process's
 * secret-looking environment variables, as the CLI does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/**
 * Writes the bundle of `sessionId`'s tree and returns it with what went in.
 * @throws ForklineError SESSION_NOT_FOUND; BundleError / StoreError from the writer (nothing is left behind).
 */
export async function bundleForDownload(deps: SessionBundleDeps, params: { readonly sessionId: string; readonly withFiles?: boolean }): Promise<BundleDownload> {
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
    const text = readFileSync(file, 'utf8');
    const slug =
      (record.header.title ?? 'session')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 40) || 'session';
    return {
      fileName: `forkline-${slug}-${params.sessionId.slice(0, 8)}.bundle.jsonl`,
      text,
      bytes: result.bytes,
      sessions: result.sessions.length,
      events: result.events,
      checkpoints: result.checkpoints,
      missingCheckpoints: result.missingCheckpoints.length,
      redacted: result.redactions.total,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
