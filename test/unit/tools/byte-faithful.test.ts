/**
 * Issue 11, "never corrupt a file": read_file says what it cannot show as is; edit_file and
 * write_file keep every byte outside the change (invalid UTF-8, BOM, CRLF, missing final newline,
 * file mode, hard links); FIFOs are refused before any blocking open (issue 8 item 5). Real files in
 * a temp workspace, the real tools.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, linkSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditFileTool } from '../../../electron/tools/builtin/edit-file.js';
import { createReadFileTool } from '../../../electron/tools/builtin/read-file.js';
import { createWriteFileTool } from '../../../electron/tools/builtin/write-file.js';
import { isWellFormedText } from '../../../shared/well-formed-text.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

const read = createReadFileTool();
const edit = createEditFileTool();
const write = createWriteFileTool();

/** ~66 KB of short lines with one Latin-1 byte (0xE9) about 60 KB in and `b = 2` near line 11,050. */
function latin1File(): { bytes: Buffer; e9Offset: number } {
  const parts: Buffer[] = [];
  let size = 0;
  let e9Offset = -1;
  for (let n = 1; n <= 11_100; n++) {
    let line: Buffer;
    if (n === 10_200) {
      const prefix = Buffer.from('const caf');
      e9Offset = size + prefix.length;
      line = Buffer.concat([prefix, Buffer.from([0xe9]), Buffer.from(' = "latin-1";\n')]);
    } else if (n === 11_050) line = Buffer.from('b = 2\n');
    else line = Buffer.from(`v${n}\n`);
    parts.push(line);
    size += line.length;
  }
  return { bytes: Buffer.concat(parts), e9Offset };
}

