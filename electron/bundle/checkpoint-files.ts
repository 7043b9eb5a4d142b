/**
 * Workspace checkpoints in and out of a bundle (issue 26, `--with-files`), through git plumbing
 * on the shadow repository (`<data dir>/checkpoints.git`, electron/workspace/checkpoints.ts).
 *
 * Out: a checkpoint commit's tree as a file list (path, mode, blob) and the files' bytes.
 * In: the same files become blobs (`hash-object -w`), a tree (`update-index --index-info` into a
 * private index, then `write-tree`) and a commit (`commit-tree`, fixed identity and the original
 * commit's dates), all without writing a single file into any folder: paths from a bundle only ever
 * reach git's index, after {@link isSafeRelativePath}. An unredacted checkpoint gets the very tree
 * id it had; its commit id differs (the commit has no parent here), so the importer maps old ids
 * to new ones.
 *
 * Every id reaching git is validated first and every revision argument follows `--end-of-options`
 * where the command parses it (as checkpoints.ts does).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isCheckpointId } from '../workspace/checkpoints.js';
import { BundleError, isSafeRelativePath } from './bundle-format.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Forkline',
  GIT_AUTHOR_EMAIL: 'checkpoints@forkline.invalid',
  GIT_COMMITTER_NAME: 'Forkline',
  GIT_COMMITTER_EMAIL: 'checkpoints@forkline.invalid',
};

/** One entry of a checkpoint's tree. */
export interface TreeEntry {
  readonly mode: string;
  /** git object type: `blob` or `commit` (a submodule). */
  readonly type: string;
  readonly oid: string;
  readonly path: string;
}

/** Plumbing on one shadow repository. */
export class CheckpointGit {
  readonly gitDir: string;

  /** @param gitDir the shadow repository, e.g. `<data dir>/checkpoints.git`. */
  constructor(
    gitDir: string,
    private readonly git = 'git',
    private readonly timeoutMs = 60_000,
  ) {
    this.gitDir = resolve(gitDir);
  }

  /** True when the shadow repository exists. */
  exists(): boolean {
    return existsSync(join(this.gitDir, 'HEAD'));
  }

  private run(args: readonly string[], options: { env?: Record<string, string>; input?: Buffer | string; binary?: boolean } = {}): Promise<Buffer> {
    return new Promise((resolvePromise, reject) => {
      const child = execFile(
        this.git,
        ['-c', 'core.autocrlf=false', '-c', 'core.quotepath=false', '-c', 'gc.auto=0', ...args],
        {
          env: { ...process.env, ...IDENTITY, GIT_DIR: this.gitDir, GIT_TERMINAL_PROMPT: '0', ...options.env },
          timeout: this.timeoutMs,
          maxBuffer: 512 * 1024 * 1024,
          encoding: 'buffer',
        },
        (error, stdout, stderr) => {
          if (error) reject(new BundleError('BUNDLE_CHECKPOINTS_UNAVAILABLE', `git ${args[0]} failed: ${stderr.toString('utf8').trim() || error.message}`, undefined, { cause: error }));
          else resolvePromise(stdout);
        },
      );
      // A command that reads no input may exit before it is written: its own result tells how it went.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input ?? '');
    });
  }

  /** Creates the shadow repository when it does not exist yet. */
  async init(): Promise<void> {
    if (this.exists()) return;
    mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
    await this.run(['init', '--bare', '--quiet', this.gitDir]);
  }

  /** True when `commit` is a commit object here. */
  async hasCommit(commit: string): Promise<boolean> {
    if (!isCheckpointId(commit) || !this.exists()) return false;
    try {
      return (await this.run(['cat-file', '-t', commit])).toString('utf8').trim() === 'commit';
    } catch {
      return false;
    }
  }

  /** The commit's author and committer dates (git's `raw` format, `<seconds> <zone>`). */
  async commitDates(commit: string): Promise<{ readonly author: string; readonly committer: string }> {
    requireId(commit);
    const out = (await this.run(['show', '-s', '--format=%ad%n%cd', '--date=raw', '--end-of-options', commit])).toString('utf8').trim().split('\n');
    return { author: out[0] ?? '', committer: out[1] ?? out[0] ?? '' };
  }

