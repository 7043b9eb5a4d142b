/**
 * The file crawl behind `glob` and `grep` (docs/tools.md: Search that tells the truth).
 *
 * - Skips `node_modules` and `.git` folders and whatever `.gitignore` files (in the workspace root,
 *   in the folders down to where the search starts, and in every folder crawled) exclude, with
 *   git's rules (the `ignore` package; a deeper file overrides a higher one, `!` re-includes). Only
 *   `.gitignore` files are read — never `.git/info/exclude` or git's global excludes — so results are
 *   the same with and without a `.git` folder.
 * - A folder the search starts in is searched even when it is ignored (it was named explicitly).
 * - Never follows a linked folder; a linked file counts only when its real location is inside the
 *   workspace. FIFOs, sockets and devices are never returned (reading them could block).
 * - Everything it skips is counted by reason, so the tools can say what they did not search. The
 *   `.git` folder itself is not counted: it is version-control data, never workspace content.
 */
import type { Dirent, Stats } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ToolError } from '../tool.js';
import { isInside } from '../workspace-path.js';
import { compareCodePoints } from './list-dir.js';

/** Folders never crawled (at any depth) unless a search starts inside them. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

/** A crawl visits at most this many entries; beyond it the result says the crawl stopped. */
export const MAX_WALK_ENTRIES = 500_000;

/** Folder examples kept per reason for the summary. */
const EXAMPLES = 5;

/** What a crawl did not look at, by reason. */
export interface SkipReport {
  /** Folders not entered because they are `node_modules` or matched a `.gitignore` (`.git` not counted). */
  ignoredDirs: number;
  /** A few of them (workspace-relative, with a trailing `/`; `(.gitignore)` after those a .gitignore excludes). */
  readonly ignoredDirExamples: string[];
  /** Files a `.gitignore` excludes. */
  ignoredFiles: number;
  /** Linked files whose real location is outside the workspace. */
  linksOutside: number;
  /** Linked folders (never followed). */
  linkedDirs: number;
  /** FIFOs, sockets, devices. */
  special: number;
  /** Folders that could not be read (permissions). */
  unreadableDirs: number;
  /** The crawl stopped at {@link MAX_WALK_ENTRIES}. */
  stoppedEarly: boolean;
}

export function emptySkipReport(): SkipReport {
  return { ignoredDirs: 0, ignoredDirExamples: [], ignoredFiles: 0, linksOutside: 0, linkedDirs: 0, special: 0, unreadableDirs: 0, stoppedEarly: false };
}

export interface WalkOptions {
  /** Real path of the workspace root. */
  readonly workspace: string;
  /** Real path of the folder to crawl (inside the workspace). */
  readonly base: string;
  /** Whether a file (path relative to `base`, `/`-separated) is wanted. Default: all. */
  readonly matchFile?: (relToBase: string) => boolean;
  /** Whether a folder (relative to `base`) may hold wanted files (prunes the crawl). Default: all. */
  readonly mayContain?: (relDirToBase: string) => boolean;
  readonly signal: AbortSignal;
}

export interface WalkResult {
  /** Wanted regular files (and linked files inside the workspace), absolute, in code-point order of their workspace-relative path. */
  readonly files: string[];
  readonly skipped: SkipReport;
}

/** `.gitignore` rules of one folder. */
interface IgnoreLevel {
  /** Folder of the `.gitignore`, relative to the workspace (`''` for the root). */
  readonly dir: string;
  readonly rules: Ignore;
}

/**
 * Crawls `base`.
 * @throws ToolError ABORTED when `signal` aborts.
 */
