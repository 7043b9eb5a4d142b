/**
 * The scratch workspace of `forkline replay --live-tools`: a temporary folder restored to the
 * session's first workspace checkpoint (electron/workspace/checkpoints.ts), where the tools really
 * run, and the git tree hash of that folder after each step — taken the way checkpoints are
 * (`git add --all` into a private index of a temporary bare repository, `write-tree`), so it equals
 * the tree of a logged checkpoint of the same files.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForklineError } from '../../shared/errors.js';
import { execFileOffThread, OffThreadExecError } from '../platform/off-thread-exec.js';
import type { WorkspaceCheckpoints } from '../workspace/checkpoints.js';

/** One git command on the checkpoint repository, launched off this thread (see off-thread-exec.ts). */
async function git(gitDir: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await execFileOffThread('git', ['-c', 'core.autocrlf=false', '-c', 'core.quotepath=false', '-c', 'gc.auto=0', ...args], {
      env: { ...process.env, GIT_DIR: gitDir, GIT_TERMINAL_PROMPT: '0', ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30_000,
    });
    return stdout;
  } catch (error) {
    const stderr = error instanceof OffThreadExecError ? error.stderr.trim() : '';
    throw new ForklineError('REPLAY_GIT_FAILED', `git ${args[0]} failed: ${stderr || (error as Error).message}`);
  }
}

/** `path → blob id` of every file of a tree. */
async function treeFiles(gitDir: string, tree: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const line of (await git(gitDir, ['ls-tree', '-r', '-z', '--end-of-options', tree])).split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    out.set(line.slice(tab + 1), line.slice(0, tab).split(' ')[2] ?? '');
  }
  return out;
}

/** A scratch copy of a workspace checkpoint; `dispose()` removes it. */
export class ScratchWorkspace {
  private constructor(
    /** The folder the tools run in (real path). */
    readonly dir: string,
    private readonly root: string,
    private readonly scratchGit: string,
    private readonly checkpoints: WorkspaceCheckpoints,
  ) {}

  /**
   * Restores `commit` of the shadow repository `checkpoints` into a new temporary folder.
   * @throws ForklineError INVALID_CHECKPOINT / CHECKPOINT_FAILED (e.g. the commit is not in the repository).
   */
  static async restore(checkpoints: WorkspaceCheckpoints, commit: string): Promise<ScratchWorkspace> {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'forkline-replay-')));
    try {
      const dir = join(root, 'ws');
      await checkpoints.restore(commit, dir);
      const scratchGit = join(root, 'trees.git');
      await git(scratchGit, ['init', '--bare', '--quiet', scratchGit]);
      return new ScratchWorkspace(realpathSync(dir), root, scratchGit, checkpoints);
    } catch (error) {
      rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** The tree hash of the folder now. */
  async tree(): Promise<string> {
    const env = { GIT_WORK_TREE: this.dir, GIT_INDEX_FILE: join(this.root, 'index') };
    await git(this.scratchGit, ['add', '--all', '--', '.'], env);
    return (await git(this.scratchGit, ['write-tree'], env)).trim();
  }

  /** The tree of a logged checkpoint commit (in the shadow repository). */
  async checkpointTree(commit: string): Promise<string> {
    return (await git(this.checkpoints.gitDir, ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`])).trim();
  }

  /** Paths whose content differs between a logged checkpoint's tree and a tree of the scratch (at most `limit`). */
  async changedPaths(loggedTree: string, replayedTree: string, limit = 50): Promise<string[]> {
    const [a, b] = await Promise.all([treeFiles(this.checkpoints.gitDir, loggedTree), treeFiles(this.scratchGit, replayedTree)]);
    const paths = new Set<string>();
    for (const [path, blob] of a) if (b.get(path) !== blob) paths.add(path);
    for (const path of b.keys()) if (!a.has(path)) paths.add(path);
    return [...paths].sort().slice(0, limit);
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
