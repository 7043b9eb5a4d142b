/**
 * Replay of paths the CLI cannot record (issue 23): steering that joins a running turn at its next
 * step, and approvals asked and answered (rejected) — recorded through the real Agent, client and
 * SQLite store against the scripted server (test/support/agent-harness.ts), then replayed identically
 * (the replay answers each approval as the log shows it was answered).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { replayReportText } from '../../../electron/cli/commands/replay.js';
import { replaySession } from '../../../electron/replay/replay-session.js';
import { createBuiltinTools } from '../../../electron/tools/builtin-tools.js';
import { createHarness, gateTool, type Harness } from '../../support/agent-harness.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await llm?.close();
  harness = undefined;
  llm = undefined;
});

describe('replay of agent paths', () => {
  it('steering that entered the next step of a running turn replays identically', async () => {
    llm = await startScriptedLlm();
    const gate = gateTool();
    llm.enqueue(toolCallResponse([{ id: 'g1', name: 'gate', arguments: '{}' }]), textResponse('done, and I saw the steer'), textResponse('second turn'));
    harness = await createHarness({ llm, tools: [gate.tool, ...createBuiltinTools()] });
    harness.agent.followup('open the gate');
    await gate.started;
    harness.agent.steer('also: be quick');
    gate.release();
    await harness.agent.whenIdle();
    harness.agent.followup('and again');
    await harness.agent.whenIdle();
    const events = harness.events();
    expect(events.filter((e) => e.type === 'user/message' && e.data.source.kind === 'steer')).toHaveLength(1);
    const report = await replaySession(harness.live.session.header, events, { createTools: () => [gate.tool, ...createBuiltinTools()], platform: 'linux' });
    expect(report.outcome, replayReportText(report)).toBe('identical');
    expect(report.requests).toMatchObject({ logged: 3, identical: 3 });
  });

  it('approvals answered in the log are answered the same way in the replay', async () => {
    llm = await startScriptedLlm();
    llm.enqueue(toolCallResponse([{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'a' }) }]), textResponse('it was refused'));
    harness = await createHarness({ llm, approvalPolicy: 'ask', agent: { approvalAnswerer: async () => 'rejected' } });
    harness.agent.followup('write a.txt');
    await harness.agent.whenIdle();
    const events = harness.events();
    expect(events.some((e) => e.type === 'approval/decided' && e.data.outcome === 'rejected')).toBe(true);
    const report = await replaySession(harness.live.session.header, events, { platform: 'linux' });
    expect(report.outcome, replayReportText(report)).toBe('identical');
    expect(report.tools.divergence).toBeUndefined();
    expect(report.tools.logged).toBe(1);
  });
});
