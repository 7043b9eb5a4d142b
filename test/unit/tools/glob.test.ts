import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGlobTool, GLOB_MAX_RESULTS } from '../../../electron/tools/builtin/glob.js';
import { expectToolError, makeCtx, put, tempDir } from './helpers.js';

const tool = createGlobTool();

describe('glob', () => {
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

  it('returns sorted workspace-relative paths, skipping node_modules and .git', async () => {
    put(ws.dir, 'src/b.ts', '');
    put(ws.dir, 'src/a.ts', '');
    put(ws.dir, 'src/deep/c.ts', '');
    put(ws.dir, 'src/readme.md', '');
    put(ws.dir, '.config/x.ts', '');
    put(ws.dir, 'node_modules/pkg/index.ts', '');
    put(ws.dir, 'src/node_modules/inner.ts', '');
    put(ws.dir, '.git/hooks/h.ts', '');
    const out = await tool.execute({ pattern: '**/*.ts' }, makeCtx(ws.dir));
    expect(out.content).toBe('.config/x.ts\nsrc/a.ts\nsrc/b.ts\nsrc/deep/c.ts');
    expect(out.meta).toEqual({ pattern: '**/*.ts', matches: 4, truncated: false });
    expect((await tool.execute({ pattern: 'src/*.{ts,md}' }, makeCtx(ws.dir))).content).toBe('src/a.ts\nsrc/b.ts\nsrc/readme.md');
    expect((await tool.execute({ pattern: './src/deep/*' }, makeCtx(ws.dir))).content).toBe('src/deep/c.ts');
    expect((await tool.execute({ pattern: `${ws.dir}/src/deep/*` }, makeCtx(ws.dir))).content).toBe('src/deep/c.ts');
  });

  it('says when nothing matches', async () => {
    const out = await tool.execute({ pattern: '**/*.rs' }, makeCtx(ws.dir));
    expect(out.content).toBe("No files match '**/*.rs'.");
    expect(out.meta).toEqual({ pattern: '**/*.rs', matches: 0, truncated: false });
  });

  it(`caps the result at ${GLOB_MAX_RESULTS} paths with a notice`, async () => {
    for (let i = 0; i < GLOB_MAX_RESULTS + 7; i++) put(ws.dir, `g/f${String(i).padStart(4, '0')}.txt`, '');
    const out = await tool.execute({ pattern: 'g/*.txt' }, makeCtx(ws.dir));
    const lines = out.content.split('\n');
    expect(lines).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(lines[0]).toBe('g/f0000.txt');
    expect(lines.at(-1)).toBe(`[7 more matches not shown (${GLOB_MAX_RESULTS + 7} in total). Use a more specific pattern.]`);
    expect(out.meta).toMatchObject({ matches: GLOB_MAX_RESULTS + 7, truncated: true });
  });

  it('never lists files outside the workspace', async () => {
    put(outside.dir, 'secret.ts', '');
    symlinkSync(outside.dir, path.join(ws.dir, 'out'));
    symlinkSync(path.join(outside.dir, 'secret.ts'), path.join(ws.dir, 'link.ts'));
    put(ws.dir, 'ok.ts', '');
    expect((await tool.execute({ pattern: '**/*.ts' }, makeCtx(ws.dir))).content).toBe('ok.ts');
    expect((await tool.execute({ pattern: 'out/*' }, makeCtx(ws.dir))).content).toBe("No files match 'out/*'.");
    await expectToolError(tool.execute({ pattern: '../*' }, makeCtx(ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: '/etc/*' }, makeCtx(ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ pattern: '  ' }, makeCtx(ws.dir)), 'INVALID_ARGS');
  });

  it('stops with ABORTED when the signal is aborted', async () => {
    put(ws.dir, 'a.ts', '');
    const controller = new AbortController();
    controller.abort();
    await expectToolError(tool.execute({ pattern: '**/*' }, makeCtx(ws.dir, { signal: controller.signal })), 'ABORTED');
  });

  it('is a concurrency-safe read tool', () => {
    expect(tool.isConcurrencySafe?.({ pattern: '*' })).toBe(true);
    expect(tool.risk).toBe('read');
  });
});
