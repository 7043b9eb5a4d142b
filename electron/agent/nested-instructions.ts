/**
 * Nested project instructions (docs/architecture.md §8b): when a tool call touches a path in a folder below the
 * workspace that has its own AGENTS.md (or CLAUDE.md), that file's text is appended to the call's
 * result — once per file while the result that carried it is still model-visible — and an
 * `instructions/loaded{placement: 'tool-result'}` event names the files and their hashes.
 *
 * What is in force is rebuilt from the log (resume, fork) and again after a compaction or pruning
 * replaced surface nodes: a file whose carrying result was replaced is attached again at the next
 * touch, so compaction never silently drops an instruction (FIELD-NOTES E5).
 */
import { join } from 'node:path';
import type { JsonValue } from '../../shared/json.js';
import type { Session } from '../session/session.js';
import { instructionRef, renderNestedInstructions, type ProjectInstructions } from './project-instructions.js';

export class NestedInstructionTracker {
  private loaded: Set<string> | undefined;
  private generation = -1;

  constructor(
    private readonly session: Session,
    private readonly instructions: ProjectInstructions,
    private readonly cwd: string,
  ) {}

  /**
   * For a successful result whose `meta.path` (workspace-relative, as the file tools report it) lies
   * under folders with instructions not yet in force: logs `instructions/loaded` and returns the text
   * to append to the result. Undefined when there is nothing to add.
   */
  annotate(callId: string, isError: boolean, meta: JsonValue | undefined): string | undefined {
    if (isError) return undefined;
    const path = (meta as { path?: unknown } | undefined)?.path;
    if (typeof path !== 'string' || path === '.' || path.startsWith('..') || path.startsWith('/')) return undefined;
    const loaded = this.current();
    const files = this.instructions.nestedFor(join(this.cwd, path), loaded);
    if (files.length === 0) return undefined;
    this.session.append({ type: 'instructions/loaded', data: { placement: 'tool-result', files: files.map(instructionRef), callId } });
    for (const f of files) loaded.add(f.path);
    return renderNestedInstructions(files);
  }

  /** The nested files whose carrying tool result is on the surface now. */
  private current(): Set<string> {
    if (this.loaded && this.generation === this.session.replaceGeneration) return this.loaded;
    this.generation = this.session.replaceGeneration;
    const onSurface = new Set(this.session.surface);
    const resultSeqOf = new Map<string, number>();
    const pending: { callId: string; paths: string[] }[] = [];
    for (const event of this.session.events) {
      if (event.type === 'instructions/loaded' && event.data.placement === 'tool-result' && event.data.callId !== undefined) {
        pending.push({ callId: event.data.callId, paths: event.data.files.map((f) => f.path) });
      } else if (event.type === 'tool/result' && event.surfaceOp === 'append') {
        const id = event.data.message.content[0]?.toolCallId;
        if (id !== undefined) resultSeqOf.set(id, event.seq);
      }
    }
    const loaded = new Set<string>();
    for (const { callId, paths } of pending) {
      const seq = resultSeqOf.get(callId);
      if (seq !== undefined && onSurface.has(seq)) for (const p of paths) loaded.add(p);
    }
    this.loaded = loaded;
    return loaded;
  }
}
