/**
 * Streams a file the person dropped or picked to the host's import (docs/importing.md): the file is read
 * in slices (`Blob.slice`), decoded as UTF-8 across slice boundaries (`TextDecoder` streaming), and
 * sent as `importChunk`s, each awaited before the next — so neither the renderer nor the host holds
 * the whole file, and the acknowledged bytes drive a progress bar. Any failure aborts the import on
 * the host (nothing half-imported is left).
 */
import { BUNDLE_FILE_MAGIC, type BundleImportView, type HostClient } from '../../shared/api.js';
import type { ImportSummary } from '../../shared/import-summary.js';

/** Bytes read from the file per chunk sent. */
export const IMPORT_SLICE_BYTES = 1024 * 1024;

/** What the import of one file needs from a `File`/`Blob` (so tests can pass a plain Blob with a name). */
export interface ImportableFile {
  readonly name: string;
  readonly size: number;
  slice(start: number, end: number): Blob;
}

/**
 * Imports `file`; `onProgress(fraction)` is called after each acknowledged chunk (0…1).
 * @throws the host's typed error (UNSUPPORTED_FORMAT, SESSION_CORRUPT, …) after aborting.
 */
export async function importFile(
  client: Pick<HostClient, 'importBegin' | 'importChunk' | 'importEnd' | 'importAbort'>,
  file: ImportableFile,
  onProgress: (fraction: number) => void = () => undefined,
  sliceBytes = IMPORT_SLICE_BYTES,
): Promise<ImportSummary> {
  const { importId } = await client.importBegin({ fileName: file.name, size: file.size });
  const decoder = new TextDecoder('utf-8');
  try {
    for (let at = 0; at < file.size; at += sliceBytes) {
      const end = Math.min(file.size, at + sliceBytes);
      const bytes = new Uint8Array(await file.slice(at, end).arrayBuffer());
      const text = decoder.decode(bytes, { stream: end < file.size });
      if (text !== '') await client.importChunk({ importId, text });
      onProgress(file.size === 0 ? 1 : end / file.size);
    }
    const tail = decoder.decode();
    if (tail !== '') await client.importChunk({ importId, text: tail });
    onProgress(1);
    return await client.importEnd({ importId });
  } catch (error) {
    await client.importAbort({ importId }).catch(() => undefined);
    throw error;
  }
}

/** True when the file starts like a portable bundle (`Export bundle…`, `forkline export --bundle`). */
export async function isBundleFile(file: ImportableFile): Promise<boolean> {
  return (await file.slice(0, BUNDLE_FILE_MAGIC.length).text()) === BUNDLE_FILE_MAGIC;
}

/**
 * Imports a portable bundle the same way (slices, streaming UTF-8, each chunk acknowledged) through
 * `importBundleBegin` / `importBundleChunk` / `importBundleEnd`; the host verifies and imports it whole.
 * @throws the host's typed error (IMPORT_BUNDLE_DAMAGED naming the part, …) after aborting.
 */
export async function importBundleFile(
  client: Pick<HostClient, 'importBundleBegin' | 'importBundleChunk' | 'importBundleEnd' | 'importBundleAbort'>,
  file: ImportableFile,
  onProgress: (fraction: number) => void = () => undefined,
  sliceBytes = IMPORT_SLICE_BYTES,
): Promise<BundleImportView> {
  const { importId } = await client.importBundleBegin({ fileName: file.name, size: file.size });
  const decoder = new TextDecoder('utf-8');
  try {
    for (let at = 0; at < file.size; at += sliceBytes) {
      const end = Math.min(file.size, at + sliceBytes);
      const text = decoder.decode(new Uint8Array(await file.slice(at, end).arrayBuffer()), { stream: end < file.size });
      if (text !== '') await client.importBundleChunk({ importId, text });
      onProgress(file.size === 0 ? 1 : end / file.size);
    }
    const tail = decoder.decode();
    if (tail !== '') await client.importBundleChunk({ importId, text: tail });
    return await client.importBundleEnd({ importId });
  } catch (error) {
    await client.importBundleAbort({ importId }).catch(() => undefined);
    throw error;
  }
}

/** The toast of a bundle import: a headline and one line per session. */
export function bundleImportLines(fileName: string, view: BundleImportView): { headline: string; details: string[] } {
  const stored = view.sessions.filter((s) => s.outcome !== 'present').length;
  const headline = view.alreadyImported
    ? `Bundle ${fileName} is already imported: its ${view.sessions.length} session(s) are here with the same content; nothing changed.`
    : `Imported bundle ${fileName}: ${stored} session(s)${stored < view.sessions.length ? ` (${view.sessions.length - stored} already here)` : ''}, ${view.checkpoints} checkpoint(s) restored.`;
  const note = { new: '', renamed: ' (new id: the bundle id was taken here by other content)', present: ' (already here)' } as const;
  const details = view.sessions.map((s) => `${s.id.slice(0, 8)} ${s.eventCount} events${s.parentSession !== undefined ? `, fork of ${s.parentSession.slice(0, 8)}` : ''}${note[s.outcome]}`);
  if (view.redacted > 0) details.push(`the exporter redacted ${view.redacted} secret(s)`);
  for (const w of view.warnings) details.push(`warning: ${w}`);
  return { headline, details };
}
