/**
 * No logged string holds a lone surrogate (docs/architecture.md §6, issue 11): `Session.append` refuses one in
 * `reject` mode (tests, FORKLINE_INVARIANTS=enforce) and replaces it with U+FFFD plus a note in
 * `repair` mode (production); nothing is committed by a refused append.
 */
import { describe, expect, it } from 'vitest';
import type { ToolResultMessage } from '../../../shared/messages.js';
import { Session } from '../../../electron/session/session.js';
import { header, steppingClock } from '../../support/store-fixtures.js';

function openStepWithCall(session: Session): void {
  session.append({ type: 'turn/start', data: { turn: 1 } });
  session.append({ type: 'step/start', data: { turn: 1, step: 1 } });
  session.append({ type: 'tool/call', data: { turn: 1, step: 1, callId: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' } });
}

function resultWith(text: string): ToolResultMessage {
  return { id: 'm1', role: 'user', source: { kind: 'tool', callId: 'c1' }, content: [{ type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text }], isError: false }] };
}

describe('lone surrogates in appended data', () => {
  const broken = `${'a'.repeat(1999)}\ud83d… [line cut]`;

  it('reject mode (the default) refuses the append with ILL_FORMED_TEXT naming the path, and commits nothing', () => {
    const session = new Session({ header: header('lone'), now: steppingClock() });
    openStepWithCall(session);
    const before = session.length;
    expect(() => session.append({ type: 'tool/result', data: { turn: 1, step: 1, message: resultWith(broken) }, surfaceOp: 'append' })).toThrow(
      expect.objectContaining({ code: 'ILL_FORMED_TEXT', message: expect.stringContaining('$.data.message.content[0].content[0].text') }),
    );
    expect(session.length).toBe(before);
    // A key with a lone surrogate is refused too.
    expect(() => session.append({ type: 'tool/result', data: { turn: 1, step: 1, message: resultWith('ok'), meta: { ['k\udc00']: 1 } }, surfaceOp: 'append' })).toThrow(
      expect.objectContaining({ code: 'ILL_FORMED_TEXT' }),
    );
    // Well-formed astral text passes.
    session.append({ type: 'tool/result', data: { turn: 1, step: 1, message: resultWith('fire 🔥') }, surfaceOp: 'append' });
    expect(session.length).toBe(before + 1);
  });

  it('repair mode replaces lone surrogates with U+FFFD and records a note', () => {
    const notes: string[] = [];
    const session = new Session({ header: header('repair'), now: steppingClock(), illFormedText: 'repair', onNote: (n) => notes.push(n) });
    openStepWithCall(session);
    const event = session.append({ type: 'tool/result', data: { turn: 1, step: 1, message: resultWith(broken) }, surfaceOp: 'append' });
    const text = (event.data.message.content[0]!.content[0] as { text: string }).text;
    expect(text).toBe(`${'a'.repeat(1999)}\ufffd… [line cut]`);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/seq 3 tool\/result: replaced lone surrogates with U\+FFFD at \$\.data\.message\.content\[0\]\.content\[0\]\.text/);
    expect(session.warnings).toEqual(notes);
    // What the model would be sent is valid UTF-8.
    expect(JSON.stringify(session.deriveMessages())).not.toMatch(/\\ud83d/i);
  });
});
