/**
 * Project instructions (docs/architecture.md §8b): the AGENTS.md convention (https://agents.md — "agents read the
 * nearest file in the directory tree, so the closest one takes precedence"), CLAUDE.md where a
 * folder has no AGENTS.md (Claude Code's name for the same thing), and a user-level file in the data
 * folder.
 *
 * - At the start of each agent lifecycle the system prompt gets, in this order: the user file, then
 *   one file per folder from the project root (the nearest folder above the workspace holding `.git`;
 *   the workspace itself when there is none) down to the workspace. Later files are more specific.
 * - A folder below the workspace contributes its file when a tool first touches a path in it
 *   ({@link ProjectInstructions.nestedFor}); the agent appends that text to the tool's result.
 *
 * Files are read as UTF-8, capped at {@link MAX_INSTRUCTION_BYTES} each (head kept, cut at a
 * code-point boundary). Project and nested files whose real location is outside the project root
 * (a symlink pointing elsewhere) are ignored: their text would go to the model provider.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { InstructionFileRef } from '../../shared/events.js';

/** File names looked up in each folder, in order of preference (the first that exists wins). */
export const INSTRUCTION_FILE_NAMES: readonly string[] = ['AGENTS.md', 'CLAUDE.md'];

/** Bytes of one file that reach the model (Codex's `project_doc_max_bytes` default is 32 KiB). */
export const MAX_INSTRUCTION_BYTES = 32 * 1024;

/** A loaded file: its logged reference plus the text the model sees. */
export interface InstructionFile extends InstructionFileRef {
  readonly text: string;
}

export interface ProjectInstructionsOptions {
  /** Absolute real path of the workspace. */
  readonly cwd: string;
  /** The user-level file (e.g. `<data folder>/AGENTS.md`); absent = none. */
  readonly userFile?: string;
}

/** Finds and reads instruction files for one workspace. Stateless apart from its options. */
export class ProjectInstructions {
  private readonly root: string;

  constructor(private readonly options: ProjectInstructionsOptions) {
    this.root = projectRoot(options.cwd);
  }

  /** The nearest folder at or above the workspace that holds `.git`, else the workspace. */
  get projectRoot(): string {
    return this.root;
  }

  /** The files for the system prompt: the user file, then the project root down to the workspace. */
  forSystemPrompt(): InstructionFile[] {
    const files: InstructionFile[] = [];
    const user = this.options.userFile;
    if (user !== undefined) {
      const loaded = readInstructionFile(user, user, 'user');
      if (loaded) files.push(loaded);
    }
    for (const dir of foldersBetween(this.root, this.options.cwd)) {
      const found = this.fileIn(dir, 'project');
      if (found) files.push(found);
    }
    return files;
  }

  /**
   * The files of folders strictly below the workspace down to `absPath` (its folder, or itself when
   * it is a folder), outermost first, leaving out paths in `already`. Empty for paths outside.
   */
  nestedFor(absPath: string, already: ReadonlySet<string>): InstructionFile[] {
    const cwd = this.options.cwd;
    let dir = absPath;
    try {
      if (!statSync(absPath).isDirectory()) dir = dirname(absPath);
    } catch {
      dir = dirname(absPath);
    }
    if (dir === cwd || !isBelow(cwd, dir)) return [];
    const out: InstructionFile[] = [];
    for (const folder of foldersBetween(cwd, dir).slice(1)) {
      const found = this.fileIn(folder, 'nested');
      if (found && !already.has(found.path)) out.push(found);
    }
    return out;
  }

  private fileIn(dir: string, scope: 'project' | 'nested'): InstructionFile | undefined {
    for (const name of INSTRUCTION_FILE_NAMES) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        continue;
      }
      // A symlink may point anywhere; only text that lives in the project goes to the model.
      if (real !== path && !isBelow(this.root, real) && real !== this.root) continue;
      const shown = toShownPath(this.options.cwd, path);
      const loaded = readInstructionFile(path, shown, scope);
      if (loaded) return loaded;
    }
    return undefined;
  }
}

/** Reads one file; undefined when it is not a readable regular file. */
function readInstructionFile(path: string, shownPath: string, scope: InstructionFileRef['scope']): InstructionFile | undefined {
  let bytes: Buffer;
  try {
    if (!statSync(path).isFile()) return undefined;
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const truncated = bytes.length > MAX_INSTRUCTION_BYTES;
  // Invalid UTF-8 becomes U+FFFD (never a lone surrogate); a byte-order mark and CRLF line ends are dropped.
  const text = (truncated ? utf8Head(bytes, MAX_INSTRUCTION_BYTES) : bytes.toString('utf8'))
    .replace(/^\uFEFF/, '')
    .replace(/\r\n/g, '\n')
    .trimEnd();
  return { path, shownPath, scope, sha256, bytes: bytes.length, ...(truncated ? { truncated: true as const } : {}), text };
}

/** The first `max` bytes, cut back to a code-point boundary. */
function utf8Head(bytes: Buffer, max: number): string {
  let end = max;
  // Step back over continuation bytes (10xxxxxx) so no code point is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** The nearest folder at or above `cwd` holding `.git`, else `cwd`. */
function projectRoot(cwd: string): string {
  let dir = cwd;
  for (;;) {
    try {
      lstatSync(join(dir, '.git'));
      return dir;
    } catch {
      // keep climbing
    }
    const parent = dirname(dir);
    if (parent === dir) return cwd;
    dir = parent;
  }
}

/** `from`, then each folder below it down to `to` (inclusive); just `[to]` when `to` is not below `from`. */
function foldersBetween(from: string, to: string): string[] {
  if (from === to || !isBelow(from, to)) return [to];
  const parts = relative(from, to).split(sep);
  const out = [from];
  let dir = from;
  for (const part of parts) {
    dir = join(dir, part);
    out.push(dir);
  }
  return out;
}

/** True when `candidate` lies strictly below `root`. */
function isBelow(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel);
}

/** Workspace-relative with `/` separators (`../AGENTS.md` for a file above the workspace). */
function toShownPath(cwd: string, path: string): string {
  return relative(cwd, path).split(sep).join('/');
}

/** The logged reference of a loaded file (everything but its text). */
export function instructionRef(file: InstructionFile): InstructionFileRef {
  const { text: _text, ...ref } = file;
  void _text;
  return ref;
}

/** True when two reference lists name the same files with the same hashes, in the same order. */
export function sameInstructionRefs(a: readonly InstructionFileRef[], b: readonly InstructionFileRef[]): boolean {
  return a.length === b.length && a.every((x, i) => x.path === b[i]!.path && x.sha256 === b[i]!.sha256 && x.scope === b[i]!.scope);
}

/**
 * The text appended to a tool result when the call touched a folder with its own instructions
 * (the nearest file wins for files under its folder).
 */
export function renderNestedInstructions(files: readonly InstructionFile[]): string {
  return files
    .map((f) => {
      const folder = f.shownPath.includes('/') ? f.shownPath.slice(0, f.shownPath.lastIndexOf('/') + 1) : './';
      return `[Project instructions from ${f.shownPath}: they apply to files under ${folder} and take precedence over less specific instructions there${f.truncated ? ' (cut at 32 KiB)' : ''}]\n${f.text}`;
    })
    .join('\n\n');
}
