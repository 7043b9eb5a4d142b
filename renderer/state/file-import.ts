/**
 * Streams a file the person dropped or picked to the host's import (docs/importing.md): the file is read
 * in slices (`Blob.slice`), decoded as UTF-8 across slice boundaries (`TextDecoder` streaming), and
 * sent as `importChunk`s, each awaited before the next — so neither the renderer nor the host holds
 * the whole file, and the acknowledged bytes drive a progress bar. Any failure aborts the import on
 * the host (nothing half-imported is left).
 */
import type { HostClient } from '../../shared/api.js';
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
