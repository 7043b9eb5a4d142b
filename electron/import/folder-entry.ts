/**
 * How a session kept as a folder of JSON files (a Cline / Roo Code task folder, opencode's storage
 * folder) enters the line-based import pipeline: the reader of the folder (Node side:
 * `electron/host/services/folder-import.ts`; a window could build the same lines from a dropped folder) sends
 * one JSONL line per file, in the order the importer needs,
 *
 *   `{"type":"forkline/folder-entry","format":"cline"|"opencode","folder":"<base name>","path":"<relative path>","value":<the file's JSON>}`
 *
 * so detection, batching, damage rules and the all-or-nothing store write stay those of every other
 * import. `path` uses `/` and is only a label (never a path to act on); `folder` is the base name of
 * the folder that was imported (a Cline task id). One file is one record, so its size is bounded by
 * the pipeline's record cap (64 Mi characters).
 */
import type { JsonValue } from '../../shared/json.js';
import { FOLDER_ENTRY_TYPE, type FolderFormat } from '../../shared/folder-sessions.js';
import { isObject } from './json-read.js';

export { FOLDER_ENTRY_TYPE, folderEntryLine, type FolderEntry, type FolderFormat } from '../../shared/folder-sessions.js';

/** The format a folder-entry record names, or undefined when `value` is not one. */
export function folderEntryFormat(value: JsonValue): FolderFormat | undefined {
  if (!isObject(value) || value['type'] !== FOLDER_ENTRY_TYPE || typeof value['path'] !== 'string' || !('value' in value)) return undefined;
  const format = value['format'];
  return format === 'cline' || format === 'opencode' ? format : undefined;
}
