/**
 * Issue 11 "Search that tells the truth" and issue 8 item 5 (grep off the main thread, FIFOs):
 * real folders, real git, a real worker thread.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, symlinkSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGlobTool } from '../../../electron/tools/builtin/glob.js';
import { createGrepTool } from '../../../electron/tools/builtin/grep.js';
import { createReadFileTool } from '../../../electron/tools/builtin/read-file.js';
import { expectToolError, makeCtx, put, useWorkspaceDirs } from './helpers.js';

const glob = createGlobTool();
const grep = createGrepTool();
const read = createReadFileTool();

describe('search that tells the truth', () => {
  const dirs = useWorkspaceDirs();

  it('glob of a literal ignored path finds it (node_modules/left-pad/package.json), as read_file reads it', async () => {
    put(dirs.ws.dir, 'node_modules/left-pad/package.json', '{"name":"left-pad"}\n');
    put(dirs.ws.dir, 'node_modules/left-pad/index.js', 'module.exports = leftPad;\n');
    const ctx = makeCtx(dirs.ws.dir);
    const literal = await glob.execute({ pattern: 'node_modules/left-pad/package.json' }, ctx);
    expect(literal.content).toBe(
      "node_modules/left-pad/package.json\n['node_modules/left-pad/package.json' is normally skipped by searches (it is inside node_modules/); it is listed because the pattern names it.]",
    );
    expect((await read.execute({ path: 'node_modules/left-pad/package.json' }, ctx)).content).toBe('1: {"name":"left-pad"}');
    // A pattern under an explicitly named ignored folder crawls it.
    expect((await glob.execute({ pattern: 'node_modules/left-pad/*.js' }, ctx)).content).toBe('node_modules/left-pad/index.js');
    // grep with a path naming the ignored folder (or the file) searches it.
    expect((await grep.execute({ pattern: 'leftPad', path: 'node_modules/left-pad' }, ctx)).content).toBe('node_modules/left-pad/index.js:1: module.exports = leftPad;');
    expect((await grep.execute({ pattern: 'left-pad', path: 'node_modules/left-pad/package.json' }, ctx)).content).toMatch(
      /^node_modules\/left-pad\/package\.json:1: \{"name":"left-pad"\}\n\['node_modules\/left-pad\/package\.json' is normally skipped \(it is inside node_modules\/\); it was searched because you named it\.\]$/,
    );
    // A recursive pattern skips it and says so.
    expect((await glob.execute({ pattern: '**/package.json' }, ctx)).content).toBe(
      "No files match '**/package.json'.\n[Not searched: 1 ignored folder: node_modules/. Name an ignored path explicitly (as path, or as the start of the pattern) to search it.]",
    );
  });

  it('a folder that .gitignore excludes is searched when named (grep path=node_modules, glob dist/**/*.js); what is inside keeps its own rules', async () => {
    put(dirs.ws.dir, '.gitignore', 'node_modules/\ndist/\n*.map\n');
    put(dirs.ws.dir, 'node_modules/pkg/lib/todo.js', '// TODO: pkg\n');
    put(dirs.ws.dir, 'node_modules/pkg/node_modules/dep/x.js', '// TODO: nested dep\n');
    put(dirs.ws.dir, 'dist/a/b.js', 'b\n');
    put(dirs.ws.dir, 'dist/c.js', 'c\n');
    put(dirs.ws.dir, 'dist/c.js.map', '{}\n');
    put(dirs.ws.dir, 'dist/dist/d.js', 'd\n');
    put(dirs.ws.dir, 'src/e.js', '// TODO: src\n');
    const ctx = makeCtx(dirs.ws.dir);
    const todo = await grep.execute({ pattern: 'TODO', path: 'node_modules' }, ctx);
    expect(todo.content).toMatch(/^node_modules\/pkg\/lib\/todo\.js:1: \/\/ TODO: pkg\n\[Not searched: 1 ignored folder: node_modules\/pkg\/node_modules\/\./);
    const js = await glob.execute({ pattern: 'dist/**/*.js' }, ctx);
    expect(js.content.split('\n')[0]).toBe('dist/a/b.js');
    expect(js.content).toMatch(/^dist\/a\/b\.js\ndist\/c\.js\n\[Not searched: 1 ignored folder: dist\/dist\/ \(\.gitignore\)\./);
    expect((await glob.execute({ pattern: 'dist/**/*.map' }, ctx)).content).toMatch(
      /^No files match 'dist\/\*\*\/\*\.map'\.\n\[Not searched: 1 ignored folder: dist\/dist\/ \(\.gitignore\); 1 file excluded by \.gitignore\./,
    );
    // A deeper named folder: the folders on its way are named too.
    expect((await glob.execute({ pattern: 'dist/a/*.js' }, ctx)).content).toBe('dist/a/b.js');
    expect((await grep.execute({ pattern: 'b', path: 'dist/a' }, ctx)).content).toBe('dist/a/b.js:1: b');
    // Unnamed, they stay skipped.
    expect((await grep.execute({ pattern: 'TODO' }, ctx)).content).toMatch(/^src\/e\.js:1: \/\/ TODO: src\n\[Not searched: 2 ignored folders: dist\/ \(\.gitignore\), node_modules\/\./);
  });

  it('recursive grep and glob end with what they skipped and why, with counts', async () => {
    put(dirs.ws.dir, '.gitignore', 'dist/\n*.log\n!keep.log\n');
    put(dirs.ws.dir, 'src/a.txt', 'needle\n');
    put(dirs.ws.dir, 'dist/bundle.txt', 'needle\n');
    put(dirs.ws.dir, 'debug.log', 'needle\n');
    put(dirs.ws.dir, 'keep.log', 'needle\n');
    put(dirs.ws.dir, 'pic.png', Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00]));
    const huge = put(dirs.ws.dir, 'huge.txt', '');
    truncateSync(huge, 11 * 1024 * 1024);
    put(dirs.outside.dir, 'secret.txt', 'needle\n');
    symlinkSync(path.join(dirs.outside.dir, 'secret.txt'), path.join(dirs.ws.dir, 'escape.txt'));
    put(dirs.ws.dir, 'node_modules/x/i.txt', 'needle\n');
    const ctx = makeCtx(dirs.ws.dir);
    const out = await grep.execute({ pattern: 'needle' }, ctx);
    expect(out.content).toBe(
      'keep.log:1: needle\nsrc/a.txt:1: needle\n' +
        '[Not searched: 2 ignored folders: dist/ (.gitignore), node_modules/; 1 file excluded by .gitignore; 1 binary file; 1 file over 10 MB; 1 link to files outside the workspace. ' +
        'Name an ignored path explicitly (as path, or as the start of the pattern) to search it.]',
    );
    expect(out.meta).toMatchObject({ skipped: { ignoredDirs: 2, ignoredFiles: 1, binary: 1, tooLarge: 1, linksOutside: 1 } });
    const files = await glob.execute({ pattern: '**/*.txt' }, ctx);
    expect(files.content).toBe(
      'huge.txt\nsrc/a.txt\n[Not searched: 2 ignored folders: dist/ (.gitignore), node_modules/; 1 link to files outside the workspace. Name an ignored path explicitly (as path, or as the start of the pattern) to search it.]',
    );
  });

  it('gives the same results with and without .git', async () => {
    put(dirs.ws.dir, '.gitignore', 'build/\n');
    put(dirs.ws.dir, 'src/main.c', 'int main() { return 0; }\n');
    put(dirs.ws.dir, 'build/main.o.txt', 'int main\n');
    expect(spawnSync('git', ['init', '-q'], { cwd: dirs.ws.dir }).status).toBe(0);
    put(dirs.ws.dir, '.git/info/exclude', 'src/\n'); // git's own excludes are not read
    const ctx = makeCtx(dirs.ws.dir);
    const withGit = [await grep.execute({ pattern: 'main' }, ctx), await glob.execute({ pattern: '**/*' }, ctx)];
    rmSync(path.join(dirs.ws.dir, '.git'), { recursive: true, force: true });
    const without = [await grep.execute({ pattern: 'main' }, ctx), await glob.execute({ pattern: '**/*' }, ctx)];
    expect(without.map((o) => o.content)).toEqual(withGit.map((o) => o.content));
    expect(withGit[0]!.content).toContain('src/main.c:1: int main() { return 0; }');
    expect(withGit[1]!.content).toContain('.gitignore\nsrc/main.c\n');
  });

  it('never opens a FIFO: grep over a folder counts it as special, grep on it is refused', async () => {
    put(dirs.ws.dir, 'a.txt', 'needle\n');
    expect(spawnSync('mkfifo', [path.join(dirs.ws.dir, 'fifo')]).status).toBe(0);
    const ctx = makeCtx(dirs.ws.dir);
    const out = await grep.execute({ pattern: 'needle' }, ctx);
    expect(out.content).toBe('a.txt:1: needle\n[Not searched: 1 special file (pipe, socket or device).]');
    await expectToolError(grep.execute({ pattern: 'x', path: 'fifo' }, ctx), 'NOT_REGULAR_FILE');
    expect((await glob.execute({ pattern: 'fifo' }, ctx)).content).toBe("No files match 'fifo': 'fifo' is a named pipe (FIFO), not a regular file.");
  });

  it('cuts long matching lines on a grapheme boundary', async () => {
    put(dirs.ws.dir, 'long.txt', `${'a'.repeat(499)}🔥needle\n`);
    const out = await grep.execute({ pattern: 'needle' }, makeCtx(dirs.ws.dir));
    expect(out.content).toBe(`long.txt:1: ${'a'.repeat(499)}… [line cut]`);
  });

  it('stops a catastrophic pattern at its budget, off the main thread (the event loop keeps running)', async () => {
    put(dirs.ws.dir, 'evil.txt', `${'a'.repeat(31)}!\n`);
    const tool = createGrepTool({ searchBudgetMs: 1500 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const started = Date.now();
    try {
      await expectToolError(tool.execute({ pattern: '^(a+)+$' }, makeCtx(dirs.ws.dir)), 'TOOL_TIMEOUT', /too slow \(nested quantifiers/);
    } finally {
      clearInterval(timer);
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(ticks).toBeGreaterThan(5); // the main thread was free while the worker backtracked
  });

  it('a cancel stops a running search at once', async () => {
    put(dirs.ws.dir, 'evil.txt', `${'a'.repeat(31)}!\n`);
    const controller = new AbortController();
    const pending = grep.execute({ pattern: '^(a+)+$' }, makeCtx(dirs.ws.dir, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    await expectToolError(pending, 'ABORTED');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
