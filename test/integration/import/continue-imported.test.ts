/**
 * An imported Claude Code session is read-only and continuable (issue 12): send and compact are
 * refused with a typed error; a fork into a folder of ours becomes a live session, and resuming it
 * against the scripted server (real `openai` client) sends a valid request whose history is the
 * imported conversation — asserted on the bytes the server received.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import { startScriptedLlm, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { AGENT_LOGS } from '../../support/import-fixtures.js';
import { importText } from '../../../electron/host/services/session-imports.js';

let llm: ScriptedLlm;
let dir: string;
let workspace: string;
let runtime: Runtime;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dir = mkdtempSync(join(tmpdir(), 'forkline-continue-'));
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

async function rejection(promise: Promise<unknown> | (() => unknown)): Promise<{ code?: string; message: string }> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a refusal');
}

describe('continuing an imported Claude Code session', () => {
  it('refuses send and compact in place, then forks into a live session whose request history is the imported conversation', async () => {
    const text = readFileSync(join(AGENT_LOGS, 'claude-code', 'cc_hello-world-script.jsonl'), 'utf8');
    const summary = importText(runtime.repository, text, 'cc_hello-world-script.jsonl');
    const importedId = summary.sessionId;
    const connection = runtime.host.connect(() => undefined);

    // Read-only in place: typed refusals, nothing appended.
    const before = runtime.store.get(importedId)!.eventCount;
    expect(await rejection(() => connection.followup({ sessionId: importedId, text: 'go on' }))).toMatchObject({ code: 'SESSION_READ_ONLY' });
    expect(await rejection(connection.compactSession({ sessionId: importedId }))).toMatchObject({ code: 'SESSION_READ_ONLY' });
    expect(await rejection(() => connection.steer({ sessionId: importedId, text: 'faster' }))).toMatchObject({ code: 'SESSION_READ_ONLY' });
    expect(await rejection(() => connection.openTerminal({ sessionId: importedId, cols: 80, rows: 24 }))).toMatchObject({ code: 'SESSION_READ_ONLY' });
    expect(runtime.store.get(importedId)!.eventCount).toBe(before);
    const sub = connection.subscribeSession({ sessionId: importedId, fromSeq: 0 });
    expect(sub.readOnly).toBe(true);
    expect(sub.imported).toEqual({ format: 'claude-code' });
    expect(sub.notices.join('\n')).toContain('Imported from claude-code');

    // The folder named in the log is never used: a continuation needs one of ours.
    expect(await rejection(connection.forkSession({ sessionId: importedId }))).toMatchObject({ code: 'WORKSPACE_REQUIRED' });
    const child = await connection.forkSession({ sessionId: importedId, cwd: workspace });
    expect(child.cwd).toBe(workspace);
    expect(child.parentSession).toBe(importedId);
    expect(runtime.store.get(child.id)!.header.origin).toBeUndefined();

    llm.enqueue(textResponse('It printed "Hello world" once; run it again with `./hello.sh; ./hello.sh`.'));
    connection.followup({ sessionId: child.id, text: 'How would I print it twice?' });
    await runtime.host.agentFor(child.id)!.whenIdle();
    connection.dispose();

    expect(llm.requests).toHaveLength(1);
    const raw = llm.requests[0]!.rawBody;
    const body = JSON.parse(raw) as {
      messages: { role: string; content: string; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    };
    const history = body.messages.filter((m) => m.role !== 'system');
    expect(history).toEqual([
      { role: 'user', content: 'Write a shell script called hello.sh that prints "Hello world" and run it.' },
      {
        role: 'assistant',
        content: '',
        // A custom endpoint the log knows nothing about gets reasoning_content on tool-call messages (issue 20).
        reasoning_content: '',
        tool_calls: [
          {
            id: 'toolu_01R3SZZYuAq6mou5RqHE4rzF',
            type: 'function',
            function: { name: 'Write', arguments: JSON.stringify({ file_path: '/tmp/tmp74wiyiny/hello.sh', content: '#!/bin/bash\necho "Hello world"\n' }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01R3SZZYuAq6mou5RqHE4rzF', content: 'File created successfully at: /tmp/tmp74wiyiny/hello.sh' },
      {
        role: 'assistant',
        content: '',
        // A custom endpoint the log knows nothing about gets reasoning_content on tool-call messages (issue 20).
        reasoning_content: '',
        tool_calls: [
          {
            id: 'toolu_01GNvoSEyj9jAsgFtJBduDPp',
            type: 'function',
            function: { name: 'Bash', arguments: JSON.stringify({ command: 'chmod +x /tmp/tmp74wiyiny/hello.sh && /tmp/tmp74wiyiny/hello.sh', description: 'Make script executable and run it' }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01GNvoSEyj9jAsgFtJBduDPp', content: 'Hello world' },
      { role: 'assistant', content: 'Done. I created `hello.sh` with a shebang and an echo command, made it executable, and ran it successfully.' },
      { role: 'user', content: expect.stringContaining('Stop hook feedback:\n[${CLAUDE_PLUGIN_ROOT}/scripts/hooks/stop.sh]: # Task Completion Check') },
      { role: 'assistant', content: expect.stringContaining('I have fully completed the task.') },
      { role: 'user', content: 'How would I print it twice?' },
    ]);
    // The raw bytes carry the imported call ids and arguments exactly as the source recorded them.
    expect(raw).toContain('"tool_call_id":"toolu_01R3SZZYuAq6mou5RqHE4rzF"');
    expect(raw).toContain(JSON.stringify(JSON.stringify({ file_path: '/tmp/tmp74wiyiny/hello.sh', content: '#!/bin/bash\necho "Hello world"\n' })));

    // The child's log: the imported prefix by reference, its own end-seed, then its own turn.
    const events = runtime.store.readAll(child.id);
    const own = events.slice(child.seedLength);
    expect(own[0]!.type).toBe('session/end-seed');
    expect(own.some((e: SessionEvent) => e.type === 'turn/end' && e.data.reason.kind === 'completed')).toBe(true);
    expect(runtime.store.get(importedId)!.eventCount).toBe(before);
  });
});
