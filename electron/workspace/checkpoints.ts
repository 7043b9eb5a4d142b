/**
 * Workspace checkpoints (docs/architecture.md §8, "workspace/checkpoint"): snapshots of a session's workspace at
 * turn boundaries, stored as commits in a shadow git repository in the data folder — never in the
 * user's own `.git`. A fork can get its own folder restored to the snapshot at its boundary, and two
 * branches' files can be diffed.
 *
 * Each work tree gets its own index file inside the shadow repository, so concurrent sessions do
 * not disturb each other; ignore rules of the workspace (`.gitignore`) apply. Commits are made with
 * plumbing (`write-tree`, `commit-tree`) and a fixed identity, so no git configuration is needed.
 * Requires the `git` executable.
 *
 * Checkpoint ids reach git from session logs, so they are validated as full hex object ids before
 * any git call ({@link isCheckpointId}), ref names are checked, and every git command that takes
 * revisions gets `--end-of-options` before them (`commit-tree`, which does not parse that marker in
 * git 2.39, only ever gets validated hex ids), so no value can be read as an option (docs/security.md).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ForklineError } from '../../shared/errors.js';
import { execFileOffThread, OffThreadExecError } from '../platform/off-thread-exec.js';

export interface CheckpointOptions {
  /** The git executable (default `git`). */
  readonly git?: string;
  /** Per git command, ms (default 30,000). A snapshot that takes longer is skipped. */
  readonly timeoutMs?: number;
}

/** One changed path between two snapshots. */
export interface ChangedFile {
  /** `A` added, `M` modified, `D` deleted, `R` renamed, … (git's status letters). */
  readonly status: string;
  readonly path: string;
}

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Forkline',
  GIT_AUTHOR_EMAIL: 'checkpoints@forkline.invalid',
  GIT_COMMITTER_NAME: 'Forkline',
  GIT_COMMITTER_EMAIL: 'checkpoints@forkline.invalid',
};

