import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditFileTool } from '../../../electron/tools/builtin/edit-file.js';
import { createReadFileTool } from '../../../electron/tools/builtin/read-file.js';
import { expectToolError, makeCtx, put, tempDir, type TestContext } from './helpers.js';

/** The file tools log the sha256 of the bytes they saw (the read record is rebuilt from it on resume). */
const SHA256_HEX = expect.stringMatching(/^[0-9a-f]{64}$/);

const edit = createEditFileTool();
const read = createReadFileTool();
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('edit_file', () => {
  let ws: ReturnType<typeof tempDir>;
  let outside: ReturnType<typeof tempDir>;
  let ctx: TestContext;
  beforeEach(() => {
    ws = tempDir();
    outside = tempDir('forkline-outside-');
    ctx = makeCtx(ws.dir);
  });
  afterEach(() => {
    ws.cleanup();
    outside.cleanup();
  });

  async function readFirst(rel: string, content: string): Promise<string> {
    const file = put(ws.dir, rel, content);
    await read.execute({ path: rel }, ctx);
    return file;
  }

  it('replaces a unique match, records the new hash and returns a diff meta', async () => {
    const file = await readFirst('src/a.ts', 'const a = 1;\nconst b = 2;\n');
    const out = await edit.execute({ path: 'src/a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    expect(out.content).toBe("Edited 'src/a.ts': replaced 1 occurrence.");
    expect(out.meta).toEqual({ path: 'src/a.ts', oldText: 'const a = 1;\nconst b = 2;\n', newText: 'const a = 1;\nconst b = 3;\n', replacements: 1, sha256: SHA256_HEX });
    expect(ctx.files.lastRead(file)).toBe(sha('const a = 1;\nconst b = 3;\n'));
    // The recorded hash lets a second edit follow without reading again.
    await edit.execute({ path: 'src/a.ts', old_string: 'a = 1', new_string: 'a = 10' }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('const a = 10;\nconst b = 3;\n');
  });

  it('inserts replacement text literally ($& and $1 are not patterns)', async () => {
    const file = await readFirst('p.txt', 'price: X\n');
    await edit.execute({ path: 'p.txt', old_string: 'X', new_string: '$&$1 $$' }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('price: $&$1 $$\n');
  });

  it('refuses a file not read in this session (FILE_NOT_READ)', async () => {
    const file = put(ws.dir, 'f.txt', 'abc');
    await expectToolError(edit.execute({ path: 'f.txt', old_string: 'a', new_string: 'z' }, ctx), 'FILE_NOT_READ', /read_file/);
    expect(readFileSync(file, 'utf8')).toBe('abc');
  });

  it('refuses a file changed on disk since it was read (FILE_CHANGED)', async () => {
    const file = await readFirst('f.txt', 'abc');
    writeFileSync(file, 'abcd');
    await expectToolError(edit.execute({ path: 'f.txt', old_string: 'a', new_string: 'z' }, ctx), 'FILE_CHANGED', /changed on disk/);
    expect(readFileSync(file, 'utf8')).toBe('abcd');
  });

  it('reports 0 matches as not found', async () => {
    const file = await readFirst('f.txt', 'hello world\n');
    await expectToolError(edit.execute({ path: 'f.txt', old_string: 'goodbye', new_string: 'x' }, ctx), 'INVALID_ARGS', /not found/);
    expect(readFileSync(file, 'utf8')).toBe('hello world\n');
  });

  it('refuses 2 matches without replace_all, saying how many, and replaces both with it', async () => {
    const file = await readFirst('f.txt', 'foo bar foo\n');
    await expectToolError(edit.execute({ path: 'f.txt', old_string: 'foo', new_string: 'baz' }, ctx), 'INVALID_ARGS', /occurs 2 times.*replace_all/);
    expect(readFileSync(file, 'utf8')).toBe('foo bar foo\n');
    const out = await edit.execute({ path: 'f.txt', old_string: 'foo', new_string: 'baz', replace_all: true }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('baz bar baz\n');
    expect(out.content).toBe("Edited 'f.txt': replaced 2 occurrences.");
    expect(out.meta).toMatchObject({ replacements: 2 });
  });

  it('refuses old_string equal to new_string and a missing file', async () => {
    await readFirst('f.txt', 'abc');
    await expectToolError(edit.execute({ path: 'f.txt', old_string: 'a', new_string: 'a' }, ctx), 'INVALID_ARGS', /identical/);
    await expectToolError(edit.execute({ path: 'missing.txt', old_string: 'a', new_string: 'b' }, ctx), 'NOT_FOUND', /write_file/);
    mkdirSync(path.join(ws.dir, 'd'));
    await expectToolError(edit.execute({ path: 'd', old_string: 'a', new_string: 'b' }, ctx), 'INVALID_ARGS', /directory/);
    expect(edit.parameters.safeParse({ path: 'f.txt', old_string: '', new_string: 'x' }).success).toBe(false);
  });

  it('matches LF text against a CRLF file, keeping CRLF endings', async () => {
    const file = await readFirst('w.txt', 'one\r\ntwo\r\nthree\r\n');
    await edit.execute({ path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' }, ctx);
    expect(readFileSync(file, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('is confined to the workspace', async () => {
    await expectToolError(edit.execute({ path: '../x', old_string: 'a', new_string: 'b' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    await expectToolError(edit.execute({ path: '/etc/passwd', old_string: 'root', new_string: 'b' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    put(outside.dir, 't.txt', 'abc');
    symlinkSync(path.join(outside.dir, 't.txt'), path.join(ws.dir, 'l.txt'));
    await expectToolError(edit.execute({ path: 'l.txt', old_string: 'a', new_string: 'b' }, ctx), 'PATH_OUTSIDE_WORKSPACE');
    expect(readFileSync(path.join(outside.dir, 't.txt'), 'utf8')).toBe('abc');
  });
});

describe('edit_file meta for large files', () => {
  it('falls back to the replaced strings with partial: true', async () => {
    const ws = tempDir();
    try {
      const ctx = makeCtx(ws.dir);
      put(ws.dir, 'big.txt', `${'z'.repeat(300 * 1024)}\nMARKER\n`);
      await read.execute({ path: 'big.txt' }, ctx);
      const out = await edit.execute({ path: 'big.txt', old_string: 'MARKER', new_string: 'DONE' }, ctx);
      expect(out.meta).toEqual({ path: 'big.txt', oldText: 'MARKER', newText: 'DONE', partial: true, replacements: 1, sha256: SHA256_HEX });
    } finally {
      ws.cleanup();
    }
  });
});
