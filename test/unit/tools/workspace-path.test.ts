import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, resolveInWorkspace, toWorkspaceRelative } from '../../../electron/tools/workspace-path.js';
import { expectToolError, put, useWorkspaceDirs } from './helpers.js';

describe('resolveInWorkspace', () => {
  const dirs = useWorkspaceDirs();

  it('resolves relative, dotted and absolute-inside paths to real paths in the workspace', async () => {
    put(dirs.ws.dir, 'src/a.ts', 'x');
    expect(await resolveInWorkspace(dirs.ws.dir, 'src/a.ts')).toBe(path.join(dirs.ws.dir, 'src/a.ts'));
    expect(await resolveInWorkspace(dirs.ws.dir, './src/../src/a.ts')).toBe(path.join(dirs.ws.dir, 'src/a.ts'));
    expect(await resolveInWorkspace(dirs.ws.dir, path.join(dirs.ws.dir, 'src/a.ts'))).toBe(path.join(dirs.ws.dir, 'src/a.ts'));
    expect(await resolveInWorkspace(dirs.ws.dir, '')).toBe(dirs.ws.dir);
    expect(await resolveInWorkspace(dirs.ws.dir, '.')).toBe(dirs.ws.dir);
  });

  it('resolves a file that does not exist yet below missing folders', async () => {
    expect(await resolveInWorkspace(dirs.ws.dir, 'new/deep/file.txt')).toBe(path.join(dirs.ws.dir, 'new/deep/file.txt'));
  });

  it('follows symlinks that stay inside the workspace', async () => {
    put(dirs.ws.dir, 'real/f.txt', 'x');
    symlinkSync(path.join(dirs.ws.dir, 'real'), path.join(dirs.ws.dir, 'alias'));
    expect(await resolveInWorkspace(dirs.ws.dir, 'alias/f.txt')).toBe(path.join(dirs.ws.dir, 'real/f.txt'));
    expect(await resolveInWorkspace(dirs.ws.dir, 'alias/new.txt')).toBe(path.join(dirs.ws.dir, 'real/new.txt'));
  });

  it('refuses ../ escapes, naming the path and the workspace', async () => {
    const error = await expectToolError(resolveInWorkspace(dirs.ws.dir, '../x'), 'PATH_OUTSIDE_WORKSPACE');
    expect(error.message).toContain("'../x'");
    expect(error.message).toContain(dirs.ws.dir);
    await expectToolError(resolveInWorkspace(dirs.ws.dir, 'a/../../x'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses absolute paths outside the workspace', async () => {
    await expectToolError(resolveInWorkspace(dirs.ws.dir, '/etc/passwd'), 'PATH_OUTSIDE_WORKSPACE', /\/etc\/passwd/);
    // A sibling folder whose name starts with the workspace's name is still dirs.outside.
    await expectToolError(resolveInWorkspace(dirs.ws.dir, `${dirs.ws.dir}-other/f`), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses a symlink inside the workspace that points outside', async () => {
    put(dirs.outside.dir, 'secret.txt', 'secret');
    symlinkSync(path.join(dirs.outside.dir, 'secret.txt'), path.join(dirs.ws.dir, 'link.txt'));
    const error = await expectToolError(resolveInWorkspace(dirs.ws.dir, 'link.txt'), 'PATH_OUTSIDE_WORKSPACE');
    expect(error.message).toContain(path.join(dirs.outside.dir, 'secret.txt'));
  });

  it('refuses a new file under a symlinked folder that points outside', async () => {
    symlinkSync(dirs.outside.dir, path.join(dirs.ws.dir, 'out'));
    await expectToolError(resolveInWorkspace(dirs.ws.dir, 'out/new/file.txt'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses a dangling symlink whose target would be created outside', async () => {
    symlinkSync(path.join(dirs.outside.dir, 'not-yet.txt'), path.join(dirs.ws.dir, 'dangling.txt'));
    await expectToolError(resolveInWorkspace(dirs.ws.dir, 'dangling.txt'), 'PATH_OUTSIDE_WORKSPACE');
    symlinkSync('../../nowhere-dir', path.join(dirs.ws.dir, 'dangling-dir'));
    await expectToolError(resolveInWorkspace(dirs.ws.dir, 'dangling-dir/f.txt'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('accepts a dangling symlink pointing inside and returns its target', async () => {
    symlinkSync('later.txt', path.join(dirs.ws.dir, 'pending.txt'));
    expect(await resolveInWorkspace(dirs.ws.dir, 'pending.txt')).toBe(path.join(dirs.ws.dir, 'later.txt'));
  });

  it('reports symlink loops and NUL bytes', async () => {
    symlinkSync('loop-b', path.join(dirs.ws.dir, 'loop-a'));
    symlinkSync('loop-a', path.join(dirs.ws.dir, 'loop-b'));
    await expectToolError(resolveInWorkspace(dirs.ws.dir, 'loop-a'), 'TOOL_ERROR', /symlink/);
    await expectToolError(resolveInWorkspace(dirs.ws.dir, 'a\0b'), 'INVALID_ARGS');
  });

  it('accepts a workspace given through a symlink alias', async () => {
    mkdirSync(path.join(dirs.outside.dir, 'x'));
    const alias = path.join(dirs.outside.dir, 'alias');
    symlinkSync(dirs.ws.dir, alias);
    put(dirs.ws.dir, 'f.txt', 'x');
    expect(await resolveInWorkspace(alias, 'f.txt')).toBe(path.join(dirs.ws.dir, 'f.txt'));
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
