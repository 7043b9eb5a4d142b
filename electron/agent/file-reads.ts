/**
 * Rebuilds a session's read-before-edit record from its log, so a resumed session or a fork can
 * edit the files its history already read (docs/architecture.md §6 read-before-edit). The log is the source of
 * truth: every successful `read_file` / `write_file` / `edit_file` result carries the file's
 * workspace-relative path and the sha256 of its bytes at that moment (`meta.path`, `meta.sha256`). A
 * file changed on disk since then still fails `edit_file` with FILE_CHANGED, as it should.
 */
import { join } from 'node:path';
import type { SessionEvent } from '../../shared/events.js';
import type { FileReadTracker } from '../tools/tool.js';

const FILE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'write_file', 'edit_file']);

/** Records into `files` what `events` show was read or written, with paths resolved in `cwd`. */
export function recordFileReadsFromLog(events: readonly SessionEvent[], cwd: string, files: FileReadTracker): void {
  const toolOf = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'tool/call') {
      toolOf.set(event.data.callId, event.data.name);
      continue;
    }
    if (event.type !== 'tool/result' || event.surfaceOp !== 'append') continue;
    const block = event.data.message.content[0];
    if (!block || block.isError || !FILE_TOOLS.has(toolOf.get(block.toolCallId) ?? '')) continue;
    const meta = event.data.meta as { path?: unknown; sha256?: unknown } | undefined;
    if (typeof meta?.path === 'string' && typeof meta.sha256 === 'string' && !meta.path.startsWith('..')) {
      files.recordRead(join(cwd, meta.path), meta.sha256);
    }
  }
}
