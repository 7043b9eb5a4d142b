/**
 * The in-memory {@link FileReadTracker}: one per session, owned by whoever builds the session's
 * tool context. It remembers, per absolute real path, the sha256 of the bytes last read or written
 * by a file tool, so `edit_file` / `write_file` can refuse files the model has not seen or that
 * changed on disk since (read-before-edit, docs/architecture.md §6).
 */
import type { FileReadTracker } from './tool.js';

/** A session's read record, kept in memory (not persisted: a resumed session reads files again). */
export class InMemoryFileReadTracker implements FileReadTracker {
  private readonly hashes = new Map<string, string>();

  /** Records that `absPath` was read (or written) with content hash `sha256` (hex of the bytes). */
  recordRead(absPath: string, sha256: string): void {
    this.hashes.set(absPath, sha256);
  }

  /** The hash recorded at the last read or write of `absPath`, or undefined if never read. */
  lastRead(absPath: string): string | undefined {
    return this.hashes.get(absPath);
  }

  /** Number of distinct files recorded. */
  get size(): number {
    return this.hashes.size;
  }
}

/** Creates an empty tracker for a new session. */
export function createFileReadTracker(): InMemoryFileReadTracker {
  return new InMemoryFileReadTracker();
}
