/**
 * What a sidebar search hit says about where it is (renderer/views/sidebar/search-hit-text.ts): its
 * session, that session's folder and the event, with a tooltip explaining the number (a trial saw
 * an unexplained "#227" and no folder); and a session row's compact imported badge and tooltip
 * (session-row-text.ts).
 */
import { describe, expect, it } from 'vitest';
import { hitEventLabel, hitEventTitle, searchHitPlace } from '../../../renderer/views/sidebar/search-hit-text.js';
import { importedBadgeLabel, sessionRowTooltip } from '../../../renderer/views/sidebar/session-row-text.js';

describe('searchHitPlace', () => {
  const summary = { id: 'abcdef0123456789', title: 'Fix the loader', cwd: '/home/me/work/navfix', createdAt: 1 };

  it('names the session, its folder (last path part) and the event, and says what the number is', () => {
    const place = searchHitPlace({ sessionId: summary.id, seq: 227 }, summary);
    expect(place.session).toBe('Fix the loader');
    expect(place.folder).toBe('navfix');
    expect(place.event).toBe('event 227');
    expect(place.title).toContain('/home/me/work/navfix');
    expect(place.title).toContain('event 227');
    expect(place.title).toMatch(/seq/);
    expect(place.title).not.toContain('#');
  });

  it('takes the last part of a Windows path too, and leaves the folder out when the session has none', () => {
    expect(searchHitPlace({ sessionId: summary.id, seq: 3 }, { ...summary, cwd: 'C:\\Users\\me\\proj\\' }).folder).toBe('proj');
    const none = searchHitPlace({ sessionId: summary.id, seq: 3 }, { id: summary.id, title: 'T' });
    expect(none.folder).toBeUndefined();
    expect(none.title).toBe("in the session “T” — event 3 of its log (the event's number, seq); opening the hit scrolls the session to it");
  });

  it('names a session missing from the list by its short id', () => {
    const place = searchHitPlace({ sessionId: summary.id, seq: 9 }, undefined);
    expect(place.session).toBe('session abcdef01');
    expect(place.folder).toBeUndefined();
  });

  it('titles an untitled session as the sidebar does (its folder)', () => {
    expect(searchHitPlace({ sessionId: summary.id, seq: 1 }, { id: summary.id, cwd: '/w/app', createdAt: 1 }).session).toBe('New session in app');
  });
});

describe('session row words', () => {
  it("an imported session's badge is its format's first word; the tooltip starts with the whole title and says where it came from", () => {
    expect(importedBadgeLabel('claude-code')).toBe('claude');
    expect(importedBadgeLabel('gemini-cli')).toBe('gemini');
    expect(importedBadgeLabel('codex')).toBe('codex');
    expect(importedBadgeLabel('')).toBe('');
    const title = 'Investigate why the nightly export of the customer invoices drops every row after the first page';
    const tip = sessionRowTooltip(title, { cwd: '/w/app', eventCount: 12, origin: { kind: 'imported', format: 'claude-code', file: 'a.jsonl', importedAt: 1 } });
    expect(tip.split('\n')).toEqual([title, 'imported from claude-code (a.jsonl): read-only', '/w/app', '12 events']);
    expect(sessionRowTooltip('T', { eventCount: 0 }).split('\n')).toEqual(['T', '', '0 events']);
  });
});

describe('hit event words', () => {
  it('name the number an event and say what it is (the team search hits use them too)', () => {
    expect(hitEventLabel(227)).toBe('event 227');
    expect(hitEventTitle(227)).toBe("event 227 of its log (the event's number, seq); opening the hit scrolls the session to it");
  });
});
