/**
 * Import limits (issue 8): sizes, seq ranges and nesting from a file are checked before anything is
 * allocated for them; ids from files are checked before they are used.
 */
import { describe, expect, it } from 'vitest';
import { checkFileSize, checkNesting, checkSeq, DEFAULT_IMPORT_LIMITS, ImportLimitError, isSafeSessionId } from '../../../electron/session/import-limits.js';
import { importJsonl } from '../../../electron/session/jsonl.js';

const small = { ...DEFAULT_IMPORT_LIMITS, maxFileBytes: 1000, maxEvents: 100, maxElided: 10, maxNestingDepth: 5 };

function limitOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ImportLimitError) return error.limit;
    throw error;
  }
  return undefined;
}

const header = JSON.stringify({ type: 'session', version: 0, id: 'lim', createdAt: 1 });
const title = (seq: number, extra = '') => JSON.stringify({ type: 'session/title', seq, time: 1, data: { title: `t${extra}` } });

describe('import limits', () => {
  it('refuse each limit with a typed error before filling anything', () => {
    expect(limitOf(() => checkFileSize(1001, small))).toBe('maxFileBytes');
    expect(limitOf(() => checkSeq(0, 100, 0, small))).toBe('maxEvents');
    expect(limitOf(() => checkSeq(0, 11, 0, small))).toBe('maxElided');
    expect(limitOf(() => checkSeq(5, 11, 5, small))).toBe('maxElided');
    expect(checkSeq(3, 8, 5, small)).toBe(5);
    expect(checkSeq(3, 3, 0, small)).toBe(0);
    expect(limitOf(() => checkNesting('[[[[[[1]]]]]]', 'line 2', small))).toBe('maxNestingDepth');
    expect(limitOf(() => checkNesting('{"a":"[[[[[[[[[[[[[[[[\\"[[[[["}', 'line 2', small))).toBeUndefined();
    // A string ending in escaped backslashes closes at its quote: the brackets after it count.
    expect(limitOf(() => checkNesting('["a\\\\",[[[[[[1]]]]]]]', 'line 2', small))).toBe('maxNestingDepth');
    expect(limitOf(() => checkNesting('["a\\\\\\"[[[[[[[[", 1]', 'line 2', small))).toBeUndefined();
    expect(limitOf(() => checkNesting('["unterminated [[[[[[[[', 'line 2', small))).toBeUndefined();
    expect(new ImportLimitError('maxEvents', 'x').code).toBe('IMPORT_LIMIT_EXCEEDED');
  });

  it('importJsonl applies them: gaps, huge seqs, deep lines, big files', () => {
    expect(limitOf(() => importJsonl([header, title(0), title(50)].join('\n'), 'f', small))).toBe('maxElided');
    expect(limitOf(() => importJsonl([header, title(1_000_000_000)].join('\n'), 'f'))).toBe('maxEvents');
    expect(limitOf(() => importJsonl([header, `{"type":"session/title","seq":0,"time":1,"data":{"title":"t","source":[[[[[[[]]]]]]]}}`].join('\n'), 'f', small))).toBe('maxNestingDepth');
    expect(limitOf(() => importJsonl(header + '\n' + title(0, 'x'.repeat(2000)), 'f', small))).toBe('maxFileBytes');
    // Within the limits, a gap is still filled (with a warning), as before.
    const ok = importJsonl([header, title(0), title(5)].join('\n') + '\n', 'f', small);
    expect(ok.events.map((e) => e.type)).toEqual(['session/title', 'import/elided', 'import/elided', 'import/elided', 'import/elided', 'session/title']);
  });

  it('ids from files: letters, digits, _ and - only, never option-like, dotted or with separators', () => {
    for (const id of ['de3b8b19-5bc0-4a2a-934a-1b6806567e25', 'abc', 'A_b-9']) expect(isSafeSessionId(id), id).toBe(true);
    for (const id of ['', '.', '..', '../x', 'a/b', 'a\\b', '-rf', '--output=x', 'a\x1bb', 'a\nb', 'a:b', 'a.b', 'x'.repeat(129), 42, null]) {
      expect(isSafeSessionId(id), JSON.stringify(id)).toBe(false);
    }
    const parsed = importJsonl(JSON.stringify({ type: 'session', version: 0, id: '../../etc', createdAt: 1, parentSession: '--output=/x', seedLength: -3 }) + '\n', 'fallback-id');
    expect(parsed.header.id).toBe('fallback-id');
    expect(parsed.header.parentSession).toBeUndefined();
    expect(parsed.header.seedLength).toBeUndefined();
    expect(parsed.warnings.join('\n')).toContain('not usable');
  });
});
