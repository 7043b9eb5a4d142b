/**
 * Project instructions (docs/architecture.md §8b, issue 15) through the real agent, store and `openai` client
 * against the scripted server: AGENTS.md from the project root down to the workspace and the
 * user-level file reach the first request's system prompt (nearest last); a folder below the
 * workspace contributes its file (CLAUDE.md where it has no AGENTS.md) to the result of the call that
 * touched it; the bytes the server received stay identical across steps and across a resume on a
 * later day; what was loaded is logged with paths and hashes, and every request is rebuildable from
 * the log.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType } from '../../../shared/events.js';
import { ProjectInstructions } from '../../../electron/agent/project-instructions.js';
import { createHarness, type Harness } from '../../support/agent-harness.js';
import { rebuildRequestBodies } from '../../support/request-rebuild.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let harness: Harness | undefined;
let root: string;

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(async () => {
  await harness?.close(false);
  harness = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
type Body = { messages: { role: string; content: string | null }[] };
const systemOf = (n: number) => (llm.requests[n]!.body as Body).messages[0]!;

/** A project root (git) holding the harness folder's workspace `ws`, a user file, and a nested folder. */
function layout(): { dir: string; userFile: string } {
  root = mkdtempSync(join(tmpdir(), 'forkline-instr-'));
  const dir = join(root, 'project');
  mkdirSync(join(dir, '.git'), { recursive: true });
  mkdirSync(join(dir, 'ws', 'sub', 'deeper'), { recursive: true });
  writeFileSync(join(dir, 'AGENTS.md'), 'ROOT RULE: use tabs.\n');
  writeFileSync(join(dir, 'CLAUDE.md'), 'IGNORED: AGENTS.md exists in this folder.\n');
  writeFileSync(join(dir, 'ws', 'AGENTS.md'), 'WORKSPACE RULE: use spaces (overrides the root).\r\n');
  writeFileSync(join(dir, 'ws', 'sub', 'CLAUDE.md'), 'SUB RULE: never touch generated files.\n');
  writeFileSync(join(dir, 'ws', 'sub', 'data.txt'), 'hello\n');
  writeFileSync(join(dir, 'ws', 'other.txt'), 'top\n');
  const userFile = join(root, 'data', 'AGENTS.md');
  mkdirSync(join(root, 'data'));
  writeFileSync(userFile, 'USER RULE: answer in English.\n');
  return { dir, userFile };
}

