/**
 * The host side of "Replay on this build" and the request playground (issue 23, items 4 and 5),
 * through a real runtime (SQLite store, live agents, the `openai` client against the scripted
 * server) and a HostConnection with its pushes: replaySession on a recorded session and on a copy
 * whose logged system prompt differs; a playground run streamed as pushes, sent as edited, stored
 * as a scratch record under the data folder and never as an event; refused edits naming the field;
 * a torn record line skipped and the next record kept; forkWithPrompt forking before the prompt's turn, and refusing the
 * first prompt.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostPush } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import { playgroundEditOf, type PlaygroundRun } from '../../../shared/playground.js';
import { createRuntime, type Runtime } from '../../../electron/host/runtime.js';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { PlaygroundRunStore } from '../../../electron/host/services/request-playground.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm, type ScriptStep } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dir: string;
let runtime: Runtime;
let connection: HostConnection;
let main: string;
const pushes: HostPush[] = [];
const answers: ScriptStep[] = [];

async function turn(sessionId: string, text: string, steps: ScriptStep[]): Promise<void> {
  answers.push(...steps);
  connection.followup({ sessionId, text });
  await runtime.host.agentFor(sessionId)!.whenIdle();
  expect(answers).toHaveLength(0);
}

beforeAll(async () => {
  llm = await startScriptedLlm();
  llm.setHandler((request) => {
    const next = answers.shift();
    if (!next) throw new Error(`nothing scripted for request #${request.number}`);
    return next;
  });
  dir = mkdtempSync(join(tmpdir(), 'forkline-replay-host-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
  runtime = createRuntime({
    dataDir: join(dir, 'data'),
    env: {},
    overrides: { active: { provider: 'custom', baseUrl: llm.baseUrl, model: 'scripted-model' }, approvalPolicy: 'allow' },
    writeWindowMs: 5,
  });
  connection = runtime.host.connect((push) => pushes.push(push));
  main = connection.createSession({ cwd: workspace, title: 'host replay' }).id;
  await turn(main, 'Read a.txt.', [toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"a.txt"}' }]), textResponse('It says alpha.')]);
  await turn(main, 'Say it louder.', [textResponse('ALPHA.')]);
}, 60_000);

afterAll(async () => {
  connection?.dispose();
  await runtime?.close();
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('replaySession', () => {
  it('a recorded session replays identically; a copy with a one-character system prompt change diverges at step 1.1, at the system message', async () => {
    const same = await connection.replaySession({ sessionId: main });
    expect(same).toMatchObject({ outcome: 'identical', requests: { level: 'compared', logged: 3, replayed: 3, identical: 3 } });

    const { record, events } = runtime.repository.load(main);
    let first = true;
    const copy = events.map((e): SessionEvent => {
      if (e.type !== 'request/header' || !first) return e;
      first = false;
      return { ...e, data: { ...e.data, header: { ...e.data.header, system: `${e.data.header.system ?? ''}.` } } };
    });
    runtime.store.createSession({ ...record.header, id: 'host-diverged' }, copy);
    const report = await connection.replaySession({ sessionId: 'host-diverged' });
    expect(report.outcome).toBe('diverged');
    expect(report.requests.divergence).toMatchObject({ index: 0, label: 'step 1.1', turn: 1, step: 1, kind: 'body', path: 'messages[0].content' });
    expect(report.requests.divergence!.causes[0]).toContain('system prompt');
    // The stored log is only read.
    expect(runtime.repository.load('host-diverged').events).toHaveLength(copy.length);
  });

  it('an unknown session is refused before any work', async () => {
    await expect(connection.replaySession({ sessionId: 'no-such-session' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});

describe('request playground', () => {
  it('an edited request is sent as edited, streams as pushes, and is kept as a scratch record, never in the log', async () => {
    const inspection = connection.inspectRequest({ sessionId: main, index: 2 });
    const edit = playgroundEditOf({
      ...(inspection.header?.system !== undefined ? { system: inspection.header.system } : {}),
      messages: inspection.messages,
      tools: inspection.header?.tools ?? [],
      config: inspection.header!.config,
    });
    const before = runtime.host.agentFor(main)!.session.length;
    answers.push(textResponse('Quietly: alpha, said slowly in many small pieces.', { split: 2, frameDelayMs: 15 }));
    const started = connection.startPlaygroundRun({
      sessionId: main,
      index: 2,
      route: { provider: 'custom', baseUrl: llm.baseUrl, model: 'other-model' },
      edit: { ...edit, system: 'Be quiet.', messages: edit.messages.replace('Say it louder.', 'Say it quieter.'), params: '{"temperature":0.5,"maxTokens":64}' },
    });
    expect(started).toMatchObject({ status: 'running', turn: 2, step: 1, requestIndex: 2, label: 'step 2.1' });
    const runPushes = (): PlaygroundRun[] => pushes.flatMap((p) => (p.kind === 'playground/run' && p.run.id === started.id ? [p.run] : []));
    await expect.poll(() => runPushes().at(-1)?.status, { timeout: 30_000 }).toBe('done');
    const seen = runPushes();
    // Partial text arrived before the end.
    expect(seen.some((r) => r.status === 'running' && r.text.length > 0 && r.text.length < 'Quietly: alpha, said slowly in many small pieces.'.length)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ text: 'Quietly: alpha, said slowly in many small pieces.', finish: 'stop', route: { model: 'other-model' } });
    const sent = JSON.parse(llm.requests.at(-1)!.rawBody) as {
      model: string;
      temperature: number;
      max_tokens?: number;
      max_completion_tokens?: number;
      messages: { role: string; content: unknown }[];
    };
    expect(sent.model).toBe('other-model');
    expect(sent.temperature).toBe(0.5);
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: 'Be quiet.' });
    expect(JSON.stringify(sent.messages)).toContain('Say it quieter.');
    expect(JSON.stringify(sent.messages)).not.toContain('Say it louder.');

    expect(runtime.host.agentFor(main)!.session.length).toBe(before);
    const file = join(dir, 'data', 'playground', `${encodeURIComponent(main)}.jsonl`);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    // A torn line (a crash while appending) is skipped; the stored run stays listed.
    appendFileSync(file, '{"id":"torn');
    expect(connection.listPlaygroundRuns({ sessionId: main }).map((r) => r.id)).toEqual([started.id]);
    expect(connection.listPlaygroundRuns({ sessionId: main, index: 0 })).toEqual([]);
    // The next record starts on a line of its own: nothing after the torn line is lost.
    const store = new PlaygroundRunStore(join(dir, 'data', 'playground'));
    store.append({ ...seen.at(-1)!, id: 'after-torn' });
    expect(store.list(main).map((r) => r.id)).toEqual([started.id, 'after-torn']);
  }, 60_000);

  it('a bad edit is refused naming every failing field, before anything is sent', () => {
    const count = llm.requests.length;
    const attempt = (edit: { messages: string; tools: string; params: string }): unknown => {
      try {
        connection.startPlaygroundRun({ sessionId: main, index: 0, route: { provider: 'custom', baseUrl: llm.baseUrl, model: 'm' }, edit });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const all = attempt({ messages: '[', tools: '{}', params: '{"top_p":1}' });
    expect(all).toMatchObject({ code: 'INVALID_PLAYGROUND_EDIT' });
    expect((all as Error).message).toContain('messages: not valid JSON');
    expect((all as Error).message).toContain('tools: must be a JSON array');
    expect((all as Error).message).toContain('params: unknown parameter "top_p"');
    const role = attempt({ messages: '[{"role":"system","id":"x","source":{"kind":"user"},"content":[]}]', tools: '[]', params: '{}' });
    expect((role as Error).message).toBe('messages: messages[0].role: must be "user" or "assistant" (the system prompt has its own field)');
    expect(llm.requests.length).toBe(count);
  });
});

describe('forkWithPrompt', () => {
  it('forks before the prompt’s turn and sends the edited prompt there', async () => {
    const prompt = runtime.repository.load(main).events.find((e): e is SessionEvent<'user/message'> => e.type === 'user/message' && e.data.content.some((b) => b.text === 'Say it louder.'))!;
    answers.push(textResponse('alpha.'));
    const child = await connection.forkWithPrompt({ sessionId: main, messageId: prompt.data.id, text: 'Say it quieter.' });
    await runtime.host.agentFor(child.id)!.whenIdle();
    const events = runtime.repository.load(child.id).events;
    const prompts = events.flatMap((e) => (e.type === 'user/message' && e.data.source.kind === 'user' ? [e.data.content.map((b) => b.text).join('')] : []));
    expect(prompts).toEqual(['Read a.txt.', 'Say it quieter.']);
    expect(runtime.repository.get(child.id)!.header.parentSession).toBe(main);
  }, 60_000);

  it('the first prompt has no turn before it to fork at; an unknown id is refused', async () => {
    const first = runtime.repository.load(main).events.find((e): e is SessionEvent<'user/message'> => e.type === 'user/message')!;
    await expect(connection.forkWithPrompt({ sessionId: main, messageId: first.data.id, text: 'Read b.txt.' })).rejects.toMatchObject({ code: 'NO_TURN_BEFORE' });
    await expect(connection.forkWithPrompt({ sessionId: main, messageId: 'nope', text: 'x' })).rejects.toMatchObject({ code: 'PROMPT_NOT_FOUND' });
  });
});
