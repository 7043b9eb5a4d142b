import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGrepTool, GREP_MAX_MATCHES } from '../../../electron/tools/builtin/grep.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

const tool = createGrepTool();

describe('grep', () => {
  const dirs = useWorkspaceDirs();

  it('lists file:line: text for every matching line, files sorted', async () => {
    put(dirs.ws.dir, 'src/b.ts', 'const x = 1;\nfunction hello() {}\r\n');
    put(dirs.ws.dir, 'src/a.ts', 'function helloWorld() {}\n');
    put(dirs.ws.dir, 'README.md', 'say hello\n');
    const out = await tool.execute({ pattern: 'hello\\w*\\(' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe('src/a.ts:1: function helloWorld() {}\nsrc/b.ts:2: function hello() {}');
    expect(out.meta).toEqual({
      pattern: 'hello\\w*\\(',
      path: '.',
      matches: 2,
      files: 2,
      truncated: false,
      filesSearched: 3,
      skipped: { ignoredDirs: 0, ignoredFiles: 0, binary: 0, tooLarge: 0, linksOutside: 0, linkedDirs: 0, special: 0, unreadable: 0 },
    });
  });

  it('skips node_modules, .git and binary files', async () => {
    put(dirs.ws.dir, 'keep.txt', 'needle\n');
    put(dirs.ws.dir, 'node_modules/pkg/index.js', 'needle\n');
    put(dirs.ws.dir, 'lib/node_modules/x.js', 'needle\n');
    put(dirs.ws.dir, '.git/config', 'needle\n');
    put(dirs.ws.dir, 'image.bin', Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]));
    const out = await tool.execute({ pattern: 'needle' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe(
      'keep.txt:1: needle\n[Not searched: 2 ignored folders: lib/node_modules/, node_modules/; 1 binary file. Name an ignored path explicitly (as path, or as the start of the pattern) to search it.]',
    );
  });

  it('limits the search to path and glob', async () => {
    put(dirs.ws.dir, 'src/a.ts', 'target\n');
    put(dirs.ws.dir, 'src/sub/b.ts', 'target\n');
    put(dirs.ws.dir, 'src/c.js', 'target\n');
    put(dirs.ws.dir, 'other/d.ts', 'target\n');
    expect((await tool.execute({ pattern: 'target', path: 'src', glob: '*.ts' }, makeCtx(dirs.ws.dir))).content).toBe('src/a.ts:1: target\nsrc/sub/b.ts:1: target');
    expect((await tool.execute({ pattern: 'target', glob: 'src/*.ts' }, makeCtx(dirs.ws.dir))).content).toBe('src/a.ts:1: target');
    expect((await tool.execute({ pattern: 'target', path: 'src/c.js' }, makeCtx(dirs.ws.dir))).content).toBe('src/c.js:1: target');
  });

  it('reports no matches as a normal result', async () => {
    put(dirs.ws.dir, 'a.txt', 'abc\n');
    const out = await tool.execute({ pattern: 'xyz' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe("No matches for /xyz/ in '.'.");
    expect(out.isError).toBeUndefined();
  });

  it(`caps at ${GREP_MAX_MATCHES} matching lines with a notice`, async () => {
    put(dirs.ws.dir, 'many.txt', Array.from({ length: GREP_MAX_MATCHES + 20 }, (_, i) => `hit ${i + 1}`).join('\n'));
    const out = await tool.execute({ pattern: '^hit' }, makeCtx(dirs.ws.dir));
    const lines = out.content.split('\n');
    expect(lines).toHaveLength(GREP_MAX_MATCHES + 1);
    expect(lines[GREP_MAX_MATCHES - 1]).toBe(`many.txt:${GREP_MAX_MATCHES}: hit ${GREP_MAX_MATCHES}`);
    expect(lines.at(-1)).toBe(`[20 more matching lines not shown (${GREP_MAX_MATCHES + 20} in total in 1 file). Narrow the pattern, path or glob.]`);
    expect(out.meta).toMatchObject({ matches: GREP_MAX_MATCHES + 20, truncated: true });
  });

  it('refuses an invalid regular expression with INVALID_ARGS', async () => {
    await expectToolError(tool.execute({ pattern: 'foo(' }, makeCtx(dirs.ws.dir)), 'INVALID_ARGS', /not a valid JavaScript regular expression/);
  });

  it('never reads outside the workspace', async () => {
    put(dirs.outside.dir, 'secret.txt', 'needle\n');
    symlinkSync(dirs.outside.dir, path.join(dirs.ws.dir, 'out'));
    symlinkSync(path.join(dirs.outside.dir, 'secret.txt'), path.join(dirs.ws.dir, 'link.txt'));
    expect((await tool.execute({ pattern: 'needle' }, makeCtx(dirs.ws.dir))).content).toBe(
      "No matches for /needle/ in '.'.\n[Not searched: 1 link to files outside the workspace; 1 linked folder (links are not followed).]",
    );
    expect((await tool.execute({ pattern: 'needle', glob: 'out/*' }, makeCtx(dirs.ws.dir))).content).toMatch(/^No matches/);
    await expectToolError(tool.execute({ pattern: 'needle', path: 'out' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: 'needle', path: 'link.txt' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: 'root', path: '/etc/passwd' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: 'x', glob: '../*' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: 'x', path: 'missing' }, makeCtx(dirs.ws.dir)), 'NOT_FOUND');
  });

  it('is a concurrency-safe read tool with a search presentation', () => {
    expect(tool.isConcurrencySafe?.({ pattern: 'x' })).toBe(true);
    expect(tool.presentation).toBe('search');
  });
});
