/**
 * Issue 20 items 1 and 3, through the real CLI (bundled, real child processes, real SQLite, the
 * scripted server in strict thinking mode on 127.0.0.1, which refuses what DeepSeek refuses):
 * - every importable fixture with tool calls continues with no rejection at all:
 *   cli-continue-fixtures-*.test.ts (two files, so they run side by side);
 * - a Claude Code transcript with three parallel sub-agent calls answered out of order continues
 *   with no rejection at all;
 * - on a server that refuses unknown message fields (Cerebras' 400 for `reasoning_content`), the
 *   default is refused exactly once, corrected (`HISTORY_CORRECTED`, `reasoningContent: 'omit'`),
 *   and the next resume is refused nothing;
 * - a native `run --base-url URL "list the files"` on an endpoint that streams an empty
 *   `reasoning_content` with its tool call is never refused, and neither is its resume; nor is a
 *   native session recorded on another custom endpoint and resumed on this one;
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { startScriptedLlm, textResponse, toolCallResponse, type RecordedRequest } from '../../support/scripted-llm/index.js';
import { strictThinkingViolations } from '../../support/scripted-llm/strict-thinking.js';
import { unknownFieldViolations } from '../../support/scripted-llm/strict-fields.js';
import { ROOT } from '../../support/cli-process.js';
import { FORMATS_WITH_TOOL_CALLS, fixturesWithToolCalls, thinkingCli } from '../../support/thinking-cli.js';

const cli = thinkingCli('forkline-cli-thinking');
const { forkline, readLog, rejectionsSince } = cli;

describe('continuing on a strict thinking endpoint (issue 20)', () => {
  it('covers a fixture of every importable format with tool calls', () => {
    expect(new Set(fixturesWithToolCalls().map((f) => f.folder))).toEqual(new Set(FORMATS_WITH_TOOL_CALLS));
  });

  it('three parallel sub-agent calls whose results arrived in another order: continued with results in call order', async () => {
    const base = { isSidechain: false, userType: 'external', cwd: '/home/u/p', sessionId: '7d0c2f5e-1111-4222-8333-444455556666', version: '2.1.14' };
    let n = 0;
    let parent: string | null = null;
    const rec = (extra: Record<string, unknown>): string => {
      const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
      const line = JSON.stringify({ parentUuid: parent, ...base, ...extra, uuid, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() });
      parent = uuid;
      return line;
    };
    const assistant = (content: unknown) =>
      rec({
        type: 'assistant',
        requestId: 'req_1',
        message: { model: 'claude-opus-4-5', id: 'msg_1', type: 'message', role: 'assistant', content: [content], stop_reason: null, usage: { input_tokens: 3, output_tokens: 5 } },
      });
    const task = (id: string, what: string) => assistant({ type: 'tool_use', id, name: 'Task', input: { description: what, prompt: `Look into ${what}`, subagent_type: 'general-purpose' } });
    const result = (id: string, text: string) => rec({ type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: [{ type: 'text', text }] }] } });
    const lines = [
      rec({ type: 'user', message: { role: 'user', content: 'Survey the three packages in parallel.' } }),
      assistant({ type: 'thinking', thinking: 'Three independent sub-agents.', signature: 'sig' }),
      task('toolu_A', 'package a'),
      task('toolu_B', 'package b'),
      task('toolu_C', 'package c'),
      result('toolu_C', 'c is fine'),
      result('toolu_A', 'a needs tests'),
      result('toolu_B', 'b is deprecated'),
      rec({
        type: 'assistant',
        requestId: 'req_2',
        message: {
          model: 'claude-opus-4-5',
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'a needs tests, b is deprecated, c is fine.' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 3, output_tokens: 9 },
        },
      }),
    ];
    const file = join(cli.work, 'parallel-tasks.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const imported = await forkline(['import', file]);
    expect(imported.code, imported.stderr).toBe(0);
    const id = /^session (\S+)/m.exec(imported.stdout)![1]!;
    const child = (await forkline(['fork', id, '--cwd', cli.work])).stdout.trim();

    // Results in call order is always on: only the reasoning field is checked here, by a server
    // that says (like DeepSeek) what it wants.
    cli.llm.setHandler(() => textResponse('Writing the tests for a first.'));
    const before = cli.llm.requests.length;
    const resume = await forkline(['resume', child, '--base-url', cli.llm.baseUrl, '--model', 'thinking-model', 'what first?']);
    cli.llm.setHandler(undefined);
    expect(resume.code, resume.stderr).toBe(0);
    expect(rejectionsSince(before)).toEqual([]);
    const last = cli.llm.requests.at(-1)!;
    const order = (last.body.messages as { role: string; tool_call_id?: string }[]).filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(order).toEqual(['toolu_A', 'toolu_B', 'toolu_C']);
    expect(strictThinkingViolations(last.body)).toEqual([]);
    // The log keeps the arrival order: only the wire is ordered.
    const results = readLog(child)
      .filter((e): e is SessionEvent<'tool/result'> => e.type === 'tool/result')
      .map((e) => e.data.message.source.callId);
    expect(results).toEqual(['toolu_C', 'toolu_A', 'toolu_B']);
  });

  it('native run --base-url on an endpoint that streams an empty reasoning_content with its tool call, then resume: never refused', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'forkline-thinking-native-'));
    writeFileSync(join(folder, 'a.txt'), 'alpha\n');
    writeFileSync(join(folder, 'b.txt'), 'beta\n');
    try {
      const before = cli.llm.requests.length;
      cli.llm.enqueue(toolCallResponse([{ id: 'call_ls', name: 'list_dir', arguments: '{"path":"."}' }]), textResponse('There are two files: a.txt and b.txt.'));
      const run = await forkline(['run', '--cwd', folder, '--base-url', cli.llm.baseUrl, '--model', 'thinking-model', '--approval', 'allow', 'list the files']);
      expect(rejectionsSince(before)).toEqual([]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const requests: RecordedRequest[] = cli.llm.requests.slice(before);
      expect(requests).toHaveLength(2);
      const assistantMessage = requests[1]!.body.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistantMessage.reasoning_content).toBe('');
      const id = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;

      const resumed = cli.llm.requests.length;
      cli.llm.enqueue(textResponse('Still two.'));
      const resume = await forkline(['resume', id, '--base-url', cli.llm.baseUrl, '--model', 'thinking-model', 'and now?']);
      expect(resume.code, resume.stderr).toBe(0);
      expect(rejectionsSince(resumed)).toEqual([]);
      expect(strictThinkingViolations(cli.llm.requests.at(-1)!.body)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
  it('a native session recorded on another custom endpoint, resumed on the thinking endpoint: refused nothing', async () => {
    const plain = await startScriptedLlm();
    const folder = mkdtempSync(join(tmpdir(), 'forkline-thinking-moved-'));
    writeFileSync(join(folder, 'a.txt'), 'alpha\n');
    try {
      // Recorded where nothing streams reasoning_content: the log teaches nothing about the field.
      plain.enqueue(toolCallResponse([{ id: 'call_ls', name: 'list_dir', arguments: '{"path":"."}' }]), textResponse('One file: a.txt.'));
      const run = await forkline(['run', '--cwd', folder, '--base-url', plain.baseUrl, '--model', 'plain-model', '--approval', 'allow', 'list the files']);
      expect(run.code, run.stderr).toBe(0);
      const id = /session ([0-9a-f-]{36})\s*$/.exec(run.stdout)![1]!;

      const before = cli.llm.requests.length;
      cli.llm.enqueue(textResponse('Still one.'));
      const resume = await forkline(['resume', id, '--base-url', cli.llm.baseUrl, '--model', 'thinking-model', 'and now?']);
      expect(resume.code, resume.stderr).toBe(0);
      expect(rejectionsSince(before)).toEqual([]);
      expect(cli.llm.requests.length - before).toBe(1);
      expect(strictThinkingViolations(cli.llm.requests.at(-1)!.body)).toEqual([]);
      expect(readLog(id).some((e) => e.type === 'llm/warning' && e.data.code === 'HISTORY_CORRECTED')).toBe(false);
    } finally {
      await plain.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a server that refuses unknown message fields: the default reasoning_content is refused once, corrected and logged, then never again', async () => {
    const strictFields = await startScriptedLlm({ rejectUnknownFields: true });
    try {
      const imported = await forkline(['import', join(ROOT, 'test/fixtures/agent-session-logs/deepseek-harness/dsh_fs-edit.session.jsonl')]);
      expect(imported.code, imported.stderr).toBe(0);
      const id = /^session (\S+)/m.exec(imported.stdout)![1]!;
      const fork = await forkline(['fork', id, '--cwd', cli.work]);
      expect(fork.code, fork.stderr).toBe(0);
      const child = fork.stdout.trim();

      strictFields.setHandler(() => textResponse('Continuing.'));
      const resume = await forkline(['resume', child, '--base-url', strictFields.baseUrl, '--model', 'strict-model', 'continue']);
      expect(resume.code, resume.stderr).toBe(0);
      expect(resume.stdout).toMatch(/Turn \d+ ended: completed/);
      expect(resume.stdout).toContain('HISTORY_CORRECTED');
      expect(strictFields.rejected).toHaveLength(1);
      expect(JSON.stringify(strictFields.rejected[0]!.step)).toMatch(/messages\.\d+\.assistant\.reasoning_content: property '.*' is unsupported/);
      expect(strictFields.requests).toHaveLength(2);
      expect(unknownFieldViolations(strictFields.requests[1]!.body)).toEqual([]);
      const warnings = readLog(child).filter((e): e is SessionEvent<'llm/warning'> => e.type === 'llm/warning' && e.data.code === 'HISTORY_CORRECTED');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.data.dialect).toEqual({ reasoningContent: 'omit' });
      const headers = readLog(child).filter((e): e is SessionEvent<'request/header'> => e.type === 'request/header');
      expect(headers.at(-1)!.data.header.dialect).toEqual({ reasoningContent: 'omit' });

      // The next resume starts from what the log learned: refused nothing.
      const again = strictFields.requests.length;
      const next = await forkline(['resume', child, '--base-url', strictFields.baseUrl, '--model', 'strict-model', 'and then?']);
      expect(next.code, next.stderr).toBe(0);
      expect(strictFields.rejected).toHaveLength(1);
      expect(strictFields.requests.length - again).toBe(1);
      expect(unknownFieldViolations(strictFields.requests.at(-1)!.body)).toEqual([]);
    } finally {
      await strictFields.close();
    }
  });
});