describe('byte-faithful file tools', () => {
  const dirs = useWorkspaceDirs();

  it('read_file cuts a 1,999-a + 🔥 line without leaving half of the emoji', async () => {
    put(dirs.ws.dir, 'long.txt', `${'a'.repeat(1999)}🔥tail\n`);
    const out = await read.execute({ path: 'long.txt' }, makeCtx(dirs.ws.dir));
    expect(isWellFormedText(out.content)).toBe(true);
    expect(out.content).toBe(`1: ${'a'.repeat(1999)}… [line cut: 6 more characters; use bash to see it whole]`);
  });

  it('edits a line of a file with a Latin-1 byte 60 KB in without touching that byte, and read_file says it shows U+FFFD', async () => {
    const { bytes, e9Offset } = latin1File();
    expect(e9Offset).toBeGreaterThan(59_000);
    const file = put(dirs.ws.dir, 'big.js', bytes);
    const ctx = makeCtx(dirs.ws.dir);
    const window = await read.execute({ path: 'big.js', offset: 11_000 }, ctx);
    expect(window.content).toContain('11050: b = 2');
    expect(window.content).toMatch(new RegExp(`\\[Note: the file is not valid UTF-8: 1 undecodable byte sequence, shown as \uFFFD; first at offset ${e9Offset} \\(line 10200: E9\\)`));
    expect(window.meta).toMatchObject({ invalidBytes: 1 });
    const whole = await read.execute({ path: 'big.js', offset: 10_199, limit: 3 }, ctx);
    expect(whole.content).toContain('10200: const caf\uFFFD = "latin-1";');
    expect(whole.content).toContain('(on shown line 10200)');

    const out = await edit.execute({ path: 'big.js', old_string: 'b = 2', new_string: 'b = 3' }, ctx);
    expect(out.content).toBe("Edited 'big.js': replaced 1 occurrence.");
    const after = readFileSync(file);
    expect(after[e9Offset]).toBe(0xe9);
    const expected = Buffer.from(bytes.toString('latin1').replace('b = 2', 'b = 3'), 'latin1');
    expect(after.equals(expected)).toBe(true);
  });

  it('refuses an old_string that runs through undecodable bytes, naming their offset (UNDECODABLE_BYTES)', async () => {
    const file = put(dirs.ws.dir, 'l1.txt', Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 'l1.txt' }, ctx);
    await expectToolError(edit.execute({ path: 'l1.txt', old_string: 'caf\uFFFD', new_string: 'cafe' }, ctx), 'UNDECODABLE_BYTES', /offset 3 \(line 1, bytes E9\)/);
    expect(readFileSync(file).equals(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))).toBe(true);
    // Editing around the byte works and keeps it.
    await edit.execute({ path: 'l1.txt', old_string: 'caf', new_string: 'CAF' }, ctx);
    expect(readFileSync(file).equals(Buffer.from([0x43, 0x41, 0x46, 0xe9, 0x0a]))).toBe(true);
    // write_file will not silently turn E9 into EF BF BD either.
    await expectToolError(write.execute({ path: 'l1.txt', content: 'CAF\uFFFD\nmore\n' }, ctx), 'UNDECODABLE_BYTES', /offset 3/);
  });

  it('keeps a BOM, CRLF line endings, a missing final newline and the file mode on edit', async () => {
    const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\ntwo\r\nthree')]);
    const file = put(dirs.ws.dir, 'win.txt', original);
    chmodSync(file, 0o754);
    const ctx = makeCtx(dirs.ws.dir);
    const shown = await read.execute({ path: 'win.txt' }, ctx);
    expect(shown.content.startsWith('1: one\n2: two\n3: three\n[Note: the file starts with a UTF-8 byte-order mark')).toBe(true);
    const out = await edit.execute({ path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' }, ctx);
    expect(out.content).toContain('CRLF');
    expect(readFileSync(file).equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('uno\r\ndos\r\nthree')]))).toBe(true);
    expect(statSync(file).mode & 0o7777).toBe(0o754);
  });

  it('write_file over an existing file keeps its BOM, CRLF endings and mode, and says so', async () => {
    const file = put(dirs.ws.dir, 'w.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nb\r\n')]));
    chmodSync(file, 0o640);
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 'w.txt' }, ctx);
    const out = await write.execute({ path: 'w.txt', content: 'x\ny\n' }, ctx);
    expect(out.content).toBe("Overwrote 'w.txt' (2 lines, 9 bytes). Kept its byte-order mark and CRLF line endings.");
    expect(readFileSync(file).equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\r\ny\r\n')]))).toBe(true);
    expect(statSync(file).mode & 0o7777).toBe(0o640);
  });

  it('keeps hard links: a file with two names is rewritten in place', async () => {
    const file = put(dirs.ws.dir, 'a.txt', 'one\n');
    const other = path.join(dirs.ws.dir, 'b.txt');
    linkSync(file, other);
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 'a.txt' }, ctx);
    await edit.execute({ path: 'a.txt', old_string: 'one', new_string: 'two' }, ctx);
    expect(readFileSync(other, 'utf8')).toBe('two\n');
    expect(statSync(file).ino).toBe(statSync(other).ino);
  });

  it('refuses lone surrogates in new_string and content', async () => {
    put(dirs.ws.dir, 's.txt', 'x\n');
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 's.txt' }, ctx);
    await expectToolError(edit.execute({ path: 's.txt', old_string: 'x', new_string: 'y\ud83d' }, ctx), 'INVALID_ARGS', /lone UTF-16 surrogate at index 1/);
    await expectToolError(write.execute({ path: 'n.txt', content: '\udd25' }, ctx), 'INVALID_ARGS', /lone UTF-16 surrogate at index 0/);
  });

  it('refuses FIFOs up front in read_file, edit_file and write_file (no blocking open)', async () => {
    const fifo = path.join(dirs.ws.dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const ctx = makeCtx(dirs.ws.dir);
    await expectToolError(read.execute({ path: 'pipe' }, ctx), 'NOT_REGULAR_FILE', /named pipe \(FIFO\)/);
    // A read record for the path must not let edit/write open it either.
    ctx.files.recordRead(fifo, 'x');
    await expectToolError(edit.execute({ path: 'pipe', old_string: 'a', new_string: 'b' }, ctx), 'NOT_REGULAR_FILE');
    await expectToolError(write.execute({ path: 'pipe', content: 'b' }, ctx), 'NOT_REGULAR_FILE');
  });

  it('refuses /dev/zero-like devices through a symlink inside the workspace', async () => {
    // The link's target is outside the workspace: confinement refuses it first.
    const link = path.join(dirs.ws.dir, 'zero');
    spawnSync('ln', ['-s', '/dev/zero', link]);
    await expectToolError(read.execute({ path: 'zero' }, makeCtx(dirs.ws.dir)), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('a read-only file: refused without any change for a normal user; as root the edit keeps the mode', async () => {
    const file = put(dirs.ws.dir, 'ro/f.txt', 'keep\n');
    const ctx = makeCtx(dirs.ws.dir);
    await read.execute({ path: 'ro/f.txt' }, ctx);
    chmodSync(file, 0o444);
    if (process.getuid?.() !== 0) {
      await expectToolError(edit.execute({ path: 'ro/f.txt', old_string: 'keep', new_string: 'lost' }, ctx), 'TOOL_ERROR', /permission denied/);
      expect(readFileSync(file, 'utf8')).toBe('keep\n');
    } else {
      // root may write anyway; the mode is kept.
      await edit.execute({ path: 'ro/f.txt', old_string: 'keep', new_string: 'kept' }, ctx);
      expect(statSync(file).mode & 0o7777).toBe(0o444);
    }
  });
});