/** A full git object id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits. Abbreviations and names are not ids. */
export function isCheckpointId(value: unknown): value is string {
  return typeof value === 'string' && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

function requireCheckpointId(value: string, what: string): string {
  if (!isCheckpointId(value)) {
    throw new ForklineError('INVALID_CHECKPOINT', `${what} ${JSON.stringify(String(value).slice(0, 80))} is not a checkpoint id (a full hex git object id)`);
  }
  return value;
}

/** Refs this module writes: `refs/forkline/<session id>` with a safe session id. */
function requireRef(ref: string): string {
  if (!/^refs\/forkline\/[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(ref)) {
    throw new ForklineError('INVALID_CHECKPOINT', `${JSON.stringify(ref.slice(0, 160))} is not a checkpoint ref (refs/forkline/<session id>)`);
  }
  return ref;
}

export class WorkspaceCheckpoints {
  /** The shadow repository (a bare git directory, absolute), e.g. `<dataDir>/checkpoints.git`. */
  readonly gitDir: string;
  private readonly git: string;
  private readonly timeoutMs: number;
  private initialized: Promise<void> | undefined;

  constructor(gitDir: string, options: CheckpointOptions = {}) {
    // Absolute, so it can never be read as an option.
    this.gitDir = resolve(gitDir);
    this.git = options.git ?? 'git';
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** One git command on the shadow repository, launched off this thread (see off-thread-exec.ts). */
  private async run(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Promise<string> {
    try {
      const { stdout } = await execFileOffThread(this.git, ['-c', 'core.autocrlf=false', '-c', 'core.quotepath=false', '-c', 'gc.auto=0', ...args], {
        ...(cwd !== undefined ? { cwd } : {}),
        env: { ...process.env, ...IDENTITY, GIT_DIR: this.gitDir, GIT_TERMINAL_PROMPT: '0', ...env },
        timeout: this.timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const stderr = error instanceof OffThreadExecError ? error.stderr.trim() : '';
      throw new ForklineError('CHECKPOINT_FAILED', `git ${args[0]} failed: ${stderr || (error as Error).message}`, { cause: error });
    }
  }

  private init(): Promise<void> {
    this.initialized ??= (async () => {
      if (!existsSync(join(this.gitDir, 'HEAD'))) {
        mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
        await this.run(['init', '--bare', '--quiet', this.gitDir]);
      }
    })();
    return this.initialized;
  }

  private indexFor(workTree: string): string {
    return join(this.gitDir, `index-${createHash('sha256').update(workTree).digest('hex').slice(0, 16)}`);
  }

  /**
   * Snapshots `workTree` and points `ref` (e.g. `refs/forkline/<session>`) at the new commit.
   * When nothing changed since the ref's commit, that commit is returned unchanged.
   * @returns the commit hash.
   * @throws ForklineError CHECKPOINT_FAILED when git fails or times out; INVALID_CHECKPOINT for a bad ref.
   */
  async snapshot(workTree: string, ref: string, message: string): Promise<string> {
    requireRef(ref);
    await this.init();
    const env = { GIT_WORK_TREE: workTree, GIT_INDEX_FILE: this.indexFor(workTree) };
    await this.run(['add', '--all', '--', '.'], env, workTree);
    const tree = requireCheckpointId((await this.run(['write-tree'], env, workTree)).trim(), 'git write-tree returned');
    const parent = await this.resolve(ref);
    if (parent !== undefined && (await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${parent}^{tree}`])).trim() === tree) return parent;
    const commit = requireCheckpointId((await this.run(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message])).trim(), 'git commit-tree returned');
    await this.run(['update-ref', '--end-of-options', ref, commit]);
    return commit;
  }

  /** Keeps `commit` reachable under another ref (e.g. for a fork child). @throws ForklineError INVALID_CHECKPOINT */
  async pin(ref: string, commit: string): Promise<void> {
    requireRef(ref);
    requireCheckpointId(commit, 'checkpoint');
    await this.init();
    await this.run(['update-ref', '--end-of-options', ref, commit]);
  }

  private async resolve(ref: string): Promise<string | undefined> {
    try {
      const id = (await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', ref])).trim();
      return isCheckpointId(id) ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Writes the files of `commit` into `target`, which must not exist or be empty.
   * @throws ForklineError INVALID_CHECKPOINT (checked before anything is created) / CHECKPOINT_FAILED / TARGET_NOT_EMPTY.
   */
  async restore(commit: string, target: string): Promise<void> {
    requireCheckpointId(commit, 'checkpoint');
    await this.init();
    if (existsSync(target) && readdirSync(target).length > 0) throw new ForklineError('TARGET_NOT_EMPTY', `${target} is not empty`);
    mkdirSync(target, { recursive: true });
    const env = { GIT_WORK_TREE: target, GIT_INDEX_FILE: this.indexFor(target) };
    await this.run(['read-tree', '--end-of-options', commit], env, target);
    await this.run(['checkout-index', '--all', '--force'], env, target);
  }

  /**
   * Restores `workTree` in place to `commit` (a rewind): files the snapshot tracks are written as
   * they were, tracked files added since are removed; files git ignores are left alone. The current
   * state should be snapshotted first (see `snapshot`), so nothing is lost.
   * @throws ForklineError INVALID_CHECKPOINT / CHECKPOINT_FAILED
   */
  async restoreInPlace(commit: string, workTree: string): Promise<void> {
    requireCheckpointId(commit, 'checkpoint');
    await this.init();
    const env = { GIT_WORK_TREE: workTree, GIT_INDEX_FILE: this.indexFor(workTree) };
    // The index first matches the folder, so `read-tree -u` knows which files to remove.
    await this.run(['add', '--all', '--', '.'], env, workTree);
    await this.run(['read-tree', '-u', '--reset', '--end-of-options', commit], env, workTree);
    await this.run(['checkout-index', '--all', '--force'], env, workTree);
  }

  /**
   * The bytes of `path` in snapshot `commit`, or undefined when the snapshot has no such file.
   * @throws ForklineError INVALID_CHECKPOINT
   */
  async readBlob(commit: string, path: string): Promise<Buffer | undefined> {
    requireCheckpointId(commit, 'checkpoint');
    await this.init();
    return new Promise((resolve) => {
      execFile(
        this.git,
        ['cat-file', 'blob', `${commit}:${path}`],
        { env: { ...process.env, GIT_DIR: this.gitDir }, timeout: this.timeoutMs, maxBuffer: 256 * 1024 * 1024, encoding: 'buffer' },
        (error, stdout) => resolve(error ? undefined : stdout),
      );
    });
  }

  /** Lines added plus removed between two snapshots (binary files count 1 each). @throws ForklineError INVALID_CHECKPOINT / CHECKPOINT_FAILED */
  async changedLines(from: string, to: string): Promise<number> {
    requireCheckpointId(from, 'checkpoint');
    requireCheckpointId(to, 'checkpoint');
    await this.init();
    const out = await this.run(['diff', '--numstat', '--no-renames', '--end-of-options', from, to]);
    let total = 0;
    for (const line of out.split('\n')) {
      const [added, removed] = line.split('\t');
      if (added === undefined || removed === undefined) continue;
      total += added === '-' ? 1 : Number(added) + Number(removed);
    }
    return total;
  }

  /** Paths that differ between two snapshots. @throws ForklineError INVALID_CHECKPOINT / CHECKPOINT_FAILED */
  async changedFiles(from: string, to: string): Promise<ChangedFile[]> {
    requireCheckpointId(from, 'checkpoint');
    requireCheckpointId(to, 'checkpoint');
    await this.init();
    const out = await this.run(['diff', '--name-status', '--no-renames', '--end-of-options', from, to]);
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [status, ...path] = line.split('\t');
        return { status: status!, path: path.join('\t') };
      });
  }

  /** The unified diff between two snapshots (text files; binary files are named). @throws ForklineError INVALID_CHECKPOINT / CHECKPOINT_FAILED */
  async diff(from: string, to: string): Promise<string> {
    requireCheckpointId(from, 'checkpoint');
    requireCheckpointId(to, 'checkpoint');
    await this.init();
    return this.run(['diff', '--no-color', '--no-ext-diff', '--end-of-options', from, to]);
  }
}
