import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInside, resolveInWorkspace, toWorkspaceRelative } from '../../../electron/tools/workspace-path.js';
import { expectToolError, put, tempDir } from './helpers.js';

describe('resolveInWorkspace', () => {
  let ws: ReturnType<typeof tempDir>;
  let outside: ReturnType<typeof tempDir>;
  beforeEach(() => {
    ws = tempDir();
    outside = tempDir('forkline-outside-');
  });
  afterEach(() => {
    ws.cleanup();
    outside.cleanup();
  });

  it('resolves relative, dotted and absolute-inside paths to real paths in the workspace', async () => {
    put(ws.dir, 'src/a.ts', 'x');
    expect(await resolveInWorkspace(ws.dir, 'src/a.ts')).toBe(path.join(ws.dir, 'src/a.ts'));
    expect(await resolveInWorkspace(ws.dir, './src/../src/a.ts')).toBe(path.join(ws.dir, 'src/a.ts'));
    expect(await resolveInWorkspace(ws.dir, path.join(ws.dir, 'src/a.ts'))).toBe(path.join(ws.dir, 'src/a.ts'));
    expect(await resolveInWorkspace(ws.dir, '')).toBe(ws.dir);
    expect(await resolveInWorkspace(ws.dir, '.')).toBe(ws.dir);
  });

  it('resolves a file that does not exist yet below missing folders', async () => {
    expect(await resolveInWorkspace(ws.dir, 'new/deep/file.txt')).toBe(path.join(ws.dir, 'new/deep/file.txt'));
  });

  it('follows symlinks that stay inside the workspace', async () => {
    put(ws.dir, 'real/f.txt', 'x');
    symlinkSync(path.join(ws.dir, 'real'), path.join(ws.dir, 'alias'));
    expect(await resolveInWorkspace(ws.dir, 'alias/f.txt')).toBe(path.join(ws.dir, 'real/f.txt'));
    expect(await resolveInWorkspace(ws.dir, 'alias/new.txt')).toBe(path.join(ws.dir, 'real/new.txt'));
  });

  it('refuses ../ escapes, naming the path and the workspace', async () => {
    const error = await expectToolError(resolveInWorkspace(ws.dir, '../x'), 'PATH_OUTSIDE_WORKSPACE');
    expect(error.message).toContain("'../x'");
    expect(error.message).toContain(ws.dir);
    await expectToolError(resolveInWorkspace(ws.dir, 'a/../../x'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses absolute paths outside the workspace', async () => {
    await expectToolError(resolveInWorkspace(ws.dir, '/etc/passwd'), 'PATH_OUTSIDE_WORKSPACE', /\/etc\/passwd/);
    // A sibling folder whose name starts with the workspace's name is still outside.
    await expectToolError(resolveInWorkspace(ws.dir, `${ws.dir}-other/f`), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses a symlink inside the workspace that points outside', async () => {
    put(outside.dir, 'secret.txt', 'secret');
    symlinkSync(path.join(outside.dir, 'secret.txt'), path.join(ws.dir, 'link.txt'));
    const error = await expectToolError(resolveInWorkspace(ws.dir, 'link.txt'), 'PATH_OUTSIDE_WORKSPACE');
    expect(error.message).toContain(path.join(outside.dir, 'secret.txt'));
  });

  it('refuses a new file under a symlinked folder that points outside', async () => {
    symlinkSync(outside.dir, path.join(ws.dir, 'out'));
    await expectToolError(resolveInWorkspace(ws.dir, 'out/new/file.txt'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses a dangling symlink whose target would be created outside', async () => {
    symlinkSync(path.join(outside.dir, 'not-yet.txt'), path.join(ws.dir, 'dangling.txt'));
    await expectToolError(resolveInWorkspace(ws.dir, 'dangling.txt'), 'PATH_OUTSIDE_WORKSPACE');
    symlinkSync('../../nowhere-dir', path.join(ws.dir, 'dangling-dir'));
    await expectToolError(resolveInWorkspace(ws.dir, 'dangling-dir/f.txt'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('accepts a dangling symlink pointing inside and returns its target', async () => {
    symlinkSync('later.txt', path.join(ws.dir, 'pending.txt'));
    expect(await resolveInWorkspace(ws.dir, 'pending.txt')).toBe(path.join(ws.dir, 'later.txt'));
  });

  it('reports symlink loops and NUL bytes', async () => {
    symlinkSync('loop-b', path.join(ws.dir, 'loop-a'));
    symlinkSync('loop-a', path.join(ws.dir, 'loop-b'));
    await expectToolError(resolveInWorkspace(ws.dir, 'loop-a'), 'TOOL_ERROR', /symlink/);
    await expectToolError(resolveInWorkspace(ws.dir, 'a\0b'), 'INVALID_ARGS');
  });

  it('accepts a workspace given through a symlink alias', async () => {
    mkdirSync(path.join(outside.dir, 'x'));
    const alias = path.join(outside.dir, 'alias');
    symlinkSync(ws.dir, alias);
    put(ws.dir, 'f.txt', 'x');
    expect(await resolveInWorkspace(alias, 'f.txt')).toBe(path.join(ws.dir, 'f.txt'));
  });
});

describe('isInside / toWorkspaceRelative', () => {
  it('compares by path segments', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
    expect(isInside('/a/b', '/a/b/..c')).toBe(true);
  });
  it('shows workspace-relative paths', () => {
    expect(toWorkspaceRelative('/w', '/w')).toBe('.');
    expect(toWorkspaceRelative('/w', '/w/a/b.ts')).toBe('a/b.ts');
  });
});
