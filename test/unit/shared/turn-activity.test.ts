import { describe, expect, it } from 'vitest';
import { failureAdvice } from '../../../shared/failure-advice.js';
import { STALL_MS, isStalled, turnActivity } from '../../../shared/turn-activity.js';
import type { TimelineRow } from '../../../shared/timeline.js';

const turn = { kind: 'turn', key: 't1', seq: 0, time: 1_000, refSeqs: [], turn: 1, steps: 1, ended: false } as unknown as TimelineRow;
const step = { kind: 'step', key: 's1', seq: 1, time: 1_001, refSeqs: [], turn: 1, step: 1, open: true, attempts: 1, chunkCount: 0 } as unknown as TimelineRow;
const block = (kind: 'text' | 'reasoning', text: string, extra: object = {}): TimelineRow =>
  ({
    kind,
    key: `${kind}${text.length}`,
    seq: 2,
    time: 1_002,
    refSeqs: [],
    turn: 1,
    step: 1,
    attempt: 1,
    index: 0,
    text,
    tail: text,
    streaming: true,
    interrupted: false,
    partial: false,
    chunkCount: 1,
    ...extra,
  }) as unknown as TimelineRow;

describe('turnActivity', () => {
  it('reads the phase of the open turn from its last rows', () => {
    expect(turnActivity([turn, step], 0)).toMatchObject({ phase: 'waiting-model', turn: 1, step: 1, startedAt: 1_000 });
    expect(turnActivity([turn, step, block('reasoning', 'abcd')], 0)).toMatchObject({ phase: 'thinking', streamedChars: 4 });
    expect(turnActivity([turn, step, block('reasoning', 'abcd', { superseded: true }), block('text', 'xy')], 0)).toMatchObject({ phase: 'writing', streamedChars: 6 });
    expect(turnActivity([turn, step, block('text', 'xy')], 1)).toMatchObject({ phase: 'approval' });
  });
  it('is undefined when no turn is open', () => {
    expect(turnActivity([], 0)).toBeUndefined();
    expect(turnActivity([{ ...turn, ended: true } as TimelineRow], 0)).toBeUndefined();
  });
  it('calls a model phase silent for more than 15 s stalled, never a running tool', () => {
    expect(isStalled('writing', 0, STALL_MS + 1)).toBe(true);
    expect(isStalled('writing', 0, STALL_MS)).toBe(false);
    expect(isStalled('tool', 0, STALL_MS * 10)).toBe(false);
  });
});

describe('failureAdvice', () => {
  it('says what failed in words and which action helps, by code', () => {
    expect(failureAdvice({ code: 'AUTH', message: '401 nope', status: 401 })).toMatchObject({ what: 'The provider refused the API key (HTTP 401).', action: 'settings' });
    expect(failureAdvice({ code: 'TRANSPORT', message: 'connect ECONNREFUSED 127.0.0.1:37475' }).what).toBe('Nothing answered at 127.0.0.1:37475 (connection refused).');
    expect(failureAdvice({ code: 'RATE_LIMIT', message: '' }).action).toBe('retry');
    // A wrong base URL path (…/api instead of …/v1) is a 404 on the chat path: the advice names the URL first, not the model alone.
    const notFound = failureAdvice({ code: 'INVALID_REQUEST', message: '404 Not Found', status: 404 }, 'http://127.0.0.1:8787/api/');
    expect(notFound).toMatchObject({ what: 'Nothing was found at http://127.0.0.1:8787/api/chat/completions, or the endpoint does not know this model (HTTP 404).', action: 'settings' });
    expect(notFound.todo).toMatch(/^Check the Base URL in Settings/);
    expect(failureAdvice({ code: 'INVALID_REQUEST', message: '400 bad', status: 400 }).todo).toMatch(/^Check the model name/);
  });

  it('after retries, no longer says "retry in a moment": it says how often it was tried and where the cause may be', () => {
    const server = { code: 'SERVER', message: '500 scripted-llm: the script has nothing for its next step', status: 500 } as const;
    expect(failureAdvice(server).todo).toBe('Retry in a moment.');
    expect(failureAdvice(server, undefined, 6)).toEqual({
      what: 'The provider had a server error (HTTP 500).',
      todo: "Tried 6 times. If the provider's message says why, fix that; otherwise retry later or pick another model in Settings.",
      action: 'retry',
    });
    expect(failureAdvice({ code: 'TIMEOUT', message: '' }, undefined, 3).todo).toBe('Tried 3 times. Retry; if it keeps happening, the provider may be overloaded.');
    // Advice that points at Settings is the same however often it was tried.
    expect(failureAdvice({ code: 'AUTH', message: '401', status: 401 }, undefined, 4).todo).toBe('Check or replace the key in Settings, then retry.');
  });
});
