/**
 * Reference-runtime session files (shared/fixtures/agent-session-logs/deepseek-harness) through the
 * real import path into a real SQLite file: each imports, derives the messages the file implies
 * (computed here independently from the raw JSON lines), re-exports and re-imports identically; the
 * well-formed files re-export every event line (packed rows included) byte for byte — except the
 * lines of messages with parts we cannot send back (an image: dsh_inline-image-prompt), which keep
 * their text and hold the other parts in `source.foreign` — and the importer names the seq ranges
 * that dsh_cordis-tool-round elides.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import type { JsonObject, JsonValue } from '../../../shared/json.js';
import { Session } from '../../../electron/session/session.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { tempDir } from '../../support/store-fixtures.js';
import { DSH_SESSION_LOGS } from '../../support/fixtures.js';
import { importJsonl } from '../../../electron/host/services/session-imports.js';

const FIXTURES = DSH_SESSION_LOGS;
const FILES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const WELL_FORMED = FILES.filter((f) => f !== 'dsh_cordis-tool-round.session.jsonl');

const tmp = tempDir('forkline-fixtures-');
const store = new SqliteSessionStore(tmp.file('fixtures.db'));
let counter = 0;
const repo = new SessionRepository(store, { newId: () => `imported-${++counter}` });
afterAll(() => {
  store.close();
  tmp.dispose();
});

function lines(text: string): JsonObject[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JsonObject);
}

/**
 * The messages a file implies, by the reference rules only: walk the surface events in file order,
 * apply `append` / `{op:'replace', start, end}` over the current nodes, and map each node to its
 * provider message (legacy shapes per the reference runtime's read-time compatibility rules).
 */
function impliedMessages(rows: readonly JsonObject[], sessionId: string): JsonValue[] {
  const nodes: { seq: number; message: JsonValue | undefined }[] = [];
  for (const row of rows) {
    const type = row['type'];
    if (type !== 'user/message' && type !== 'assistant/message' && type !== 'tool/result') continue;
    const seq = row['seq'] as number;
    const data = row['data'] as JsonObject;
    const legacyId = `legacy-message:${sessionId}:${seq}`;
    let message: JsonValue | undefined;
    if (type === 'user/message') {
      message = typeof data['id'] === 'string' ? data : { ...data, id: legacyId, role: 'user' };
      message = textOnly(message as JsonObject);
    } else if (type === 'assistant/message') {
      const m = (data['message'] as JsonObject | undefined) ?? {
        id: legacyId,
        role: 'assistant',
        content: data['content']!,
        source: { kind: 'model', provider: (data['provenance'] as JsonObject)['provider']!, model: (data['provenance'] as JsonObject)['model']! },
      };
      message = (m['content'] as JsonValue[]).length === 0 ? undefined : m;
    } else {
      message = (data['message'] as JsonObject | undefined) ?? {
        id: legacyId,
        role: 'user',
        source: { kind: 'tool', callId: data['callId']! },
        content: [{ type: 'tool-result', toolCallId: data['callId']!, content: data['content']!, isError: data['isError'] === true }],
      };
    }
    const op = row['surfaceOp'] as JsonValue;
    if (op === 'append') {
      nodes.push({ seq, message });
    } else {
      const { start, end } = op as { start: number; end: number };
      const from = nodes.findIndex((n) => n.seq === start);
      const to = nodes.findIndex((n) => n.seq === end);
      expect(from).toBeGreaterThanOrEqual(0);
      expect(to).toBeGreaterThanOrEqual(from);
      nodes.splice(from, to - from + 1, { seq, message });
    }
  }
  return nodes.map((n) => n.message).filter((m) => m !== undefined);
}

/**
 * A user message's parts other than text move to `source.foreign` (or the message's `foreign` when it
 * has no source): they are not replayed when continuing.
 */
function textOnly(message: JsonObject): JsonObject {
  const content = message['content'] as JsonValue[];
  const isText = (p: JsonValue) => (p as JsonObject)['type'] === 'text';
  if (content.every(isText)) return message;
  const foreign = { format: 'deepseek-harness', parts: content.filter((p) => !isText(p)) };
  const source = message['source'] as JsonObject | undefined;
  return source ? { ...message, content: content.filter(isText), source: { ...source, foreign } } : { ...message, content: content.filter(isText), foreign };
}

/** A line's data as the importer keeps it (user messages, queued ones included, text only). */
function adaptedData(row: JsonObject): JsonObject {
  const data = row['data'] as JsonObject;
  if (row['type'] === 'user/message') return textOnly(data);
  if (row['type'] === 'agent/inbox/spliced') return { ...data, inserted: (data['inserted'] as JsonObject[]).map(textOnly) };
  return data;
}

/** A line of a message with non-text parts (its re-export differs from it, see the module comment). */
function hasNonTextParts(line: string): boolean {
  if (line.trim() === '') return false;
  const row = JSON.parse(line) as JsonObject;
  return JSON.stringify(adaptedData(row)) !== JSON.stringify(row['data']);
}

