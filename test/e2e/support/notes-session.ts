/**
 * The recorded session the replay and playground browser tests start from, and the scripted
 * answers they feed the model: `answers` is served in order to every model request (a request
 * nothing was scripted for fails its turn, naming the request), and `turn` runs one follow-up to
 * its end with every answer used. The session ("Notes summary") has two turns: a read_file of
 * notes.txt with its answer, then a one-word summary.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { HostConnection } from '../../../electron/host/host-connection.js';
import { textResponse, toolCallResponse, type ScriptStep } from '../../support/scripted-llm/index.js';
import type { E2eApp } from './e2e-harness.js';

export interface ScriptedNotes {
  /** Answers still to serve, in order; push before the turn or the playground run that asks. */
  readonly answers: ScriptStep[];
  /** A host connection of the test's own (dispose it after the file). */
  readonly connection: HostConnection;
  /** The recorded session's id. */
  readonly main: string;
  /** Sends `text` to `sessionId` with `steps` scripted, and waits until its agent is idle and all were used. */
  turn(sessionId: string, text: string, steps: ScriptStep[]): Promise<void>;
}

/** Scripts the app's model server from a queue and records the "Notes summary" session through the host. */
export async function recordNotesSession(app: E2eApp): Promise<ScriptedNotes> {
  const answers: ScriptStep[] = [];
  writeFileSync(join(app.workspace, 'notes.txt'), 'hello from the notes file\n');
  app.llm.setHandler((request) => {
    const next = answers.shift();
    if (!next) throw new Error(`nothing scripted for request #${request.number}`);
    return next;
  });
  const connection = app.runtime.host.connect(() => undefined);
  const turn = async (sessionId: string, text: string, steps: ScriptStep[]): Promise<void> => {
    answers.push(...steps);
    connection.followup({ sessionId, text });
    await app.runtime.host.agentFor(sessionId)!.whenIdle();
    expect(answers).toHaveLength(0);
  };
  const main = connection.createSession({ cwd: app.workspace, title: 'Notes summary' }).id;
  await turn(main, 'Read notes.txt.', [toolCallResponse([{ id: 'read-1', name: 'read_file', arguments: '{"path":"notes.txt"}' }]), textResponse('It says hello from the notes file.')]);
  await turn(main, 'Summarize it in one word.', [textResponse('Hello.')]);
  return { answers, connection, main, turn };
}
