/**
 * Checkpoint ids reach git from session logs (issue 8): they must be full hex object ids, and refs
 * must be ours. A bad id is refused before git runs or anything is created.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCheckpointId, WorkspaceCheckpoints } from '../../../electron/workspace/checkpoints.js';

const dir = mkdtempSync(join(tmpdir(), 'forkline-ckpt-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('checkpoint ids', () => {
  it('only full lowercase hex object ids (SHA-1 or SHA-256) are ids', () => {
    expect(isCheckpointId('a'.repeat(40))).toBe(true);
    expect(isCheckpointId('0'.repeat(64))).toBe(true);
    for (const bad of ['abc123', 'A'.repeat(40), `--output=${'a'.repeat(40)}`, 'HEAD', 'a'.repeat(41), `${'a'.repeat(40)}\n`, 'refs/forkline/x', 42, undefined]) {
      expect(isCheckpointId(bad), String(bad)).toBe(false);
    }
  });

  it('restore, diff, changedFiles and pin refuse option-like or abbreviated ids before git runs', async () => {
    const git = join(dir, 'no-such-git');
    const ckpt = new WorkspaceCheckpoints(join(dir, 'shadow.git'), { git });
    const good = 'a'.repeat(40);
    const target = join(dir, 'target');
    expect(await codeOf(ckpt.restore('--index-output=/tmp/x', target))).toBe('INVALID_CHECKPOINT');
    expect(existsSync(target)).toBe(false);
    expect(await codeOf(ckpt.diff(`--output=${join(dir, 'victim')}`, good))).toBe('INVALID_CHECKPOINT');
    expect(await codeOf(ckpt.changedFiles(good, 'abc123'))).toBe('INVALID_CHECKPOINT');
    expect(await codeOf(ckpt.pin('refs/forkline/ok', 'HEAD'))).toBe('INVALID_CHECKPOINT');
    expect(await codeOf(ckpt.pin('refs/heads/main', good))).toBe('INVALID_CHECKPOINT');
    expect(await codeOf(ckpt.snapshot(dir, 'refs/forkline/../x', 'm'))).toBe('INVALID_CHECKPOINT');
    // The shadow repository was never even initialised: git was not run.
    expect(existsSync(join(dir, 'shadow.git'))).toBe(false);
  });
});
