import { describe, expect, it } from 'vitest';
import { formatDuration, formatTokens, isoTime, usageLabel } from '../../../shared/format.js';
import { fileDiffs, parseToolArgs, prettyArgs, summarizeToolArgs, terminalFacts, toolPresentation } from '../../../shared/tool-view.js';

describe('tool presentation', () => {
  it('picks the view from the tool name, or diff when the meta carries file texts', () => {
    expect(toolPresentation('bash')).toBe('terminal');
    expect(toolPresentation('write_file')).toBe('diff');
    expect(toolPresentation('edit_file')).toBe('diff');
    expect(toolPresentation('read_file')).toBe('read');
    expect(toolPresentation('grep')).toBe('search');
    expect(toolPresentation('todo_write')).toBe('plain');
    expect(toolPresentation('custom', { path: 'a', oldText: '', newText: 'x' })).toBe('diff');
  });

  it('summarises arguments: command, path, pattern, else first string, else JSON', () => {
    expect(summarizeToolArgs('bash', '{"command":"npm test\\n  -- --run","timeoutMs":5000}')).toBe('npm test -- --run');
    expect(summarizeToolArgs('read_file', '{"path":"src/a.ts","offset":3}')).toBe('src/a.ts');
    expect(summarizeToolArgs('read', '{"file_path":"config.txt"}')).toBe('config.txt');
    expect(summarizeToolArgs('grep', '{"pattern":"TODO","path":"src"}')).toBe('TODO in src');
    expect(summarizeToolArgs('x', '{"n":1,"label":"hello"}')).toBe('hello');
    expect(summarizeToolArgs('x', '{"n":1}')).toBe('{"n":1}');
    expect(summarizeToolArgs('x', '')).toBe('');
    expect(summarizeToolArgs('bash', '{"command": "ec')).toBe('{"command": "ec');
    expect(summarizeToolArgs('bash', `{"command":"${'a'.repeat(200)}"}`, 20)).toBe(`${'a'.repeat(19)}…`);
  });

  it('parses and pretty-prints raw argument strings, tolerating invalid JSON', () => {
    expect(parseToolArgs('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolArgs('')).toEqual({});
    expect(parseToolArgs('[1]')).toBeUndefined();
    expect(parseToolArgs('{oops')).toBeUndefined();
    expect(prettyArgs('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyArgs('{oops')).toBe('{oops');
  });

  it('reads file diffs in both meta shapes', () => {
    expect(fileDiffs({ path: 'a.txt', oldText: 'x', newText: 'y', replacements: 1 })).toEqual([{ path: 'a.txt', oldText: 'x', newText: 'y' }]);
    expect(fileDiffs({ path: 'new.txt', oldText: '', newText: 'hi', created: true })).toEqual([{ path: 'new.txt', oldText: '', newText: 'hi' }]);
    expect(fileDiffs({ path: 'big', oldText: '', newText: '', omitted: true })).toEqual([{ path: 'big', oldText: '', newText: '', omitted: true }]);
    expect(fileDiffs({ diffs: [{ path: 'a', oldText: '1', newText: '2' }, { nope: 1 }] })).toEqual([{ path: 'a', oldText: '1', newText: '2' }]);
    expect(fileDiffs({ path: 'a.txt', offset: 1, lines: 2 })).toEqual([]);
    expect(fileDiffs(null)).toEqual([]);
  });

  it('reads terminal facts from bash meta', () => {
    expect(terminalFacts({ exitCode: 2, durationMs: 40, outputBytes: 10 })).toEqual({ exitCode: 2, durationMs: 40 });
    expect(terminalFacts({ exitCode: null, signal: 'SIGKILL', omittedBytes: 500 })).toEqual({ signal: 'SIGKILL', omittedBytes: 500, truncated: true });
    expect(terminalFacts({ exit_code: 0, timedOut: true })).toEqual({ exitCode: 0, timedOut: true });
    expect(terminalFacts(undefined)).toEqual({});
  });
});

describe('formatting', () => {
  it('formats durations, tokens, usage and times', () => {
    expect(formatDuration(undefined)).toBe('');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4200)).toBe('4.20 s');
    expect(formatDuration(42_000)).toBe('42.0 s');
    expect(formatDuration(185_000)).toBe('3 m 05 s');
    expect(formatTokens(912)).toBe('912');
    expect(formatTokens(15_137)).toBe('15.1k');
    expect(formatTokens(1_234_567)).toBe('1.23M');
    expect(usageLabel({ inputTokens: 2900, outputTokens: 91, cacheReadTokens: 1280, reasoningTokens: 46 })).toBe('in 4.18k (1.28k cached) · out 91 (46 reasoning)');
    expect(usageLabel(undefined)).toBe('');
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z (0)');
  });
});