export async function walkWorkspace(options: WalkOptions): Promise<WalkResult> {
  const { workspace, base, signal } = options;
  const skipped = emptySkipReport();
  const files: string[] = [];
  const levels: IgnoreLevel[] = [];
  // Rules from the workspace root down to (not including) the base folder.
  const baseRel = toRel(workspace, base);
  const ancestors = baseRel === '' ? [] : baseRel.split('/').map((_, i, parts) => parts.slice(0, i).join('/'));
  for (const dir of ancestors) {
    const level = await loadIgnore(workspace, dir);
    if (level) levels.push(reincludeNamed(level, baseRel));
  }
  let visited = 0;

  const visit = async (dirAbs: string, dirRelToBase: string): Promise<void> => {
    if (signal.aborted) throw new ToolError('ABORTED', 'The search was cancelled.');
    if (skipped.stoppedEarly) return;
    const dirRel = toRel(workspace, dirAbs);
    const own = await loadIgnore(workspace, dirRel);
    if (own) levels.push(own);
    try {
      let entries: Dirent[];
      try {
        entries = await readdir(dirAbs, { withFileTypes: true });
      } catch {
        skipped.unreadableDirs++;
        return;
      }
      entries.sort((a, b) => compareCodePoints(a.name, b.name));
      for (const entry of entries) {
        if (++visited > MAX_WALK_ENTRIES) {
          skipped.stoppedEarly = true;
          return;
        }
        const abs = path.join(dirAbs, entry.name);
        const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
        const relToBase = dirRelToBase === '' ? entry.name : `${dirRelToBase}/${entry.name}`;
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          let target: Stats;
          try {
            target = await stat(abs);
          } catch {
            continue; // a dangling link: nothing to search
          }
          if (target.isDirectory()) {
            if (options.mayContain?.(relToBase) !== false) skipped.linkedDirs++;
            continue;
          }
          if (!target.isFile()) {
            skipped.special++;
            continue;
          }
          const real = await realpath(abs).catch(() => undefined);
          if (real === undefined || !isInside(workspace, real)) {
            if (options.matchFile?.(relToBase) !== false) skipped.linksOutside++;
            continue;
          }
          isFile = true;
          isDir = false;
        }
        if (isDir) {
          if (entry.name === '.git') continue;
          if (options.mayContain !== undefined && !options.mayContain(relToBase)) continue;
          const always = SKIPPED_DIRS.has(entry.name);
          if (always || isIgnored(levels, rel, true)) {
            skipped.ignoredDirs++;
            if (skipped.ignoredDirExamples.length < EXAMPLES) skipped.ignoredDirExamples.push(always ? `${rel}/` : `${rel}/ (.gitignore)`);
            continue;
          }
          await visit(abs, relToBase);
          if (skipped.stoppedEarly) return;
          continue;
        }
        if (!isFile) {
          if (options.matchFile?.(relToBase) !== false) skipped.special++;
          continue;
        }
        if (options.matchFile !== undefined && !options.matchFile(relToBase)) continue;
        if (isIgnored(levels, rel, false)) {
          skipped.ignoredFiles++;
          continue;
        }
        files.push(abs);
      }
    } finally {
      if (own) levels.pop();
    }
  };

  await visit(base, '');
  files.sort((a, b) => compareCodePoints(toRel(workspace, a), toRel(workspace, b)));
  return { files, skipped };
}

/**
 * The folder the search starts in was named explicitly, so it and the folders on its way are
 * searched even when a `.gitignore` above excludes them. The `ignore` package (like
 * `git check-ignore`) reports everything below an excluded folder as excluded, which hid the whole
 * content of a named ignored folder (`glob dist/**\/*.js` with `dist/` in .gitignore found
 * nothing). Git itself only judges the paths it walks, by their own patterns: adding an anchored
 * re-include (`!/dist/`) for each named folder to the ancestors' rules gives exactly that — what
 * is below is still judged by its own patterns (`*.map`, a nested `dist/`).
 */
function reincludeNamed(level: IgnoreLevel, baseRel: string): IgnoreLevel {
  if (baseRel === '') return level;
  const parts = baseRel.split('/');
  const negations: string[] = [];
  for (let i = 1; i <= parts.length; i++) {
    const named = parts.slice(0, i).join('/');
    const local = level.dir === '' ? named : named.startsWith(`${level.dir}/`) ? named.slice(level.dir.length + 1) : undefined;
    if (local !== undefined && local !== '') negations.push(`!/${local.split('/').map(literalSegment).join('/')}/`);
  }
  if (negations.length > 0) level.rules.add(negations.join('\n'));
  return level;
}

/** A path segment as a gitignore pattern that matches only itself (wildcards, `!`, `#`, `\\`, trailing spaces escaped). */
function literalSegment(segment: string): string {
  return segment.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ +$/, (spaces) => spaces.replace(/ /g, '\\ '));
}