/** An event the importer wrote that the file does not have (structure it rebuilt, closers of calls it left open). */
function isSynthesized(e: SessionEvent): boolean {
  if ((e.data as { foreign?: { synthesized?: boolean } }).foreign?.synthesized === true) return true;
  return e.type === 'tool/result' && e.data.message.id.startsWith('interrupted-tool-result-');
}

/** Seq ranges the file skips, found from the raw lines (packed rows cover seq0..seq0+n-1). */
function missingRanges(rows: readonly JsonObject[]): string[] {
  const out: string[] = [];
  let next = 0;
  for (const row of rows.slice(1)) {
    const first = (row['seq0'] ?? row['seq']) as number;
    const data = row['data'] as JsonObject;
    const count = 'seq0' in row ? ((data['texts'] ?? data['args']) as JsonValue[]).length : 1;
    if (first > next) out.push(`${next}–${first - 1}`);
    next = first + count;
  }
  return out;
}

describe('deepseek-harness session fixtures through SQLite', () => {
  it('finds the five fixture files', () => {
    expect(FILES).toHaveLength(5);
    expect(WELL_FORMED).toHaveLength(4);
  });

  for (const file of FILES) {
    describe(file, () => {
      const text = readFileSync(join(FIXTURES, file), 'utf8');
      const rows = lines(text);

      it('imports, derives the implied messages, re-exports and re-imports identically', () => {
        const imported = importJsonl(repo, text);
        const events = store.readAll(imported.id);
        expect(events).toHaveLength(imported.eventCount);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
        const lastSeq = Math.max(...rows.slice(1).map((r) => ((r['seq0'] ?? r['seq']) as number) + ('seq0' in r ? ((r['data'] as JsonObject)['dt'] as JsonValue[]).length : 0)));
        // The well-formed logs keep every seq; the elided recording also gets the turn and step
        // boundaries its events name but the file left out (each one marked as synthesized).
        if (WELL_FORMED.includes(file)) expect(events).toHaveLength(lastSeq + 1);
        else expect(events.filter((e) => !isSynthesized(e)).length).toBe(lastSeq + 1);

        const loaded = repo.load(imported.id);
        expect(loaded.repaired).toBe(0);
        const session = new Session({ header: loaded.record.header, seed: loaded.events, invariants: 'report' });
        expect(session.deriveMessages()).toEqual(impliedMessages(rows, imported.id));

        // Provenance: a log read from a file is imported, whatever its header says, and stays so.
        expect(loaded.record.header.origin).toMatchObject({ kind: 'imported', format: 'deepseek-harness', formatVersion: '0' });
        const exported = repo.exportJsonl(imported.id);
        const again = importJsonl(repo, exported.replace('"origin":{"kind":"imported"', '"origin":{"kind":"native"'), `/some/dir/${file}`);
        expect(repo.load(again.id).record.header.origin).toMatchObject({ kind: 'imported', file });
        expect(again.id).not.toBe(imported.id);
        expect(store.readAll(again.id)).toEqual(events);
        expect(repo.exportJsonl(again.id).split('\n').slice(1)).toEqual(exported.split('\n').slice(1));
      });

      if (WELL_FORMED.includes(file)) {
        it('re-exports every event line byte-identical to the original (packed rows included)', () => {
          const imported = importJsonl(repo, text);
          expect(imported.warnings.filter((w) => !/header id|already exists/.test(w))).toEqual([]);
          const original = text.split('\n').slice(1);
          const exported = repo.exportJsonl(imported.id).split('\n').slice(1);
          expect(original.some((l) => l.includes('"seq0"'))).toBe(file !== 'dsh_compaction-recovery.session.jsonl' && file !== 'dsh_inline-image-prompt.session.jsonl');
          const adapted = original.map((l, i) => (hasNonTextParts(l) ? i : -1)).filter((i) => i >= 0);
          expect(adapted.length > 0).toBe(file === 'dsh_inline-image-prompt.session.jsonl');
          expect(exported.filter((_, i) => !adapted.includes(i))).toEqual(original.filter((_, i) => !adapted.includes(i)));
          for (const i of adapted) {
            const before = JSON.parse(original[i]!) as JsonObject;
            const after = JSON.parse(exported[i]!) as JsonObject;
            expect(after).toEqual({ ...before, data: adaptedData(before) });
          }
        });
      } else {
        it('warns with the exact missing seq ranges (elided recording) and keeps placeholders', () => {
          const imported = importJsonl(repo, text);
          const ranges = missingRanges(rows);
          expect(ranges).toEqual(['6–86', '88–98', '109–130', '132–155', '166–188', '190–202', '213–234', '236–242']);
          const gapWarnings = imported.warnings.filter((w) => w.includes('missing'));
          expect(gapWarnings).toHaveLength(ranges.length);
          ranges.forEach((range, i) => expect(gapWarnings[i]).toContain(`seqs ${range} are missing`));
          const events = store.readAll(imported.id);
          const elided = events.filter((e) => e.type === 'import/elided').length;
          expect(elided).toBe(ranges.map((r) => r.split('–').map(Number)).reduce((n, [a, b]) => n + b! - a! + 1, 0));
        });
      }
    });
  }
});
