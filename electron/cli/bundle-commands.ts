/**
 * `forkline export ID --bundle FILE [--with-files] [--redact STR]…` and `forkline import BUNDLE`
 * (issue 26): the CLI side of the portable bundle (electron/bundle/). The secrets redacted are the
 * API keys configured for this data folder (settings.json's vault and the providers' key
 * variables, as {@link SettingsStore.secretValues} lists them), the values of this process's
 * secret-looking environment variables, and the user's `--redact` strings.
 */
import { join } from 'node:path';
import { visibleInline } from '../../shared/visible-text.js';
import { exportBundle } from '../bundle/bundle-export.js';
import { importBundle, isBundleFile } from '../bundle/bundle-import.js';
import type { RedactionRules } from '../bundle/redaction.js';
import { MemoryKeyVault, SettingsStore } from '../host/settings-store.js';
import type { SessionRepository } from '../store/session-repository.js';
import { secretValuesOf } from '../tools/tool-environment.js';

export { isBundleFile };

/** What the bundle commands need from the CLI. */
export interface BundleCommandContext {
  readonly repository: SessionRepository;
  readonly dataDir: string;
  readonly env: { readonly [name: string]: string | undefined };
  /** Progress and summaries (stderr for export, so stdout stays clean). */
  readonly err: (text: string) => void;
  readonly out: (text: string) => void;
}

/** The redaction rules for this data folder and environment, plus the user's strings. */
export function redactionRules(dataDir: string, env: { readonly [name: string]: string | undefined }, userStrings: readonly string[]): RedactionRules {
  const settings = new SettingsStore({ file: join(dataDir, 'settings.json'), vault: new MemoryKeyVault(), env, dataDir });
  return { configuredKeys: settings.secretValues(), envSecrets: secretValuesOf(env), userStrings };
}

/**
 * Writes the bundle; prints what went in and what was redacted.
 * @returns the exit code (0).
 * @throws BundleError, StoreError (see exportBundle).
 */
export async function exportBundleCommand(
  ctx: BundleCommandContext,
  sessionId: string,
  options: { readonly file: string; readonly withFiles: boolean; readonly redact: readonly string[] },
): Promise<number> {
  const result = await exportBundle(
    { repository: ctx.repository, checkpointsGitDir: join(ctx.dataDir, 'checkpoints.git'), generator: 'forkline' },
    { sessionId, file: options.file, withFiles: options.withFiles, rules: redactionRules(ctx.dataDir, ctx.env, options.redact) },
  );
  const kinds = Object.entries(result.redactions.byKind)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  ctx.err(
    `wrote ${visibleInline(result.file)} (${result.bytes} bytes): ${result.sessions.length} session(s), ${result.events} events, ${result.checkpoints} checkpoint(s)\n` +
      `redacted: ${result.redactions.total === 0 ? 'nothing found' : `${result.redactions.total} (${kinds}); the manifest lists where`}\n` +
      (result.missingCheckpoints.length > 0
        ? `${result.missingCheckpoints.length} checkpoint(s) not included${options.withFiles ? ' (gone from the shadow repository)' : ' (pass --with-files to include them)'}\n`
        : ''),
  );
  return 0;
}

/**
 * Imports one bundle file; prints the sessions with their lineage.
 * @throws BundleError for a refused bundle (nothing imported).
 */
export async function importBundleCommand(ctx: BundleCommandContext, file: string): Promise<void> {
  const result = await importBundle({ repository: ctx.repository, ...(ctx.env['FORKLINE_CHECKPOINTS'] === 'off' ? {} : { checkpointsGitDir: join(ctx.dataDir, 'checkpoints.git') }) }, file);
  const stored = result.sessions.filter((s) => s.outcome !== 'present').length;
  const lines = [
    result.alreadyImported
      ? `bundle ${visibleInline(file)} is already imported: its ${result.sessions.length} session(s) are here with the same content; nothing changed`
      : `imported bundle ${visibleInline(file)}: ${stored} session(s)${stored < result.sessions.length ? ` (${result.sessions.length - stored} already here)` : ''}, ${result.checkpoints.size} checkpoint(s) restored (read-only; continue one with forkline fork ID --cwd DIR)`,
  ];
  const note = { new: '', renamed: '  (new id: the bundle id was taken here by other content)', present: '  (already here)' } as const;
  for (const s of result.sessions)
    lines.push(
      `  ${visibleInline(s.id)}  ${String(s.eventCount).padStart(6)} events${s.parentSession !== undefined ? `  fork of ${visibleInline(s.parentSession)}` : ''}${s.outcome === 'renamed' ? `  bundle id ${visibleInline(s.bundleId)}` : ''}${note[s.outcome]}`,
    );
  if (result.redactions.total > 0) lines.push(`  the exporter redacted ${result.redactions.total} secret(s)`);
  for (const w of result.warnings) lines.push(`  warning: ${visibleInline(w)}`);
  ctx.out(`${lines.join('\n')}\n`);
}