/** True when a `.gitignore` of `levels` (root first) excludes `rel` (workspace-relative). */
export function isIgnored(levels: readonly IgnoreLevel[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const local = level.dir === '' ? rel : rel.startsWith(`${level.dir}/`) ? rel.slice(level.dir.length + 1) : undefined;
    if (local === undefined || local === '') continue;
    const result = level.rules.test(isDir ? `${local}/` : local);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Why a workspace-relative path is excluded from crawls, if it is: `node_modules` / `.git` on its
 * way, or a `.gitignore` (checked from the root down). For telling the model that an explicitly
 * named file is normally skipped.
 */
export async function ignoreReason(workspace: string, rel: string): Promise<string | undefined> {
  const parts = rel.split('/');
  const skippedDir = parts.slice(0, -1).find((p) => SKIPPED_DIRS.has(p));
  if (skippedDir !== undefined) return `it is inside ${skippedDir}/`;
  const levels: IgnoreLevel[] = [];
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const level = await loadIgnore(workspace, dir);
    if (level) levels.push(level);
    const sub = parts.slice(0, i + 1).join('/');
    if (isIgnored(levels, sub, i < parts.length - 1)) return `${i < parts.length - 1 ? `${sub}/ is` : 'it is'} excluded by .gitignore`;
  }
  return undefined;
}

async function loadIgnore(workspace: string, dirRel: string): Promise<IgnoreLevel | undefined> {
  const file = path.join(workspace, dirRel, '.gitignore');
  let text: string;
  try {
    const s = await stat(file);
    if (!s.isFile() || s.size > 1024 * 1024) return undefined;
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  return { dir: dirRel, rules: ignore().add(text) };
}

/** `/`-separated path of `abs` relative to `root` (`''` for the root itself). */
function toRel(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** One summary line of what a crawl skipped, or undefined when it skipped nothing worth saying. */
export function describeSkipped(
  skipped: SkipReport,
  extra: { readonly binary?: number; readonly tooLarge?: number; readonly tooLargeLimit?: number; readonly unreadable?: number } = {},
): string | undefined {
  const parts: string[] = [];
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  if (skipped.ignoredDirs > 0) {
    const shown = skipped.ignoredDirExamples.join(', ');
    parts.push(`${plural(skipped.ignoredDirs, 'ignored folder')}: ${shown}${skipped.ignoredDirs > skipped.ignoredDirExamples.length ? ', …' : ''}`);
  }
  if (skipped.ignoredFiles > 0) parts.push(`${plural(skipped.ignoredFiles, 'file')} excluded by .gitignore`);
  if ((extra.binary ?? 0) > 0) parts.push(plural(extra.binary!, 'binary file'));
  if ((extra.tooLarge ?? 0) > 0) parts.push(`${plural(extra.tooLarge!, 'file')} over ${Math.round((extra.tooLargeLimit ?? 0) / (1024 * 1024))} MB`);
  if (skipped.linksOutside > 0) parts.push(`${plural(skipped.linksOutside, 'link')} to files outside the workspace`);
  if (skipped.linkedDirs > 0) parts.push(`${plural(skipped.linkedDirs, 'linked folder')} (links are not followed)`);
  if (skipped.special > 0) parts.push(`${plural(skipped.special, 'special file')} (pipe, socket or device)`);
  if (skipped.unreadableDirs + (extra.unreadable ?? 0) > 0) parts.push(`${plural(skipped.unreadableDirs + (extra.unreadable ?? 0), 'unreadable entry', 'unreadable entries')} (permission denied)`);
  if (parts.length === 0 && !skipped.stoppedEarly) return undefined;
  const stop = skipped.stoppedEarly ? ` The crawl stopped after ${MAX_WALK_ENTRIES} entries; narrow the path or pattern.` : '';
  return `[Not searched: ${parts.join('; ') || 'nothing else'}.${stop}${skipped.ignoredDirs + skipped.ignoredFiles > 0 ? ' Name an ignored path explicitly (as path, or as the start of the pattern) to search it.' : ''}]`;
}
