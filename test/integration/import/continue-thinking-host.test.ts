/**
 * Issue 20 through the host API ("Continue in Forkline": importText → forkSession({cwd}) →
 * followup), against the scripted server in strict thinking mode (real `openai` client, real
 * SQLite): one fixture of each importable format with tool calls continues to a completed turn
 * with no rejection (a custom endpoint gets `reasoning_content` on tool-call messages by default,
 * logged in `request/header.dialect`), and every request the server received is rebuilt byte for
 * byte from the child's log (model-visible means logged).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { OpenAiCompatibleClient } from '../../../electron/llm/openai-compatible-client.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { rebuildRequestBodies } from '../../support/request-rebuild.js';
import { startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { strictThinkingViolations } from '../../support/scripted-llm/strict-thinking.js';
import { importText } from '../../../electron/host/services/session-imports.js';

let llm: ScriptedLlm;
let dir: string;
let workspace: string;
let runtime: Runtime;

beforeAll(async () => {
  llm = await startScriptedLlm({ strictThinking: true });
  dir = mkdtempSync(join(tmpdir(), 'forkline-continue-thinking-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: { FORKLINE_CHECKPOINTS: 'off' },
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
});
afterAll(async () => {
  await runtime.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

const FIXTURES = [
  ['claude-code', 'cc_coverage-test-fix.jsonl'],
  ['codex', 'codex_synthetic_tool-calls-escalation-aborted.rollout.jsonl'],
  ['openhands', 'oh_basic_interactions.trajectory.json'],
  ['deepseek-harness', 'dsh_fs-edit.session.jsonl'],
] as const;

describe('Continue in Forkline on a strict thinking endpoint (host API)', () => {
  it('a lone surrogate inside an imported log never goes on the wire (U+FFFD instead)', async () => {
    // A Claude Code transcript whose prompt and tool result hold half an emoji (a JSON \ud83d escape).
    const base = { isSidechain: false, userType: 'external', cwd: '/home/u/p', sessionId: '9e0c2f5e-1111-4222-8333-444455556666', version: '2.1.14' };
    const lines = [
      { ...base, type: 'user', parentUuid: null, uuid: 'u-1', timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: 'PLACEHOLDER_PROMPT' } },
      {
        ...base,
        type: 'assistant',
        parentUuid: 'u-1',
        uuid: 'u-2',
        timestamp: '2026-01-01T00:00:02Z',
        requestId: 'r1',
        message: {
          model: 'claude',
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat notes.txt' } }],
          stop_reason: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      {
        ...base,
        type: 'user',
        parentUuid: 'u-2',
        uuid: 'u-3',
        timestamp: '2026-01-01T00:00:03Z',
        message: { role: 'user', content: [{ tool_use_id: 'toolu_1', type: 'tool_result', content: 'PLACEHOLDER_RESULT' }] },
      },
      {
        ...base,
        type: 'assistant',
        parentUuid: 'u-3',
        uuid: 'u-4',
        timestamp: '2026-01-01T00:00:04Z',
        requestId: 'r2',
        message: {
          model: 'claude',
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'The notes are cut.' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    ];
    const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`.replace('PLACEHOLDER_PROMPT', 'half a face: \\ud83d!').replace('PLACEHOLDER_RESULT', 'notes \\udc00 end');
    const summary = importText(runtime.repository, text, 'lone-surrogate.jsonl');
    const connection = runtime.host.connect(() => undefined);
    try {
      const child = await connection.forkSession({ sessionId: summary.sessionId, cwd: workspace });
      const before = llm.requests.length;
      llm.enqueue(textResponse('Noted.'));
      connection.followup({ sessionId: child.id, text: 'go on' });
      await runtime.host.agentFor(child.id)!.whenIdle();
      const bodies = llm.requests.slice(before).map((r) => r.rawBody);
      expect(bodies.length).toBeGreaterThan(0);
      for (const raw of bodies) {
        expect(raw).not.toMatch(/\\ud[89ab][0-9a-f]{2}|\\ud[c-f][0-9a-f]{2}/i);
        expect(raw).toContain('half a face: \uFFFD!');
        expect(raw).toContain('notes \uFFFD end');
      }
    } finally {
      connection.dispose();
    }
  });

  it.each(FIXTURES)('%s %s: the continued turn completes with no 400, and every request rebuilds from the log', async (folder, file) => {
    const summary = importText(runtime.repository, readFileSync(join(AGENT_LOGS, folder, file), 'utf8'), file);
    const connection = runtime.host.connect(() => undefined);
    try {
      const child = await connection.forkSession({ sessionId: summary.sessionId, cwd: workspace });
      const before = llm.requests.length;
      llm.enqueue(textResponse('Picking up from the imported session.'));
      connection.followup({ sessionId: child.id, text: 'continue' });
      await runtime.host.agentFor(child.id)!.whenIdle();
      await runtime.host.agentFor(child.id)!.whenIdle();

      const events = runtime.store.readAll(child.id);
      const own = events.slice(child.seedLength);
      const end = own.findLast((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end');
      expect(end?.data.reason).toEqual({ kind: 'completed' });

      const requests = llm.requests.slice(before);
      // Nothing in an imported log says what this endpoint wants; a custom endpoint gets
      // reasoning_content on every tool-call message by default, so the thinking endpoint refuses nothing.
      expect(llm.rejected.filter((r) => r.request.number > before)).toEqual([]);
      expect(requests).toHaveLength(1);
      expect(own.some((e) => e.type === 'llm/warning' && e.data.code === 'HISTORY_CORRECTED')).toBe(false);
      // The header says which shape was sent (the default, logged).
      const headers = own.filter((e): e is SessionEvent<'request/header'> => e.type === 'request/header');
      expect(headers.at(-1)!.data.header.dialect).toEqual({ reasoningContent: 'tool-calls' });
      expect(strictThinkingViolations(requests[0]!.body)).toEqual([]);

      // Model-visible means logged: every attempt's body, refused or not, rebuilds from the log.
      const client = new OpenAiCompatibleClient({ provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' });
      const rebuilt = rebuildRequestBodies(runtime.store.get(child.id)!.header, events, client, child.seedLength);
      expect(rebuilt).toEqual(requests.map((r) => r.rawBody));
    } finally {
      connection.dispose();
    }
  });
});
