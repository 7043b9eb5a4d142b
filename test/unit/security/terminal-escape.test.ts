/**
 * Escaped terminal output (issue 8): what the CLI prints from a model, a tool or a file shows its
 * control characters instead of obeying them; the approval prompt shows the exact command.
 */
import { describe, expect, it } from 'vitest';
import { approvalPromptText } from '../../../electron/cli/approval-prompt.js';
import type { ApprovalPreview } from '../../../shared/approval.js';
import { TimelineText } from '../../../electron/cli/timeline-text.js';
import { hasInvisibleCharacters, visibleInline, visibleText } from '../../../shared/visible-text.js';

// eslint-disable-next-line no-control-regex -- looking for raw control characters
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe('terminal escaping', () => {
  it('makes C0, DEL, C1 and bidi controls visible; multi-line text keeps newlines and tabs', () => {
    expect(visibleText('a\r\x1b[2Kb\x07\x7f\x9b\u202e\tc\nd')).toBe('a\\r\\x1b[2Kb\\x07\\x7f\\x9b\\u202e\tc\nd');
    expect(visibleText('emoji 👩‍💻 stays, é too')).toBe('emoji 👩‍💻 stays, é too');
    expect(visibleInline('a\nb\tc\u200bd\u00a0e\u2028f g')).toBe('a\\nb\\tc\\u200bd\\xa0e\\u2028f g');
    expect(hasInvisibleCharacters('ls -la')).toBe(false);
    expect(hasInvisibleCharacters('ls\u200b -la')).toBe(true);
    expect(hasInvisibleCharacters('ls\u00a0-la')).toBe(true);
  });

  it('every string field of every event is escaped in the timeline', () => {
    const evil = '\x1b]0;t\x07\r\x1b[2K\x9b1m\u202e';
    const printer = new TimelineText({ live: false, color: false, seqs: true });
    const events = [
      { seq: 0, type: 'user/message', time: 1, data: { id: 'u', role: 'user', content: [{ type: 'text', text: evil }], source: { kind: `user${evil}` } } },
      {
        seq: 1,
        type: 'assistant/message',
        time: 1,
        data: {
          turn: 1,
          step: 1,
          message: {
            id: 'a',
            role: 'assistant',
            content: [
              { type: 'reasoning', text: evil },
              { type: 'text', text: evil },
              { type: 'tool-call', id: 'c', name: evil, arguments: '{}' },
            ],
            source: { kind: 'model', provider: 'p', model: 'm' },
          },
        },
      },
      { seq: 2, type: 'tool/call', time: 1, data: { turn: 1, step: 1, callId: 'c', name: evil, arguments: JSON.stringify({ command: evil }) } },
      {
        seq: 3,
        type: 'tool/result',
        time: 1,
        data: {
          turn: 1,
          step: 1,
          message: { id: 'r', role: 'user', source: { kind: 'tool', callId: 'c' }, content: [{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text', text: evil }], isError: true }] },
          error: { name: evil, code: evil },
        },
      },
      { seq: 4, type: 'llm/retry', time: 1, data: { turn: 1, step: 1, attempt: 1, delayMs: 1, failure: { code: evil, message: evil } } },
      { seq: 5, type: 'approval/asked', time: 1, data: { id: 'x', callId: 'c', toolName: evil, reason: evil } },
      { seq: 6, type: 'approval/decided', time: 1, data: { id: 'x', outcome: evil } },
      { seq: 7, type: 'turn/end', time: 1, data: { turn: 1, reason: { kind: 'error', failure: { code: evil, message: evil } } } },
    ];
    for (const event of events) {
      const out = printer.render(event as never);
      expect(out, event.type).not.toMatch(RAW);
      expect(out, event.type).toContain('\\x1b');
    }
    const live = new TimelineText({ live: true, color: false });
    expect(live.render({ seq: 0, type: 'assistant/chunk', time: 1, data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: evil } } } as never)).not.toMatch(RAW);
  });

  it('the approval prompt shows the whole command, the folder, and warns about hidden characters', () => {
    const command = 'touch pwned\r\x1b[2K? Allow bash `ls -la` (runs a command)? [y/N] \x1b[8m';
    const ask = (toolName: string, args: string, preview?: ApprovalPreview) =>
      approvalPromptText({ id: 'a', callId: 'c', toolName, arguments: args, reason: 'runs a shell command in the workspace', ...(preview ? { preview } : {}) }, false);
    const prompt = ask('bash', JSON.stringify({ command }), { kind: 'command', command, cwd: '/w', suggestedPrefix: 'touch' });
    // eslint-disable-next-line no-control-regex -- looking for raw control characters
    expect(prompt).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(prompt).toContain('  $ touch pwned\\r\\x1b[2K? Allow bash `ls -la` (runs a command)? [y/N] \\x1b[8m\n');
    expect(prompt).toContain('  in /w\n');
    expect(prompt).toContain('invisible or control characters');
    expect(prompt.endsWith('[N]o ')).toBe(true);
    const plain = ask('bash', JSON.stringify({ command: 'ls -la' }), { kind: 'command', command: 'ls -la', cwd: '/w', suggestedPrefix: 'ls' });
    expect(plain).not.toContain('invisible');
    const raw = ask('mcp_tool', `{"x":"${'y'.repeat(3000)}\u202e"`);
    expect(raw).toContain('…');
  });
});