  /** Every entry of the commit's tree, recursively. */
  async listTree(commit: string): Promise<TreeEntry[]> {
    requireId(commit);
    const out = (await this.run(['ls-tree', '-r', '-z', '--full-tree', '--end-of-options', commit])).toString('utf8');
    const entries: TreeEntry[] = [];
    for (const record of out.split('\0')) {
      if (record === '') continue;
      const tab = record.indexOf('\t');
      const [mode, type, oid] = record.slice(0, tab).split(' ');
      entries.push({ mode: mode!, type: type!, oid: oid!, path: record.slice(tab + 1) });
    }
    return entries;
  }

  /** The bytes of blob objects, by id, read through one `cat-file --batch`. */
  async readBlobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    for (const oid of unique) requireId(oid);
    const out = new Map<string, Buffer>();
    if (unique.length === 0) return out;
    const raw = await this.run(['cat-file', '--batch'], { input: `${unique.join('\n')}\n` });
    let at = 0;
    while (at < raw.length) {
      const nl = raw.indexOf(0x0a, at);
      const [oid, type, size] = raw.subarray(at, nl).toString('utf8').split(' ');
      if (type !== 'blob' || size === undefined) throw new BundleError('BUNDLE_CHECKPOINTS_UNAVAILABLE', `checkpoint object ${oid} is ${type ?? 'missing'}`);
      const n = Number(size);
      out.set(oid!, Buffer.from(raw.subarray(nl + 1, nl + 1 + n)));
      at = nl + 1 + n + 1;
    }
    return out;
  }

  /** Stores `bytes` as a blob; returns its id. */
  async writeBlob(bytes: Buffer): Promise<string> {
    const oid = (await this.run(['hash-object', '-w', '--stdin'], { input: bytes })).toString('utf8').trim();
    return requireId(oid);
  }

  /**
   * Builds a tree from `files` (each path checked with {@link isSafeRelativePath}, modes limited to
   * regular, executable and symbolic link) and a parentless commit of it dated `dates`.
   * @returns the commit id and the tree id.
   * @throws BundleError IMPORT_BUNDLE_UNSAFE for a bad path or mode.
   */
  async writeCommit(
    files: readonly { readonly path: string; readonly mode: string; readonly oid: string }[],
    message: string,
    dates?: { readonly author: string; readonly committer: string },
  ): Promise<{ commit: string; tree: string }> {
    const index = join(this.gitDir, `index-bundle-${process.pid}-${Date.now()}`);
    try {
      const lines: string[] = [];
      for (const f of files) {
        if (!isSafeRelativePath(f.path)) throw new BundleError('IMPORT_BUNDLE_UNSAFE', `a checkpoint file path ${JSON.stringify(String(f.path).slice(0, 200))} would leave its folder`);
        if (f.mode !== '100644' && f.mode !== '100755' && f.mode !== '120000') throw new BundleError('IMPORT_BUNDLE_UNSAFE', `checkpoint file ${f.path} has mode ${f.mode}`);
        lines.push(`${f.mode} ${requireId(f.oid)}\t${f.path}\0`);
      }
      const env = { GIT_INDEX_FILE: index };
      await this.run(['update-index', '--add', '-z', '--index-info'], { env, input: lines.join('') });
      const tree = requireId((await this.run(['write-tree'], { env })).toString('utf8').trim());
      const dateEnv: Record<string, string> = dates ? { GIT_AUTHOR_DATE: dates.author, GIT_COMMITTER_DATE: dates.committer } : {};
      const commit = requireId((await this.run(['commit-tree', tree, '-m', message], { env: dateEnv })).toString('utf8').trim());
      return { commit, tree };
    } finally {
      rmSync(index, { force: true });
    }
  }

  /** The tree id of a commit. */
  async treeOf(commit: string): Promise<string> {
    requireId(commit);
    return requireId((await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}^{tree}`])).toString('utf8').trim());
  }

  /** Points `refs/forkline/<name>` at `commit` (keeps it reachable). */
  async setRef(name: string, commit: string): Promise<void> {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(name)) throw new BundleError('IMPORT_BUNDLE_UNSAFE', `${JSON.stringify(name)} is not a usable ref name`);
    await this.run(['update-ref', '--end-of-options', `refs/forkline/${name}`, requireId(commit)]);
  }
}

function requireId(value: string): string {
  if (!isCheckpointId(value)) throw new BundleError('IMPORT_BUNDLE_UNSAFE', `${JSON.stringify(String(value).slice(0, 80))} is not a git object id`);
  return value;
}
