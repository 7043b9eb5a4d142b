/**
 * The tool pipeline, registry and scheduler with real tools: argument parsing and validation
 * (zod and ajv), unknown tools, the approval policy, timeouts, head+tail truncation, fail-closed
 * concurrency classification, the pool cap and ordered commits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApprovalPolicyName } from '../../../shared/events.js';
import { createBuiltinTools } from '../../../electron/tools/builtin-tools.js';
import { ToolPipeline, type ApprovalQuestion, type ToolCallRequest, type ToolCallResult } from '../../../electron/tools/pipeline.js';
import { ToolRegistry } from '../../../electron/tools/registry.js';
import { runToolCalls } from '../../../electron/tools/scheduler.js';
import { defineTool } from '../../../electron/tools/tool.js';
import { InMemoryFileReadTracker } from '../../../electron/tools/file-read-tracker.js';
import { put, tempDir } from './helpers.js';

const sleepTool = defineTool({
  name: 'sleep',
  description: 'sleeps',
  parameters: z.object({ ms: z.number().int().min(0) }).strict(),
  risk: 'read',
  presentation: 'generic',
  timeoutMs: 50,
  isConcurrencySafe: () => true,
  execute: (args, ctx) =>
    new Promise((resolve, reject) => {
      const t = setTimeout(() => resolve({ content: `slept ${args.ms}` }), args.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new Error('stopped'));
      });
    }),
});

const loudTool = defineTool({
  name: 'loud',
  description: 'prints a lot',
  parameters: z.object({ bytes: z.number().int() }).strict(),
  risk: 'read',
  presentation: 'generic',
  execute: async (args) => ({ content: `HEAD${'x'.repeat(args.bytes)}TAIL` }),
});

const throwingClassifier = defineTool({
  name: 'odd',
  description: 'classifier throws',
  parameters: z.object({}).strict(),
  risk: 'read',
  presentation: 'generic',
  isConcurrencySafe: () => {
    throw new Error('boom');
  },
  execute: async () => ({ content: 'ok' }),
});

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
});
afterEach(() => {
  ws.cleanup();
});

const stubbornTool = defineTool({
  name: 'stubborn',
  description: 'ignores its abort signal (like a read blocked on a FIFO)',
  parameters: z.object({}).strict(),
  risk: 'read',
  presentation: 'generic',
  timeoutMs: 50,
  execute: () => new Promise(() => undefined),
});

const leakyTool = defineTool({
  name: 'leaky',
  description: 'prints a secret',
  parameters: z.object({}).strict(),
  risk: 'read',
  presentation: 'generic',
  execute: async () => ({ content: 'key=sk-live-abcdef0123456789 done' }),
});

function pipeline(
  options: {
    policy?: ApprovalPolicyName;
    answer?: (q: ApprovalQuestion) => Promise<'allowed-once' | 'rejected'>;
    spill?: (callId: string, text: string) => string | undefined;
    isAllowedByRule?: (toolName: string, args: unknown) => boolean;
  } = {},
) {
  const registry = new ToolRegistry(
    [...createBuiltinTools(), sleepTool, loudTool, throwingClassifier, stubbornTool, leakyTool],
    [
      {
        name: 'mcp_echo',
        description: 'a JSON-schema tool',
        parameters: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'], additionalProperties: false },
        risk: 'read',
        execute: async (args) => ({ content: `echo ${(args as { text: string }).text}` }),
      },
    ],
  );
  const asked: ApprovalQuestion[] = [];
  const p = new ToolPipeline({
    registry,
    cwd: ws.dir,
    sessionId: 's',
    files: new InMemoryFileReadTracker(),
    policy: () => options.policy ?? 'allow',
    ...(options.answer
      ? {
          requestApproval: async (q: ApprovalQuestion) => {
            asked.push(q);
            return options.answer!(q);
          },
        }
      : {}),
    outputCapBytes: 1_000,
    ...(options.spill ? { spill: options.spill } : {}),
    ...(options.isAllowedByRule ? { isAllowedByRule: options.isAllowedByRule } : {}),
    abortGraceMs: 100,
    secrets: () => ['sk-live-abcdef0123456789'],
  });
  return { registry, pipeline: p, asked };
}

async function run(p: ToolPipeline, call: ToolCallRequest): Promise<ToolCallResult> {
  const prepared = await p.prepare(call, new AbortController().signal);
  return prepared.kind === 'final' ? prepared.result : prepared.run();
}

describe('tool pipeline', () => {
  it('turns unparsable, unknown and invalid calls into error results without running anything', async () => {
    const { pipeline: p } = pipeline();
    put(ws.dir, 'x.txt', 'x');
    const broken = await run(p, { callId: 'a', name: 'write_file', arguments: '{"path": "x.txt", "content' });
    expect(broken).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    expect(broken.content).toMatch(/not valid JSON/);
    const unknown = await run(p, { callId: 'b', name: 'delete_everything', arguments: '{}' });
    expect(unknown).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } });
    expect(unknown.content).toContain('read_file');
    const invalid = await run(p, { callId: 'c', name: 'read_file', arguments: '{"path": 3, "extra": true}' });
    expect(invalid).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    const foreign = await run(p, { callId: 'd', name: 'mcp_echo', arguments: '{"text": ""}' });
    expect(foreign).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    expect(await run(p, { callId: 'e', name: 'mcp_echo', arguments: '{"text":"hi"}' })).toMatchObject({ content: 'echo hi', isError: false });
    // Empty arguments mean {}.
    expect(await run(p, { callId: 'f', name: 'list_dir', arguments: '' })).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
  });

  it('applies the approval policy to risky tools only', async () => {
    const denied = pipeline({ policy: 'deny' });
    expect(await run(denied.pipeline, { callId: 'w', name: 'write_file', arguments: '{"path":"n.txt","content":"x"}' })).toMatchObject({ isError: true, error: { code: 'DENIED' } });
    expect(await run(denied.pipeline, { callId: 'r', name: 'list_dir', arguments: '{"path":"."}' })).toMatchObject({ isError: false });

    const rejected = pipeline({ policy: 'ask', answer: async () => 'rejected' });
    const result = await run(rejected.pipeline, { callId: 'b1', name: 'bash', arguments: '{"command":"echo hi"}' });
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED' } });
    expect(rejected.asked).toEqual([
      {
        callId: 'b1',
        toolName: 'bash',
        arguments: '{"command":"echo hi"}',
        reason: 'runs a shell command in the workspace',
        preview: { kind: 'command', command: 'echo hi', cwd: ws.dir, suggestedPrefix: 'echo' },
      },
    ]);

    const allowed = pipeline({ policy: 'ask', answer: async () => 'allowed-once' });
    expect(await run(allowed.pipeline, { callId: 'b2', name: 'bash', arguments: '{"command":"echo hi"}' })).toMatchObject({ isError: false });

    const nobody = pipeline({ policy: 'ask' });
    const unavailable = await run(nobody.pipeline, { callId: 'b3', name: 'bash', arguments: '{"command":"echo hi"}' });
    expect(unavailable.content).toContain('--approval allow');
  });

  it('checks preconditions before asking: an edit that would fail is never put to the person', async () => {
    const asking = pipeline({ policy: 'ask', answer: async () => 'allowed-once' });
    put(ws.dir, 'sum.js', 'const a = 1;\n');
    // Not read first: FILE_NOT_READ without a question.
    const notRead = await run(asking.pipeline, { callId: 'e1', name: 'edit_file', arguments: '{"path":"sum.js","old_string":"1","new_string":"2"}' });
    expect(notRead).toMatchObject({ isError: true, error: { code: 'FILE_NOT_READ' } });
    await run(asking.pipeline, { callId: 'r1', name: 'read_file', arguments: '{"path":"sum.js"}' });
    const missing = await run(asking.pipeline, { callId: 'e2', name: 'edit_file', arguments: '{"path":"sum.js","old_string":"nope","new_string":"2"}' });
    expect(missing).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    expect(asking.asked).toEqual([]);
    // A valid edit is asked with its diff.
    const ok = await run(asking.pipeline, { callId: 'e3', name: 'edit_file', arguments: '{"path":"sum.js","old_string":"a = 1","new_string":"a = 2"}' });
    expect(ok).toMatchObject({ isError: false });
    expect(asking.asked).toHaveLength(1);
    expect(asking.asked[0]!.preview).toMatchObject({ kind: 'diff', path: 'sum.js', created: false, added: 1, removed: 1 });
    const preview = asking.asked[0]!.preview as { patch: string };
    expect(preview.patch).toContain('--- a/sum.js\n+++ b/sum.js\n@@ -1,1 +1,1 @@\n-const a = 1;\n+const a = 2;\n');
  });

  it('a standing rule skips the question; other tools and commands still ask', async () => {
    const ruled = pipeline({ policy: 'ask', answer: async () => 'rejected', isAllowedByRule: (name, args) => name === 'bash' && (args as { command: string }).command.startsWith('echo') });
    expect(await run(ruled.pipeline, { callId: 'b1', name: 'bash', arguments: '{"command":"echo ok"}' })).toMatchObject({ content: 'ok\n[exit code 0]' });
    expect(ruled.asked).toEqual([]);
    expect(await run(ruled.pipeline, { callId: 'b2', name: 'bash', arguments: '{"command":"ls"}' })).toMatchObject({ error: { code: 'DENIED' } });
    expect(ruled.asked).toHaveLength(1);
  });

  it('ends a call whose body ignores its abort (after the grace period) instead of hanging the turn', async () => {
    const { pipeline: p } = pipeline();
    const started = Date.now();
    const result = await run(p, { callId: 'x', name: 'stubborn', arguments: '{}' });
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } });
    expect(result.content).toMatch(/did not stop within 100 ms of being asked to/);
    expect(Date.now() - started).toBeLessThan(5000);
    // Cancel works the same way.
    const controller = new AbortController();
    const prepared = await p.prepare({ callId: 'y', name: 'stubborn', arguments: '{}' }, controller.signal);
    expect(prepared.kind).toBe('run');
    const pending = prepared.kind === 'run' ? prepared.run() : Promise.reject(new Error('not run'));
    controller.abort({ kind: 'user' });
    expect(await pending).toMatchObject({ isError: true, error: { code: 'ABORTED' } });
  });

  it('removes secret values from results', async () => {
    const { pipeline: p } = pipeline();
    expect((await run(p, { callId: 'l', name: 'leaky', arguments: '{}' })).content).toBe('key=[redacted secret] done');
  });

  it('stops a call that outlives its time limit with TOOL_TIMEOUT', async () => {
    const { pipeline: p } = pipeline();
    expect(await run(p, { callId: 's', name: 'sleep', arguments: '{"ms":5}' })).toMatchObject({ content: 'slept 5', isError: false });
    expect(await run(p, { callId: 't', name: 'sleep', arguments: '{"ms":5000}' })).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } });
  });

  it('cuts oversized output to head + tail with a notice, saying where the full text is', async () => {
    const saved: string[] = [];
    const { pipeline: p } = pipeline({ spill: (callId, text) => (saved.push(text), `/spill/${callId}.txt`) });
    const result = await run(p, { callId: 'big', name: 'loud', arguments: '{"bytes":5000}' });
    expect(result.content.startsWith('HEAD')).toBe(true);
    expect(result.content.endsWith('TAIL')).toBe(true);
    expect(result.content).toMatch(/\[… \d+ bytes \(about \d+ lines\) omitted from the middle of this output … The full output \(5008 bytes\) is saved at \/spill\/big\.txt\.\]/);
    expect(Buffer.byteLength(result.content)).toBeLessThan(1_300);
    expect(saved[0]!.length).toBe(5008);
  });

  it('classifies concurrency fail-closed', () => {
    const { registry } = pipeline();
    expect(registry.isConcurrencySafe('read_file', { path: 'a' })).toBe(true);
    expect(registry.isConcurrencySafe('bash', { command: 'ls' })).toBe(false);
    expect(registry.isConcurrencySafe('odd', {})).toBe(false);
    expect(registry.isConcurrencySafe('nope', {})).toBe(false);
    expect(registry.schemas().map((s) => s.name)).toEqual([...registry.names]);
    expect(registry.schemas().find((s) => s.name === 'read_file')!.parameters).toMatchObject({ type: 'object', additionalProperties: false, required: ['path'] });
  });
});

describe('tool scheduler', () => {
  it('never runs more than the pool cap at once, and commits in model order', async () => {
    const calls: ToolCallRequest[] = Array.from({ length: 12 }, (_, i) => ({ callId: `c${i}`, name: 'sleep', arguments: JSON.stringify({ ms: 30 - 2 * i }) }));
    let inFlight = 0;
    let peak = 0;
    const committed: string[] = [];
    await runToolCalls(
      calls,
      {
        onStart: () => undefined,
        prepare: async (call) => ({
          kind: 'run',
          concurrencySafe: true,
          run: async () => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            await new Promise((r) => setTimeout(r, JSON.parse(call.arguments).ms as number));
            inFlight--;
            return { content: call.callId, isError: false };
          },
        }),
        isConcurrencySafe: () => true,
        onResult: (call) => committed.push(call.callId),
        onAbortedBeforeDispatch: () => undefined,
      },
      { signal: new AbortController().signal, maxParallel: 4 },
    );
    expect(peak).toBe(4);
    expect(committed).toEqual(calls.map((c) => c.callId));
  });

  it('gives every unstarted call a synthetic ABORTED_BEFORE_DISPATCH result when aborted', async () => {
    const abort = new AbortController();
    const aborted: string[] = [];
    const results: string[] = [];
    await runToolCalls(
      ['a', 'b', 'c'].map((id) => ({ callId: id, name: 'x', arguments: '{}' })),
      {
        onStart: (call) => {
          if (call.callId === 'a') abort.abort();
        },
        prepare: async () => ({ kind: 'run', concurrencySafe: false, run: async () => ({ content: 'done', isError: false }) }),
        isConcurrencySafe: () => false,
        onResult: (call) => results.push(call.callId),
        onAbortedBeforeDispatch: (call, _i, result) => aborted.push(`${call.callId}:${result.error!.code}`),
      },
      { signal: abort.signal },
    );
    expect(results).toEqual(['a']);
    expect(aborted).toEqual(['b:ABORTED_BEFORE_DISPATCH', 'c:ABORTED_BEFORE_DISPATCH']);
  });
});
