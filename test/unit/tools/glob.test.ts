import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGlobTool, GLOB_MAX_RESULTS } from '../../../electron/tools/builtin/glob.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

const tool = createGlobTool();

describe('glob', () => {
  const dirs = useWorkspaceDirs();

  it('returns sorted workspace-relative paths, skipping node_modules and .git', async () => {
    put(dirs.ws.dir, 'src/b.ts', '');
    put(dirs.ws.dir, 'src/a.ts', '');
    put(dirs.ws.dir, 'src/deep/c.ts', '');
    put(dirs.ws.dir, 'src/readme.md', '');
    put(dirs.ws.dir, '.config/x.ts', '');
    put(dirs.ws.dir, 'node_modules/pkg/index.ts', '');
    put(dirs.ws.dir, 'src/node_modules/inner.ts', '');
    put(dirs.ws.dir, '.git/hooks/h.ts', '');
    const out = await tool.execute({ pattern: '**/*.ts' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe(
      '.config/x.ts\nsrc/a.ts\nsrc/b.ts\nsrc/deep/c.ts\n[Not searched: 2 ignored folders: node_modules/, src/node_modules/. Name an ignored path explicitly (as path, or as the start of the pattern) to search it.]',
    );
    expect(out.meta).toEqual({ pattern: '**/*.ts', matches: 4, truncated: false, skipped: { ignoredDirs: 2, ignoredFiles: 0, linksOutside: 0, linkedDirs: 0, special: 0 } });
    expect((await tool.execute({ pattern: 'src/*.{ts,md}' }, makeCtx(dirs.ws.dir))).content).toBe('src/a.ts\nsrc/b.ts\nsrc/readme.md');
    expect((await tool.execute({ pattern: './src/deep/*' }, makeCtx(dirs.ws.dir))).content).toBe('src/deep/c.ts');
    expect((await tool.execute({ pattern: `${dirs.ws.dir}/src/deep/*` }, makeCtx(dirs.ws.dir))).content).toBe('src/deep/c.ts');
  });

  it('says when nothing matches', async () => {
    const out = await tool.execute({ pattern: '**/*.rs' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe("No files match '**/*.rs'.");
    expect(out.meta).toEqual({ pattern: '**/*.rs', matches: 0, truncated: false, skipped: { ignoredDirs: 0, ignoredFiles: 0, linksOutside: 0, linkedDirs: 0, special: 0 } });
  });

  it(`caps the result at ${GLOB_MAX_RESULTS} paths with a notice`, async () => {
    for (let i = 0; i < GLOB_MAX_RESULTS + 7; i++) put(dirs.ws.dir, `g/f${String(i).padStart(4, '0')}.txt`, '');
    const out = await tool.execute({ pattern: 'g/*.txt' }, makeCtx(dirs.ws.dir));
    const lines = out.content.split('\n');
    expect(lines).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(lines[0]).toBe('g/f0000.txt');
    expect(lines.at(-1)).toBe(`[7 more matches not shown (${GLOB_MAX_RESULTS + 7} in total). Use a more specific pattern.]`);
    expect(out.meta).toMatchObject({ matches: GLOB_MAX_RESULTS + 7, truncated: true });
  });

  it('never lists files outside the workspace', async () => {
    put(dirs.outside.dir, 'secret.ts', '');
    symlinkSync(dirs.outside.dir, path.join(dirs.ws.dir, 'out'));
    symlinkSync(path.join(dirs.outside.dir, 'secret.ts'), path.join(dirs.ws.dir, 'link.ts'));
    put(dirs.ws.dir, 'ok.ts', '');
    expect((await tool.execute({ pattern: '**/*.ts' }, makeCtx(dirs.ws.dir))).content).toBe('ok.ts\n[Not searched: 1 link to files outside the workspace; 1 linked folder (links are not followed).]');
    // A pattern whose literal folder is a link out of the workspace says so.
    await expectToolError(tool.execute({ pattern: 'out/*' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: '../*' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: '/etc/*' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: '  ' }, makeCtx(dirs.ws.dir)), 'INVALID_ARGS');
  });

  it('stops with ABORTED when the signal is aborted', async () => {
    put(dirs.ws.dir, 'a.ts', '');
    const controller = new AbortController();
    controller.abort();
    await expectToolError(tool.execute({ pattern: '**/*' }, makeCtx(dirs.ws.dir, { signal: controller.signal })), 'ABORTED');
  });

  it('is a concurrency-safe read tool', () => {
    expect(tool.isConcurrencySafe?.({ pattern: '*' })).toBe(true);
    expect(tool.risk).toBe('read');
  });
});
