/**
 * A generated Claude Code transcript for benchmarks and load tests: records shaped like the real
 * ones in test/fixtures/agent-session-logs/claude-code (the same fields, one content block per
 * assistant record, tool results with a structured `toolUseResult`, file-history snapshots and
 * hook progress records between them), any number of turns, written line by line.
 */

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'the file function test import value return error line module change read write run build check result should will'.split(' ');

/**
 * Yields the lines (without newline) of a transcript with `turns` turns. Each turn: a prompt,
 * thinking, a text block and 3 tool calls answered one by one (Read with ~2–4 KB of file content,
 * Edit with a patch, Bash with output), then a final answer; plus a file-history snapshot and a hook
 * progress record.
 */
export function* claudeCodeTranscript(turns: number, seed = 1): Generator<string> {
  const random = rng(seed);
  const words = (n: number): string => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const sessionId = '5c1f0d4e-8a9b-4c2d-9e3f-0a1b2c3d4e5f';
  const base = { isSidechain: false, userType: 'external', cwd: '/home/user/project', sessionId, version: '2.1.14', gitBranch: 'main', slug: 'generated-bench-session' };
  let t = Date.parse('2026-01-01T00:00:00Z');
  let n = 0;
  let parent: string | null = null;
  const uuid = (): string => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;
  const ts = (): string => new Date((t += 200 + Math.floor(random() * 800))).toISOString();
  const record = (extra: Record<string, unknown>): string => {
    const id = uuid();
    const line = JSON.stringify({ parentUuid: parent, ...base, ...extra, uuid: id, timestamp: ts() });
    parent = id;
    return line;
  };
  yield JSON.stringify({ type: 'queue-operation', operation: 'dequeue', timestamp: ts(), sessionId });
  for (let turn = 1; turn <= turns; turn++) {
    yield record({ type: 'user', message: { role: 'user', content: `Turn ${turn}: ${words(20)}` } });
    const usage = (out: number) => ({
      input_tokens: 3,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 15000 + turn * 10,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 0 },
      output_tokens: out,
      service_tier: 'standard',
    });
    for (let step = 0; step < 4; step++) {
      const messageId = `msg_${turn}_${step}`;
      const requestId = `req_${turn}_${step}`;
      const assistant = (content: unknown, out: number) =>
        record({
          type: 'assistant',
          requestId,
          message: { model: 'claude-opus-4-5-20251101', id: messageId, type: 'message', role: 'assistant', content: [content], stop_reason: null, stop_sequence: null, usage: usage(out) },
        });
      if (step === 0) yield assistant({ type: 'thinking', thinking: words(60), signature: 'Eq' + 'x'.repeat(200) }, 1);
      if (step === 3) {
        yield assistant({ type: 'text', text: words(80) }, 120);
        break;
      }
      yield assistant({ type: 'text', text: words(25) }, 1);
      const toolId = `toolu_${turn}_${step}`;
      const tool = step === 0 ? 'Read' : step === 1 ? 'Edit' : 'Bash';
      const input =
        step === 0
          ? { file_path: `/home/user/project/src/m${turn}.ts` }
          : step === 1
            ? { file_path: `/home/user/project/src/m${turn}.ts`, old_string: words(8), new_string: words(9), replace_all: false }
            : { command: 'npm test', description: 'Run the tests' };
      yield assistant({ type: 'tool_use', id: toolId, name: tool, input }, 40);
      const body =
        step === 0
          ? Array.from({ length: 40 + Math.floor(random() * 40) }, (_, i) => `${String(i + 1).padStart(6)}→${words(8)}`).join('\n')
          : step === 1
            ? `The file has been updated.\n${words(30)}`
            : `> test\n${words(120)}\n12 passing`;
      const structured =
        step === 0
          ? { type: 'text', file: { filePath: input.file_path, content: body, numLines: 60, startLine: 1, totalLines: 60 } }
          : step === 1
            ? {
                filePath: input.file_path,
                oldString: words(8),
                newString: words(9),
                originalFile: words(200),
                structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 2, lines: ['-' + words(8), '+' + words(9)] }],
                userModified: false,
                replaceAll: false,
              }
            : { stdout: body, stderr: '', interrupted: false, isImage: false };
      yield record({ type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: body }] }, toolUseResult: structured, sourceToolAssistantUUID: parent });
      if (step === 1)
        yield JSON.stringify({
          type: 'file-history-snapshot',
          messageId: uuid(),
          snapshot: { messageId: uuid(), trackedFileBackups: { [`src/m${turn}.ts`]: { backupFileName: `${n}@v2`, version: 2, backupTime: ts() } }, timestamp: ts() },
          isSnapshotUpdate: true,
        });
      if (step === 2)
        yield record({ type: 'progress', data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Bash', command: 'echo ok' }, toolUseID: toolId, parentToolUseID: toolId });
    }
  }
}
