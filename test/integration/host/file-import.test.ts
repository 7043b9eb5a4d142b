/**
 * The window's streaming import (renderer/state/file-import.ts) against the real host: a file is
 * sent in slices whose boundaries cut UTF-8 characters and lines anywhere, each acknowledged after
 * the host wrote its records; the session equals a whole-file import; progress rises to 1; a refused
 * file (UNSUPPORTED_FORMAT) is aborted on the host and leaves nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../../../renderer/state/file-import.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { serializeAll } from '../../support/store-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

let dir: string;
let runtime: Runtime;
let connection: HostConnection;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'forkline-file-import-'));
  runtime = createRuntime({ dataDir: dir, env: { FORKLINE_CHECKPOINTS: 'off' } });
  connection = runtime.host.connect(() => undefined);
});
afterAll(async () => {
  connection.dispose();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The host connection as the renderer's client sees it (promises). */
const client = () => ({
  importBegin: async (p: { fileName: string; size?: number }) => connection.importBegin(p),
  importChunk: async (p: { importId: string; text: string }) => connection.importChunk(p),
  importEnd: async (p: { importId: string }) => connection.importEnd(p),
  importAbort: async (p: { importId: string }) => connection.importAbort(p),
});

function named(blob: Blob, name: string) {
  return { name, size: blob.size, slice: (a: number, b: number) => blob.slice(a, b) };
}

describe('streaming import from the window', () => {
  it('sends slices that cut characters and lines anywhere; the result equals a whole-file import', async () => {
    // Multi-byte characters (é, →, emoji) so that 7-byte slices split them.
    const text = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_stop-hook-uncommitted-changes.jsonl'), 'utf8').replace('Read src/main.py', 'Read src/main.py — café → ✓ 🚀');
    const progress: number[] = [];
    const summary = await importFile(client(), named(new Blob([text]), 'cc.jsonl'), (f) => progress.push(f), 7);
    expect(progress.length).toBeGreaterThan(100);
    expect(progress.every((f, i) => i === 0 || f >= progress[i - 1]!)).toBe(true);
    expect(progress.at(-1)).toBe(1);
    const whole = importText(runtime.repository, text, 'cc.jsonl');
    expect(summary.turns).toBe(whole.turns);
    expect(serializeAll(runtime.store.readAll(summary.sessionId))).toEqual(serializeAll(runtime.store.readAll(whole.sessionId)));
    expect(runtime.store.readAll(summary.sessionId).some((e) => e.type === 'user/message' && JSON.stringify(e.data).includes('café → ✓ 🚀'))).toBe(true);
  });

  it('aborts a refused file on the host and leaves nothing', async () => {
    const before = runtime.repository.list().length;
    let error: unknown;
    try {
      await importFile(client(), named(new Blob(['{"note":"milk"}\n'.repeat(100)]), 'notes.jsonl'), undefined, 64);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    expect(runtime.repository.list()).toHaveLength(before);
  });
});
