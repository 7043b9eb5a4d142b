/**
 * JSONL import/export rules (docs/architecture.md §7 import/export; FIELD-NOTES class 2; dsh-contracts §10.4): a torn
 * final line is dropped with a warning, damage at or before the last turn/end is a corruption
 * error naming the session and seq, damage after it ends the preserved prefix with a warning that
 * says what was dropped; nothing is lost silently. Export round-trips exactly, packed or not.
 */
import { describe, expect, it } from 'vitest';
import { SessionCorruptionError, SessionFormatUnsupportedError } from '../../../shared/errors.js';
import { exportJsonl, importJsonl } from '../../../electron/session/jsonl.js';
import { AgentLogWriter, buildSession, header, serializeAll, steppingClock } from '../../support/store-fixtures.js';
import { Session } from '../../../electron/session/session.js';

/** A session whose last turn is still open (a tail after the last turn/end). */
function withOpenTail(): Session {
  const s = buildSession('j', 2, 6, { cwd: '/w', title: 'T' });
  const w = new AgentLogWriter(s);
  w.inboxInsert('more');
  w.turnStart();
  w.claim();
  w.stepStart();
  w.user('more');
  return s;
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('JSONL export/import', () => {
  it('round-trips packed and unpacked exports exactly (header included)', () => {
    const s = withOpenTail();
    for (const pack of [true, false]) {
      const text = exportJsonl(s.header, s.events, { pack });
      expect(text.endsWith('\n')).toBe(true);
      const back = importJsonl(text, 'fallback');
      expect(back.warnings).toEqual([]);
      expect(back.header).toEqual({ version: 0, id: 'j', createdAt: s.header.createdAt, cwd: '/w', title: 'T' });
      expect(serializeAll(back.events)).toEqual(serializeAll(s.events));
    }
    expect(exportJsonl(s.header, s.events).split('\n').length).toBeLessThan(exportJsonl(s.header, s.events, { pack: false }).split('\n').length);
  });

  it('drops a torn final line with a warning', () => {
    const s = withOpenTail();
    const text = exportJsonl(s.header, s.events, { pack: false });
    const torn = text.slice(0, text.length - 15);
    const back = importJsonl(torn, 'f');
    expect(back.events).toHaveLength(s.length - 1);
    expect(back.warnings).toEqual([expect.stringMatching(/dropped a torn last line/)]);
  });

  it('damage after the last turn/end ends the preserved prefix and says how much was dropped', () => {
    const s = withOpenTail();
    const lines = exportJsonl(s.header, s.events, { pack: false }).split('\n');
    const lastEnd = lines.findLastIndex((l) => l.includes('"type":"turn/end"'));
    lines[lastEnd + 2] = '{"type":"agent/inbox/spliced","seq":';
    const back = importJsonl(lines.join('\n'), 'f');
    expect(back.events).toHaveLength(lastEnd + 1);
    expect(back.warnings).toEqual([expect.stringMatching(new RegExp(`dropped ${lines.length - 1 - (lastEnd + 2)} line\\(s\\) from line ${lastEnd + 3} on`))]);
  });

  it('damage in the committed region is a SessionCorruptionError naming the session and seq', () => {
    const s = withOpenTail();
    const lines = exportJsonl(s.header, s.events, { pack: false }).split('\n');
    lines[10] = lines[10]!.slice(0, 20);
    const error = catchError(() => importJsonl(lines.join('\n'), 'f')) as SessionCorruptionError;
    expect(error).toBeInstanceOf(SessionCorruptionError);
    expect(error.sessionId).toBe('j');
    expect(error.seq).toBe(9);
    expect(error.message).toMatch(/session j seq 9: line 11 is damaged .* inside the committed region/);

    const dup = exportJsonl(s.header, s.events, { pack: false }).split('\n');
    dup.splice(6, 0, dup[5]!); // a repeated seq before the last turn/end
    expect(catchError(() => importJsonl(dup.join('\n'), 'f'))).toBeInstanceOf(SessionCorruptionError);
  });

  it('a malformed packed row in the committed region is corruption', () => {
    const s = buildSession('pk', 2, 8);
    const lines = exportJsonl(s.header, s.events).split('\n');
    const i = lines.findIndex((l) => l.includes('"reasoning-chunks"'));
    const row = JSON.parse(lines[i]!) as { data: { dt: number[] } };
    row.data.dt.pop();
    lines[i] = JSON.stringify(row);
    expect(catchError(() => importJsonl(lines.join('\n'), 'f'))).toBeInstanceOf(SessionCorruptionError);
  });

  it('refuses another format version; keeps an unknown required event type as a raw record; keeps ignorable unknown types', () => {
    const s = buildSession('v', 1, 3);
    const text = exportJsonl(s.header, s.events);
    expect(catchError(() => importJsonl(text.replace('"version":0', '"version":1'), 'f'))).toBeInstanceOf(SessionFormatUnsupportedError);
    const extra = `{"type":"plugin/x","seq":${s.length},"time":1,"data":{"a":1},"surfaceOp":"append"}\n`;
    const kept = importJsonl(text + extra, 'f').events.at(-1)!;
    expect(kept).toMatchObject({ seq: s.length, type: 'import/foreign', data: { type: 'plugin/x', modelVisible: true, record: { type: 'plugin/x', data: { a: 1 } } } });
    const ignorable = `{"type":"plugin/x","seq":${s.length},"time":1,"data":{},"ignorable":true}\n`;
    expect(importJsonl(text + ignorable, 'f').events).toHaveLength(s.length + 1);
    expect(catchError(() => importJsonl('{"type":"turn/start"}\n', 'f'))).toBeInstanceOf(SessionCorruptionError);
  });

  it('an unusable header id is replaced by the fallback, with a warning', () => {
    const s = new Session({ header: header('ok'), now: steppingClock() });
    s.append({ type: 'session/title', data: { title: 'x' } });
    const text = exportJsonl({ ...s.header, id: '{{sessionId}}' }, s.events);
    const back = importJsonl(text, 'fresh-id');
    expect(back.header.id).toBe('fresh-id');
    expect(back.warnings).toEqual([expect.stringContaining('not usable; imported as fresh-id')]);
  });
});
