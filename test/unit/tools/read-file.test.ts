import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReadFileTool, READ_FILE_MAX_LINE_CHARS, READ_FILE_MAX_LINES } from '../../../electron/tools/builtin/read-file.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

/** The file tools log the sha256 of the bytes they saw (the read record is rebuilt from it on resume). */
const SHA256_HEX = expect.stringMatching(/^[0-9a-f]{64}$/);

const tool = createReadFileTool();
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

describe('read_file', () => {
  const dirs = useWorkspaceDirs();

  it('returns numbered lines, meta, and records the sha256 of the bytes', async () => {
    const file = put(dirs.ws.dir, 'src/a.txt', 'first line\nsecond\r\nthird\n');
    const ctx = makeCtx(dirs.ws.dir);
    const out = await tool.execute({ path: 'src/a.txt' }, ctx);
    expect(out.content).toBe('1: first line\n2: second\n3: third');
    expect(out.isError).toBeUndefined();
    expect(out.meta).toEqual({ path: 'src/a.txt', offset: 1, lines: 3, totalLines: 3, sha256: SHA256_HEX });
    expect(ctx.files.lastRead(file)).toBe(sha('first line\nsecond\r\nthird\n'));
  });

  it('reads a window with offset and limit and says how to continue', async () => {
    put(dirs.ws.dir, 'n.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const out = await tool.execute({ path: 'n.txt', offset: 4, limit: 3 }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe('4: line 4\n5: line 5\n6: line 6\n[Showing lines 4-6 of 10. Call read_file with offset=7 to read more.]');
    expect(out.meta).toEqual({ path: 'n.txt', offset: 4, lines: 3, totalLines: 10, sha256: SHA256_HEX });
    const tail = await tool.execute({ path: 'n.txt', offset: 9 }, makeCtx(dirs.ws.dir));
    expect(tail.content).toBe('9: line 9\n10: line 10');
  });

  it(`caps a long file at ${READ_FILE_MAX_LINES} lines and cuts very long lines`, async () => {
    const lines = Array.from({ length: READ_FILE_MAX_LINES + 500 }, (_, i) => `l${i + 1}`);
    lines[0] = 'x'.repeat(READ_FILE_MAX_LINE_CHARS + 10);
    put(dirs.ws.dir, 'big.txt', lines.join('\n') + '\n');
    const out = await tool.execute({ path: 'big.txt', limit: 99_999 }, makeCtx(dirs.ws.dir));
    const shown = out.content.split('\n');
    expect(shown).toHaveLength(READ_FILE_MAX_LINES + 1);
    expect(shown[0]).toBe(`1: ${'x'.repeat(READ_FILE_MAX_LINE_CHARS)}… [line cut: 10 more characters; use bash to see it whole]`);
    expect(shown[READ_FILE_MAX_LINES - 1]).toBe(`${READ_FILE_MAX_LINES}: l${READ_FILE_MAX_LINES}`);
    expect(shown.at(-1)).toBe(`[Showing lines 1-${READ_FILE_MAX_LINES} of ${READ_FILE_MAX_LINES + 500}. Call read_file with offset=${READ_FILE_MAX_LINES + 1} to read more.]`);
    expect(out.meta).toMatchObject({ lines: READ_FILE_MAX_LINES, totalLines: READ_FILE_MAX_LINES + 500 });
  });

  it('reads an empty file and refuses an offset past the end', async () => {
    put(dirs.ws.dir, 'empty.txt', '');
    expect((await tool.execute({ path: 'empty.txt' }, makeCtx(dirs.ws.dir))).content).toBe('(empty file)');
    put(dirs.ws.dir, 'two.txt', 'a\nb\n');
    await expectToolError(tool.execute({ path: 'two.txt', offset: 3 }, makeCtx(dirs.ws.dir)), 'INVALID_ARGS', /past the end.*2 lines/);
  });

  it('refuses missing files, directories and binary files with clear errors', async () => {
    await expectToolError(tool.execute({ path: 'nope.txt' }, makeCtx(dirs.ws.dir)), 'NOT_FOUND', /'nope.txt' does not exist/);
    mkdirSync(path.join(dirs.ws.dir, 'dir'));
    await expectToolError(tool.execute({ path: 'dir' }, makeCtx(dirs.ws.dir)), 'INVALID_ARGS', /is a directory.*list_dir/);
    const bin = put(dirs.ws.dir, 'img.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    const ctx = makeCtx(dirs.ws.dir);
    await expectToolError(tool.execute({ path: 'img.bin' }, ctx), 'TOOL_ERROR', /binary file/);
    expect(ctx.files.lastRead(bin)).toBeUndefined();
  });

  it('is confined to the workspace', async () => {
    put(dirs.outside.dir, 'secret.txt', 'secret');
    symlinkSync(path.join(dirs.outside.dir, 'secret.txt'), path.join(dirs.ws.dir, 'link.txt'));
    const ctx = makeCtx(dirs.ws.dir);
    await expectToolError(tool.execute({ path: '../x' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ path: '/etc/passwd' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(tool.execute({ path: 'link.txt' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    expect(ctx.files.size).toBe(0);
  });

  it('validates its arguments strictly and is concurrency-safe', () => {
    expect(tool.parameters.safeParse({ path: 'a', offset: 0 }).success).toBe(false);
    expect(tool.parameters.safeParse({ path: 'a', limit: 1.5 }).success).toBe(false);
    expect(tool.parameters.safeParse({ path: 'a', extra: 1 }).success).toBe(false);
    expect(tool.isConcurrencySafe?.({ path: 'a' })).toBe(true);
  });
});
