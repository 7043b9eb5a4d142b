import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createListDirTool, LIST_DIR_MAX_ENTRIES } from '../../../electron/tools/builtin/list-dir.js';
import { expectToolError, makeCtx, put, tempDir } from './helpers.js';

const tool = createListDirTool();

describe('list_dir', () => {
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

  it('lists entries sorted with directories marked by a trailing slash', async () => {
    put(ws.dir, 'b.txt', '');
    put(ws.dir, 'A.md', '');
    put(ws.dir, 'src/index.ts', '');
    put(ws.dir, '.env', '');
    mkdirSync(path.join(ws.dir, 'empty'));
    symlinkSync(path.join(ws.dir, 'src'), path.join(ws.dir, 'src-link'));
    const out = await tool.execute({ path: '.' }, makeCtx(ws.dir));
    expect(out.content).toBe('.env\nA.md\nb.txt\nempty/\nsrc/\nsrc-link/');
    expect(out.meta).toEqual({ path: '.', entries: 6, truncated: false });
    const sub = await tool.execute({ path: 'src' }, makeCtx(ws.dir));
    expect(sub.content).toBe('index.ts');
    expect((await tool.execute({ path: 'empty' }, makeCtx(ws.dir))).content).toBe('(empty directory)');
  });

  it(`caps the listing at ${LIST_DIR_MAX_ENTRIES} entries with a notice`, async () => {
    for (let i = 0; i < LIST_DIR_MAX_ENTRIES + 5; i++) put(ws.dir, `many/f${String(i).padStart(4, '0')}`, '');
    const out = await tool.execute({ path: 'many' }, makeCtx(ws.dir));
    const lines = out.content.split('\n');
    expect(lines).toHaveLength(LIST_DIR_MAX_ENTRIES + 1);
    expect(lines[0]).toBe('f0000');
    expect(lines.at(-1)).toBe(`[5 more entries not shown (${LIST_DIR_MAX_ENTRIES + 5} in total). Use glob to search for specific files.]`);
    expect(out.meta).toEqual({ path: 'many', entries: LIST_DIR_MAX_ENTRIES + 5, truncated: true });
  });

  it('refuses files, missing paths and paths outside the workspace', async () => {
    put(ws.dir, 'f.txt', '');
    await expectToolError(tool.execute({ path: 'f.txt' }, makeCtx(ws.dir)), 'INVALID_ARGS', /read_file/);
    await expectToolError(tool.execute({ path: 'nope' }, makeCtx(ws.dir)), 'NOT_FOUND');
    await expectToolError(tool.execute({ path: '..' }, makeCtx(ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ path: '/etc' }, makeCtx(ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    symlinkSync(outside.dir, path.join(ws.dir, 'out'));
    await expectToolError(tool.execute({ path: 'out' }, makeCtx(ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('is a concurrency-safe read tool with a search presentation', () => {
    expect(tool.isConcurrencySafe?.({ path: '.' })).toBe(true);
    expect(tool.risk).toBe('read');
    expect(tool.presentation).toBe('search');
  });
});
