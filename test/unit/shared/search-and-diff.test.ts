import { describe, expect, it } from 'vitest';
import { diffRequestBodies } from '../../../shared/request-diff.js';
import { parseSearchQuery, searchSnippet } from '../../../shared/search-query.js';
import { tailStart } from '../../../electron/store/session-repository.js';
import type { SessionEvent } from '../../../shared/events.js';

describe('search queries', () => {
  it('splits terms, keeps quoted phrases, drops duplicates and reports too-short terms', () => {
    expect(parseSearchQuery('  TypeError  "cannot read" ab typeerror ')).toEqual({ terms: ['TypeError', 'cannot read'], ignored: ['ab'] });
    expect(parseSearchQuery('')).toEqual({ terms: [], ignored: [] });
    expect(parseSearchQuery('"unterminated phrase')).toEqual({ terms: ['unterminated phrase'], ignored: [] });
  });

  it('builds a snippet around the first match with every occurrence marked, never mid code point', () => {
    const text = `${'x '.repeat(200)}TypeError at 😀 line, then another typeerror${' y'.repeat(200)}`;
    const parts = searchSnippet(text, ['TYPEERROR'], 30);
    expect(parts[0]).toEqual({ text: '…', match: false });
    expect(parts.filter((p) => p.match).map((p) => p.text)).toEqual(['TypeError', 'typeerror']);
    expect(parts.at(-1)).toEqual({ text: '…', match: false });
    expect(searchSnippet('short text', ['absent'])).toEqual([{ text: 'short text', match: false }]);
  });
});

describe('request diff', () => {
  const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({ model: 'm', messages, stream: true, ...extra });
  const sys = { role: 'system', content: 'be brief' };
  const u1 = { role: 'user', content: 'read a.txt' };
  const a1 = { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] };
  const t1 = { role: 'tool', tool_call_id: 'c', content: 'hello' };

  it('reports appended messages and a held prefix for a normal next step', () => {
    const d = diffRequestBodies(body([sys, u1]), body([sys, u1, a1, t1]));
    expect(d).toMatchObject({ prefixHeld: true, commonPrefix: 2, changed: [], removed: [], envelopeChanges: [] });
    expect(d.appended.map((m) => [m.index, m.role, m.preview])).toEqual([
      [2, 'assistant', 'read_file({"path":"a.txt"})'],
      [3, 'tool', 'hello'],
    ]);
  });

  it('says what broke the prefix: a changed message, dropped messages, or a changed tool list', () => {
    const changed = diffRequestBodies(body([sys, u1, a1]), body([sys, { role: 'user', content: 'summary' }, t1]));
    expect(changed).toMatchObject({ prefixHeld: false, prefixBrokenBy: 'message #1 (user) changed', commonPrefix: 1 });
    expect(changed.changed.map((c) => c.index)).toEqual([1, 2]);
    const dropped = diffRequestBodies(body([sys, u1, a1]), body([sys]));
    expect(dropped).toMatchObject({ prefixHeld: false, prefixBrokenBy: 'messages from #1 were dropped' });
    expect(dropped.removed.map((m) => m.index)).toEqual([1, 2]);
    const tools = diffRequestBodies(body([sys], { tools: [] }), body([sys, u1], { tools: [{ type: 'function' }], max_tokens: 10 }));
    expect(tools).toMatchObject({ prefixHeld: false, prefixBrokenBy: 'tools changed', envelopeChanges: ['tools', 'max_tokens'] });
  });
});

describe('tail start', () => {
  const log = (types: string[]): SessionEvent[] => types.map((type, seq) => ({ seq, type, time: seq, data: {} }) as unknown as SessionEvent);

  it('moves back a little to a turn start, or forward while keeping half the tail, else cuts inside the turn', () => {
    const types = Array.from({ length: 100 }, (_, i) => (i % 20 === 0 ? 'turn/start' : 'assistant/chunk'));
    expect(tailStart(log(types), 0, 100, 40)).toBe(60);
    expect(tailStart(log(types), 0, 100, 30)).toBe(80);
    expect(tailStart(log(types), 0, 100, 200)).toBe(0);
    const oneTurn = ['turn/start', ...Array.from({ length: 99 }, () => 'assistant/chunk')];
    expect(tailStart(log(oneTurn), 0, 100, 10)).toBe(90);
    // A window that starts later than seq 0.
    expect(tailStart(log(types).slice(50), 50, 100, 40)).toBe(60);
  });
});
