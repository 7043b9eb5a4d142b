import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createListDirTool, LIST_DIR_MAX_ENTRIES } from '../../../electron/tools/builtin/list-dir.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

const tool = createListDirTool();

describe('list_dir', () => {
  const dirs = useWorkspaceDirs();

  it('lists entries sorted with directories marked by a trailing slash', async () => {
    put(dirs.ws.dir, 'b.txt', '');
    put(dirs.ws.dir, 'A.md', '');
    put(dirs.ws.dir, 'src/index.ts', '');
    put(dirs.ws.dir, '.env', '');
    mkdirSync(path.join(dirs.ws.dir, 'empty'));
    symlinkSync(path.join(dirs.ws.dir, 'src'), path.join(dirs.ws.dir, 'src-link'));
    const out = await tool.execute({ path: '.' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe('.env\nA.md\nb.txt\nempty/\nsrc/\nsrc-link/');
    expect(out.meta).toEqual({ path: '.', entries: 6, truncated: false });
    const sub = await tool.execute({ path: 'src' }, makeCtx(dirs.ws.dir));
    expect(sub.content).toBe('index.ts');
    expect((await tool.execute({ path: 'empty' }, makeCtx(dirs.ws.dir))).content).toBe('(empty directory)');
  });

  it(`caps the listing at ${LIST_DIR_MAX_ENTRIES} entries with a notice`, async () => {
    for (let i = 0; i < LIST_DIR_MAX_ENTRIES + 5; i++) put(dirs.ws.dir, `many/f${String(i).padStart(4, '0')}`, '');
    const out = await tool.execute({ path: 'many' }, makeCtx(dirs.ws.dir));
    const lines = out.content.split('\n');
    expect(lines).toHaveLength(LIST_DIR_MAX_ENTRIES + 1);
    expect(lines[0]).toBe('f0000');
    expect(lines.at(-1)).toBe(`[5 more entries not shown (${LIST_DIR_MAX_ENTRIES + 5} in total). Use glob to search for specific files.]`);
    expect(out.meta).toEqual({ path: 'many', entries: LIST_DIR_MAX_ENTRIES + 5, truncated: true });
  });

  it('refuses files, missing paths and paths outside the workspace', async () => {
    put(dirs.ws.dir, 'f.txt', '');
    await expectToolError(tool.execute({ path: 'f.txt' }, makeCtx(dirs.ws.dir)), 'INVALID_ARGS', /read_file/);
    await expectToolError(tool.execute({ path: 'nope' }, makeCtx(dirs.ws.dir)), 'NOT_FOUND');
    await expectToolError(tool.execute({ path: '..' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ path: '/etc' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    symlinkSync(dirs.outside.dir, path.join(dirs.ws.dir, 'out'));
    await expectToolError(tool.execute({ path: 'out' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('is a concurrency-safe read tool with a search presentation', () => {
    expect(tool.isConcurrencySafe?.({ path: '.' })).toBe(true);
    expect(tool.risk).toBe('read');
    expect(tool.presentation).toBe('search');
  });
});
