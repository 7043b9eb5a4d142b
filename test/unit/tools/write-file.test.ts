import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReadFileTool } from '../../../electron/tools/builtin/read-file.js';
import { createWriteFileTool } from '../../../electron/tools/builtin/write-file.js';
import { MAX_DIFF_META_BYTES } from '../../../electron/tools/builtin/file-support.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

/** The file tools log the sha256 of the bytes they saw (the read record is rebuilt from it on resume). */
const SHA256_HEX = expect.stringMatching(/^[0-9a-f]{64}$/);

const write = createWriteFileTool();
const read = createReadFileTool();
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('write_file', () => {
  const dirs = useWorkspaceDirs();

  it('creates a new file and its parent folders without a prior read, and records it as read', async () => {
    const ctx = makeCtx(dirs.ws.dir);
    const out = await write.execute({ path: 'a/b/c.txt', content: 'hello\nworld\n' }, ctx);
    const file = path.join(dirs.ws.dir, 'a/b/c.txt');
    expect(readFileSync(file, 'utf8')).toBe('hello\nworld\n');
    expect(out.content).toBe("Created 'a/b/c.txt' (2 lines, 12 bytes).");
    expect(out.meta).toEqual({ path: 'a/b/c.txt', oldText: '', newText: 'hello\nworld\n', created: true, sha256: SHA256_HEX });
    expect(ctx.files.lastRead(file)).toBe(sha('hello\nworld\n'));
    // Written counts as read: it can be overwritten straight away.
    await write.execute({ path: 'a/b/c.txt', content: 'again' }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('again');
  });

  it('refuses to overwrite an existing file that was not read (FILE_NOT_READ)', async () => {
    const file = put(dirs.ws.dir, 'keep.txt', 'original');
    await expectToolError(write.execute({ path: 'keep.txt', content: 'x' }, makeCtx(dirs.ws.dir)), 'FILE_NOT_READ', /read_file/);
    expect(readFileSync(file, 'utf8')).toBe('original');
  });

  it('refuses to overwrite a file that changed since it was read (FILE_CHANGED)', async () => {
    const file = put(dirs.ws.dir, 'f.txt', 'v1');
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 'f.txt' }, ctx);
    writeFileSync(file, 'v2 by someone else');
    await expectToolError(write.execute({ path: 'f.txt', content: 'mine' }, ctx), 'FILE_CHANGED', /read_file on it again/);
    expect(readFileSync(file, 'utf8')).toBe('v2 by someone else');
  });

  it('overwrites a read, unchanged file with a diff meta', async () => {
    const file = put(dirs.ws.dir, 'f.txt', 'old\n');
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 'f.txt' }, ctx);
    const out = await write.execute({ path: 'f.txt', content: 'new\n' }, ctx);
    expect(out.content).toBe("Overwrote 'f.txt' (1 line, 4 bytes).");
    expect(out.meta).toEqual({ path: 'f.txt', oldText: 'old\n', newText: 'new\n', created: false, sha256: SHA256_HEX });
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(ctx.files.lastRead(file)).toBe(sha('new\n'));
  });

  it('leaves whole texts out of the meta for very large files', async () => {
    const big = 'y'.repeat(MAX_DIFF_META_BYTES + 1);
    const out = await write.execute({ path: 'big.txt', content: big }, makeCtx(dirs.ws.dir));
    expect(out.meta).toEqual({ path: 'big.txt', oldText: '', newText: '', omitted: true, created: true, sha256: SHA256_HEX });
  });

  it('refuses a directory path', async () => {
    mkdirSync(path.join(dirs.ws.dir, 'd'));
    await expectToolError(write.execute({ path: 'd', content: 'x' }, makeCtx(dirs.ws.dir)), 'INVALID_ARGS', /directory/);
  });

  it('is confined to the workspace, also through symlinks', async () => {
    const ctx = makeCtx(dirs.ws.dir);
    await expectToolError(write.execute({ path: '../escape.txt', content: 'x' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    expect(existsSync(path.join(path.dirname(dirs.ws.dir), 'escape.txt'))).toBe(false);
    await expectToolError(write.execute({ path: '/etc/passwd', content: 'x' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    put(dirs.outside.dir, 'target.txt', 'outside');
    symlinkSync(path.join(dirs.outside.dir, 'target.txt'), path.join(dirs.ws.dir, 'link.txt'));
    await expectToolError(write.execute({ path: 'link.txt', content: 'x' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    expect(readFileSync(path.join(dirs.outside.dir, 'target.txt'), 'utf8')).toBe('outside');
    symlinkSync(dirs.outside.dir, path.join(dirs.ws.dir, 'outdir'));
    await expectToolError(write.execute({ path: 'outdir/sub/new.txt', content: 'x' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    expect(existsSync(path.join(dirs.outside.dir, 'sub'))).toBe(false);
    // A dangling symlink must not be written through to a new file dirs.outside.
    symlinkSync(path.join(dirs.outside.dir, 'created-through-link.txt'), path.join(dirs.ws.dir, 'dangling.txt'));
    await expectToolError(write.execute({ path: 'dangling.txt', content: 'x' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    expect(existsSync(path.join(dirs.outside.dir, 'created-through-link.txt'))).toBe(false);
  });

  it('has write risk, a diff presentation and is not concurrency-safe', () => {
    expect(write.risk).toBe('write');
    expect(write.presentation).toBe('diff');
    expect(write.isConcurrencySafe?.({ path: 'a', content: '' }) === true).toBe(false);
    expect(write.parameters.safeParse({ path: 'a' }).success).toBe(false);
  });
});