describe('project instructions', () => {
  it('reach the first request in a stable place, nearest last, and stay byte-stable across steps and a later-day resume', async () => {
    const { dir, userFile } = layout();
    const instructions = () => new ProjectInstructions({ cwd: join(dir, 'ws'), userFile });
    harness = await createHarness({ llm, dir, agent: { instructions: instructions() } });
    const first = llm.requests.length;
    llm.enqueue(
      toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"sub/data.txt"}' }]),
      toolCallResponse([{ id: 'r2', name: 'read_file', arguments: '{"path":"other.txt"}' }]),
      textResponse('done'),
    );
    harness.agent.followup('look around');
    await harness.agent.whenIdle();

    const system = systemOf(first);
    expect(system.role).toBe('system');
    const text = system.content!;
    // Fixed order: user file, then the project root, then the workspace (the nearer one wins).
    const order = ['USER RULE', 'ROOT RULE', 'WORKSPACE RULE'].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).toContain('# Project instructions');
    expect(text).toContain('## ../AGENTS.md');
    expect(text).toContain('## AGENTS.md\nWORKSPACE RULE: use spaces (overrides the root).');
    expect(text).not.toContain('IGNORED');
    expect(text).not.toContain('SUB RULE');
    // The instructions come after everything else in the system prompt.
    expect(text.indexOf('# Project instructions')).toBeGreaterThan(text.indexOf('# Working style'));

    // Steps 2 and 3: the same system bytes; the nested file rides on the result of the call that touched sub/.
    expect(JSON.stringify(systemOf(first + 1))).toBe(JSON.stringify(system));
    expect(JSON.stringify(systemOf(first + 2))).toBe(JSON.stringify(system));
    const step2 = llm.requests[first + 1]!.body as Body;
    const toolMsg = step2.messages.find((m) => m.role === 'tool')!;
    expect(toolMsg.content).toContain('hello');
    expect(toolMsg.content).toContain('[Project instructions from sub/CLAUDE.md: they apply to files under sub/');
    expect(toolMsg.content).toContain('SUB RULE: never touch generated files.');
    const step3 = llm.requests[first + 2]!.body as Body;
    expect(step3.messages.filter((m) => m.role === 'tool' && (m.content ?? '').includes('SUB RULE'))).toHaveLength(1);

    // Logged: paths and hashes, before the request header and before the carrying result.
    const events = harness.events();
    const loaded = eventsOfType(events, 'instructions/loaded');
    expect(loaded).toHaveLength(2);
    expect(loaded[0]!.data.placement).toBe('system');
    expect(loaded[0]!.data.files.map((f) => [f.scope, f.shownPath, f.sha256])).toEqual([
      ['user', userFile, sha('USER RULE: answer in English.\n')],
      ['project', '../AGENTS.md', sha('ROOT RULE: use tabs.\n')],
      ['project', 'AGENTS.md', sha('WORKSPACE RULE: use spaces (overrides the root).\r\n')],
    ]);
    expect(loaded[0]!.seq).toBeLessThan(eventsOfType(events, 'request/header')[0]!.seq);
    expect(loaded[1]!.data).toMatchObject({
      placement: 'tool-result',
      callId: 'r1',
      files: [{ scope: 'nested', shownPath: 'sub/CLAUDE.md', sha256: sha('SUB RULE: never touch generated files.\n') }],
    });
    const r1Result = eventsOfType(events, 'tool/result').find((e) => e.data.message.content[0]!.toolCallId === 'r1')!;
    expect(loaded[1]!.seq).toBe(r1Result.seq - 1);
    expect(rebuildRequestBodies(harness.live.session.header, events, harness.client)).toEqual(llm.requests.slice(first).map((r) => r.rawBody));

    // Resume three days later: same system bytes, same prefix, no new instructions event; the nested
    // file is still in force (its carrying result is still model-visible), so touching sub/ again adds nothing.
    const sessionId = harness.live.session.id;
    const before = llm.requests.length;
    await harness.close(false);
    const later = Date.now() + 3 * 24 * 3600_000;
    harness = await createHarness({ llm, dir, sessionId, agent: { instructions: instructions(), now: () => later } });
    llm.enqueue(toolCallResponse([{ id: 'r3', name: 'read_file', arguments: '{"path":"sub/data.txt"}' }]), textResponse('again'));
    harness.agent.followup('once more');
    await harness.agent.whenIdle();
    expect(JSON.stringify(systemOf(before))).toBe(JSON.stringify(system));
    const resumed = llm.requests[before]!.body as Body;
    expect(JSON.stringify(resumed.messages.slice(0, step3.messages.length))).toBe(JSON.stringify(step3.messages));
    const after = harness.events();
    expect(eventsOfType(after, 'instructions/loaded')).toHaveLength(2);
    expect(eventsOfType(after, 'request/header').map((e) => e.data.reason)).toEqual(['initial', 'resume']);
    const r3 = eventsOfType(after, 'tool/result').find((e) => e.data.message.content[0]!.toolCallId === 'r3')!;
    expect(r3.data.message.content[0]!.content[0]!.text).not.toContain('SUB RULE');
    expect(rebuildRequestBodies(harness.live.session.header, after, harness.client)).toEqual(llm.requests.slice(first).map((r) => r.rawBody));
  });

  it('logs a change when a file changed between lifecycles, and an empty list when none are left', async () => {
    const { dir, userFile } = layout();
    harness = await createHarness({ llm, dir, agent: { instructions: new ProjectInstructions({ cwd: join(dir, 'ws'), userFile }) } });
    llm.enqueue(textResponse('one'));
    harness.agent.followup('hi');
    await harness.agent.whenIdle();
    const sessionId = harness.live.session.id;
    await harness.close(false);

    writeFileSync(join(dir, 'ws', 'AGENTS.md'), 'WORKSPACE RULE v2\n');
    harness = await createHarness({ llm, dir, sessionId, agent: { instructions: new ProjectInstructions({ cwd: join(dir, 'ws'), userFile }) } });
    const n = llm.requests.length;
    llm.enqueue(textResponse('two'));
    harness.agent.followup('again');
    await harness.agent.whenIdle();
    expect(systemOf(n).content).toContain('WORKSPACE RULE v2');
    let loaded = eventsOfType(harness.events(), 'instructions/loaded');
    expect(loaded).toHaveLength(2);
    expect(loaded[1]!.data.files.find((f) => f.shownPath === 'AGENTS.md')!.sha256).toBe(sha('WORKSPACE RULE v2\n'));
    await harness.close(false);

    for (const f of [join(dir, 'AGENTS.md'), join(dir, 'CLAUDE.md'), join(dir, 'ws', 'AGENTS.md'), userFile]) rmSync(f);
    harness = await createHarness({ llm, dir, sessionId, agent: { instructions: new ProjectInstructions({ cwd: join(dir, 'ws'), userFile }) } });
    const m = llm.requests.length;
    llm.enqueue(textResponse('three'));
    harness.agent.followup('and again');
    await harness.agent.whenIdle();
    expect(systemOf(m).content).not.toContain('# Project instructions');
    loaded = eventsOfType(harness.events(), 'instructions/loaded');
    expect(loaded.at(-1)!.data).toEqual({ placement: 'system', files: [] });
  });

  it('ignores an instruction file that is a symlink out of the project, and cuts a huge one at 32 KiB', async () => {
    const { dir, userFile } = layout();
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'TOP SECRET');
    rmSync(join(dir, 'AGENTS.md'));
    rmSync(join(dir, 'CLAUDE.md'));
    const { symlinkSync } = await import('node:fs');
    symlinkSync(secret, join(dir, 'AGENTS.md'));
    writeFileSync(join(dir, 'ws', 'AGENTS.md'), `${'é'.repeat(20_000)}TAIL`);
    const files = new ProjectInstructions({ cwd: join(dir, 'ws'), userFile }).forSystemPrompt();
    expect(files.map((f) => f.shownPath)).toEqual([userFile, 'AGENTS.md']);
    const big = files[1]!;
    expect(big.truncated).toBe(true);
    expect(big.bytes).toBe(40_004);
    expect(Buffer.byteLength(big.text)).toBeLessThanOrEqual(32 * 1024);
    expect(big.text).not.toContain('\uFFFD');
    expect(big.text).not.toContain('TAIL');
  });
});
