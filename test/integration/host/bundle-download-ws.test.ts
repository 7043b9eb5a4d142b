/**
 * "Export bundle…" of a big session over the real WebSocket host API (issue 26): a bundle of more
 * than 20 MB is handed over in chunks (`exportBundle`, then `readDownload` until `done`), never as
 * one message; other calls are answered between chunks; the bytes received are the bundle (its
 * hashes verify and the real importer takes it); a download given up with `closeDownload`, or
 * read to its end, is gone. The bundle import (`importBundleBegin/Chunk/End`, the app's Import of a
 * bundle file) streams it back: into the data folder it came from it is "already imported"; a
 * damaged one is refused naming the part, storing nothing. The session-log import refuses a bundle
 * in words that name the bundle import.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BundleDownload, BundleImportView, DownloadChunk, SettingsView } from '../../../shared/api.js';
import { importBundle, verifyBundle } from '../../../electron/bundle/bundle-import.js';
import { openStoredSessions } from '../../../electron/cli/stored-sessions.js';
import { DOWNLOAD_CHUNK_BYTES } from '../../../electron/host/services/file-downloads.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startBrowserServer, type BrowserServer } from '../../../electron/host/transport/ws-server.js';
import { writeBigSession } from '../../support/big-session.js';
import { WsHostClient } from '../../support/ws-host-client.js';

const BIG = 'b16b0000-0000-4000-8000-00000000b0b1';
let dir: string;
let runtime: Runtime;
let server: BrowserServer;
let client: WsHostClient;
let events: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'forkline-bundle-ws-'));
  // About 24 MB of bundle: 30 turns of 40 reasoning chunks of 10,000 characters (deltas and the assembled message).
  events = writeBigSession(join(dir, 'data'), { id: BIG, turns: 30, reasoningChunks: 40, chunkChars: 10_000 });
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Forkline</title>');
  runtime = createRuntime({ dataDir: join(dir, 'data'), env: {}, writeWindowMs: 5 });
  server = await startBrowserServer({ host: runtime.host, staticDir });
  client = await WsHostClient.connect(server.port, server.token);
}, 120_000);

afterAll(async () => {
  client?.close();
  await server?.close();
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('exportBundle over the WebSocket', () => {
  it('hands a bundle of more than 20 MB over in chunks of at most 1 MiB, answering other calls between them', async () => {
    const info = await client.call<BundleDownload>('exportBundle', { sessionId: BIG });
    expect(info).toMatchObject({ sessions: 1, events, fileName: expect.stringMatching(/\.bundle\.jsonl$/) });
    expect(info.bytes).toBeGreaterThanOrEqual(20 * 1024 * 1024);
    const file = join(dir, 'received.bundle.jsonl');
    let chunks = 0;
    let settingsAnsweredAt: number | undefined;
    let settings: Promise<SettingsView> | undefined;
    for (;;) {
      const chunk = await client.call<DownloadChunk>('readDownload', { downloadId: info.downloadId });
      chunks++;
      appendFileSync(file, chunk.text);
      // Another call while the download is under way: answered before it ends.
      if (chunks === 2) settings = client.call<SettingsView>('getSettings', {}).then((s) => ((settingsAnsweredAt = chunks), s));
      if (chunk.done) {
        expect(chunk.offset).toBe(info.bytes);
        break;
      }
      expect(chunk.offset).toBe(Math.min(chunks * DOWNLOAD_CHUNK_BYTES, info.bytes));
    }
    expect((await settings!).otlp).toBeDefined();
    expect(settingsAnsweredAt).toBeLessThan(chunks);
    expect(chunks).toBeGreaterThanOrEqual(20);
    // No message from the host came near the file's size: the largest is one chunk, JSON-quoted.
    expect(client.largestMessageBytes).toBeLessThan(2 * DOWNLOAD_CHUNK_BYTES);
    expect(client.largestMessageBytes).toBeLessThan(info.bytes / 10);
    // The bytes are the bundle: every part's hash verifies, and the importer restores the session.
    expect(statSync(file).size).toBe(info.bytes);
    const { manifest } = await verifyBundle(file);
    expect(manifest.sessions.map((s) => [s.id, s.eventCount])).toEqual([[BIG, events]]);
    const target = openStoredSessions(join(dir, 'target'), {});
    try {
      const result = await importBundle({ repository: target.repository }, file);
      expect(result.sessions).toMatchObject([{ id: BIG, eventCount: events, outcome: 'new' }]);
      expect(target.repository.get(BIG)!.eventCount).toBe(events);
    } finally {
      await target.close();
    }
    // Read to its end, the download is closed.
    expect(await client.failureCode('readDownload', { downloadId: info.downloadId })).toBe('DOWNLOAD_NOT_FOUND');
  }, 180_000);

  it('gives a download up with closeDownload; unknown ids are refused', async () => {
    const info = await client.call<BundleDownload>('exportBundle', { sessionId: BIG });
    const first = await client.call<DownloadChunk>('readDownload', { downloadId: info.downloadId });
    expect(first).toMatchObject({ done: false, offset: DOWNLOAD_CHUNK_BYTES });
    expect(first.text.startsWith('{"forklineBundle":')).toBe(true);
    expect(await client.call('closeDownload', { downloadId: info.downloadId })).toBeNull();
    expect(await client.failureCode('readDownload', { downloadId: info.downloadId })).toBe('DOWNLOAD_NOT_FOUND');
    expect(await client.failureCode('readDownload', { downloadId: 'no-such-download' })).toBe('DOWNLOAD_NOT_FOUND');
    expect(await client.failureCode('readDownload', { downloadId: 42 })).toBe('INVALID_PARAMS');
  }, 120_000);

  it("the app's streaming import refuses a bundle, naming forkline import, and stores nothing", async () => {
    const before = await client.call<unknown[]>('listSessions', {});
    const head = readFileSync(join(dir, 'received.bundle.jsonl'), 'utf8').slice(0, 4096);
    const { importId } = await client.call<{ importId: string }>('importBegin', { fileName: 'tree.bundle.jsonl' });
    // Sent in two pieces: the bundle header is told apart even when a chunk ends inside it.
    await client.call('importChunk', { importId, text: head.slice(0, 7) });
    let refusal: unknown;
    try {
      await client.call('importChunk', { importId, text: head.slice(7) });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringContaining('forkline import FILE') });
    expect(await client.call<unknown[]>('listSessions', {})).toEqual(before);
  });

  /** Sends `text` through the bundle import in chunks of 1 MiB characters; the end's answer or refusal. */
  async function uploadBundle(text: string, fileName: string): Promise<BundleImportView> {
    const { importId } = await client.call<{ importId: string }>('importBundleBegin', { fileName, size: Buffer.byteLength(text) });
    try {
      for (let at = 0; at < text.length; at += DOWNLOAD_CHUNK_BYTES) await client.call('importBundleChunk', { importId, text: text.slice(at, at + DOWNLOAD_CHUNK_BYTES) });
      return await client.call<BundleImportView>('importBundleEnd', { importId });
    } catch (error) {
      await client.call('importBundleAbort', { importId });
      throw error;
    }
  }

  it('streams a bundle back through the bundle import: already imported into the folder it came from; a damaged one refused naming the part', async () => {
    const text = readFileSync(join(dir, 'received.bundle.jsonl'), 'utf8');
    const before = await client.call<{ id: string }[]>('listSessions', {});
    const again = await uploadBundle(text, 'received.bundle.jsonl');
    expect(again).toMatchObject({ rootId: BIG, alreadyImported: true, sessions: [{ id: BIG, bundleId: BIG, eventCount: events, outcome: 'present' }] });
    expect(await client.call('listSessions', {})).toEqual(before);
    // A file name that is no name ('..', '.'): the upload still imports (it never names the temporary folder or its parent).
    for (const odd of ['..', '.', '../../x.bundle.jsonl']) expect(await uploadBundle(text, odd)).toMatchObject({ rootId: BIG, alreadyImported: true });
    // One character changed deep in the session part: refused, the part named, nothing stored.
    const at = text.indexOf('reasoning about the next change', Math.floor(text.length / 2));
    const damaged = `${text.slice(0, at)}R${text.slice(at + 1)}`;
    let refusal: unknown;
    try {
      await uploadBundle(damaged, 'damaged.bundle.jsonl');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'IMPORT_BUNDLE_DAMAGED', message: expect.stringContaining(`session/${BIG}`) });
    expect(await client.call('listSessions', {})).toEqual(before);
    expect(await client.failureCode('importBundleChunk', { importId: 'no-such-import', text: 'x' })).toBe('IMPORT_NOT_FOUND');
  }, 120_000);
});
