/**
 * The CLI's error lines (electron/cli/error-line.ts) for errors produced by the real parts: a
 * better-sqlite3 error from a real read-only database file, a real EACCES/ENOENT from node:fs, a
 * StoreError carrying a SqliteError as its cause, STALE_APPEND. Each is one line with its code and
 * no stack unless asked for; and the output wrapper over a real pipe whose reader leaves.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../shared/errors.js';
import { CliOutput } from '../../../electron/cli/cli-output.js';
import { reportError, UsageError } from '../../../electron/cli/error-line.js';

const dir = mkdtempSync(join(tmpdir(), 'forkline-error-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sqliteError(): Error {
  const file = join(dir, 'ro.db');
  new Database(file).exec('CREATE TABLE IF NOT EXISTS t(x)').close();
  const db = new Database(file, { readonly: true });
  try {
    db.exec('INSERT INTO t VALUES (1)');
  } catch (error) {
    return error as Error;
  } finally {
    db.close();
  }
  throw new Error('the write to a read-only database did not fail');
}

function fsError(): Error {
  try {
    openSync(join(dir, 'missing', 'file'), 'r');
  } catch (error) {
    return error as Error;
  }
  throw new Error('opening a missing file did not fail');
}

describe('reportError', () => {
  it('a SqliteError: one line with its SQLite code and what to do, exit 1', () => {
    const report = reportError(sqliteError());
    expect(report.exitCode).toBe(1);
    expect(report.text).toMatch(/^forkline: the session store failed: the session store is read-only here .*\[SQLITE_READONLY\]\n$/);
  });

  it('a StoreError whose cause is a SqliteError names the cause’s code', () => {
    const report = reportError(new StoreError('WRITE_FAILED', 'could not save session s1', { cause: sqliteError() }));
    expect(report.text).toMatch(/^forkline: could not save session s1: the session store is read-only here .*\[SQLITE_READONLY\]\n$/);
  });

  it('a system error: the call, the path, the words and the code', () => {
    expect(reportError(fsError()).text).toBe(`forkline: cannot open ${join(dir, 'missing', 'file')}: no such file or folder [ENOENT]\n`);
  });

  it('STALE_APPEND: one line, exit 1', () => {
    const report = reportError(new StoreError('STALE_APPEND', 'session s1 was taken over by another Forkline (it is now held by pid 7 on h)'));
    expect(report).toEqual({ text: 'forkline: session s1 was taken over by another Forkline (it is now held by pid 7 on h) [STALE_APPEND]\n', exitCode: 1 });
  });

  it('an unexpected error is one line naming its kind; FORKLINE_DEBUG adds the stack', () => {
    const error = new RangeError('bad\nsecond line');
    expect(reportError(error).text).toBe('forkline: unexpected error: bad [RangeError] (FORKLINE_DEBUG=1 shows the stack)\n');
    expect(reportError(error, true).text).toContain(`${error.stack}\n`);
    expect(reportError(new UsageError('nope'))).toEqual({ text: 'forkline: nope\n(forkline help for usage)\n', exitCode: 2 });
  });
});

describe('CliOutput over a real pipe', () => {
  it('a reader that leaves is not a failure: later writes are dropped and flushed() resolves', async () => {
    const reader = spawn('head', ['-c', '10'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const output = new CliOutput(reader.stdin, 'stdout');
    const exited = new Promise((resolve) => reader.on('exit', resolve));
    await output.writeAsync('0123456789');
    await exited;
    for (let i = 0; i < 50 && output.open; i++) await output.writeAsync('x'.repeat(1 << 16));
    await output.flushed();
    expect(output.readerGone).toBe(true);
    expect(output.writeFailure).toBeUndefined();
  });
});
