/**
 * Property (issue 11): random file content — astral characters, combining marks, ZWJ sequences,
 * CRLF and LF, bytes that are not UTF-8, an optional BOM, lines long enough to be cut — survives
 * read_file → edit_file → read_file with every byte outside the edited range unchanged, and no
 * string the tools return (content or meta) ever holds a lone surrogate: each is appended to a real
 * Session in reject mode, which refuses one.
 */
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../shared/json.js';
import { isWellFormedText } from '../../../shared/well-formed-text.js';
import { Session } from '../../../electron/session/session.js';
import { createEditFileTool } from '../../../electron/tools/builtin/edit-file.js';
import { createReadFileTool } from '../../../electron/tools/builtin/read-file.js';
import type { ToolOutput } from '../../../electron/tools/tool.js';
import { header, steppingClock } from '../../support/store-fixtures.js';
import { makeCtx, useWorkspaceDirs } from './helpers.js';

const read = createReadFileTool();
const edit = createEditFileTool();

const textPiece = fc.constantFrom('a', 'Z', ' ', '\t', '\n', '\r\n', 'é', 'e\u0301', 'ö̲', '🔥', '👍🏽', '👨‍👩‍👧', '🇯🇵', '中文', '\u0915\u094d\u0937', '$&', '\uFFFD');
const bytePiece = fc.oneof(
  { weight: 5, arbitrary: textPiece.map((s) => Buffer.from(s, 'utf8')) },
  { weight: 1, arbitrary: fc.constantFrom([0xe9], [0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f], [0x80, 0x80], [0xc0, 0xaf]).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constantFrom(`${'a'.repeat(1999)}🔥`, `${'é'.repeat(1000)}👨‍👩‍👧x`).map((s) => Buffer.from(s, 'utf8')) },
);
const bytesArb = fc.array(bytePiece, { maxLength: 40 }).map((parts) => Buffer.concat(parts));
const replacementArb = fc.array(textPiece, { maxLength: 12 }).map((parts) => parts.join(''));

const MARKER = '@@EDIT-ME@@';

/** Appends a tool result to `session` as the agent would (reject mode throws on a lone surrogate). */
function logResult(session: Session, callId: string, output: ToolOutput): void {
  session.append({ type: 'tool/call', data: { turn: 1, step: 1, callId, name: 'x', arguments: '{}' } });
  session.append({
    type: 'tool/result',
    data: {
      turn: 1,
      step: 1,
      message: {
        id: `m-${callId}`,
        role: 'user',
        source: { kind: 'tool', callId },
        content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: output.content }], isError: false }],
      },
      ...(output.meta !== undefined ? { meta: output.meta as JsonValue } : {}),
    },
    surfaceOp: 'append',
  });
}

describe('read → edit → read round trip (property)', () => {
  const dirs = useWorkspaceDirs();

  it('keeps every byte outside the edit and logs only well-formed text', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), bytesArb, bytesArb, replacementArb, fc.integer({ min: 1, max: 5 }), async (bom, before, after, replacement, offset) => {
        const file = path.join(dirs.ws.dir, `f${run++}.txt`);
        const prefix = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), before]);
        writeFileSync(file, Buffer.concat([prefix, Buffer.from(MARKER), after]));
        const ctx = makeCtx(dirs.ws.dir);
        const session = new Session({ header: header(`rt${run}`), now: steppingClock() });
        session.append({ type: 'turn/start', data: { turn: 1 } });
        session.append({ type: 'step/start', data: { turn: 1, step: 1 } });

        const first = await read.execute({ path: path.basename(file) }, ctx);
        logResult(session, 'r1', first);
        const window = await read.execute({ path: path.basename(file), offset, limit: 2 }, ctx).catch((error: unknown): ToolOutput => ({ content: String((error as Error).message) }));
        logResult(session, 'r2', window);
        const edited = await edit.execute({ path: path.basename(file), old_string: MARKER, new_string: replacement }, ctx);
        logResult(session, 'e1', edited);
        const second = await read.execute({ path: path.basename(file) }, ctx);
        logResult(session, 'r3', second);

        const expected = Buffer.concat([prefix, Buffer.from(replacement, 'utf8'), after]);
        expect(readFileSync(file).equals(expected)).toBe(true);
        for (const output of [first, window, edited, second]) {
          expect(isWellFormedText(output.content)).toBe(true);
          expect(isWellFormedText(JSON.stringify(output.meta ?? null))).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('matches LF old_string against CRLF files and writes the replacement with CRLF, keeping the rest', async () => {
    const lineArb = fc
      .array(
        textPiece.filter((p) => !p.includes('\n')),
        { maxLength: 6 },
      )
      .map((parts) => parts.join(''));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 6 }), fc.array(lineArb, { maxLength: 6 }), fc.array(lineArb, { minLength: 1, maxLength: 4 }), async (head, tail, newLines) => {
        const file = path.join(dirs.ws.dir, `c${run++}.txt`);
        const lines = [...head, '@@A@@', '@@B@@', ...tail];
        writeFileSync(file, lines.join('\r\n'));
        const ctx = makeCtx(dirs.ws.dir);
        await read.execute({ path: path.basename(file) }, ctx);
        await edit.execute({ path: path.basename(file), old_string: '@@A@@\n@@B@@', new_string: newLines.join('\n') }, ctx);
        const expected = [...head, ...newLines, ...tail].join('\r\n');
        expect(readFileSync(file, 'utf8')).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });
});
