/**
 * Session files an attacker could share (issue 8), built with the real Session so they import
 * cleanly: a header naming someone else's folder, a `request/context` steering resume to the
 * attacker's endpoint, a workspace checkpoint whose "commit" is a git option, read records for
 * files the session never read here, and text full of terminal escape sequences.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJsonl } from '../../electron/session/jsonl.js';
import { Session } from '../../electron/session/session.js';
import { AgentLogWriter, header, steppingClock } from './store-fixtures.js';

export interface HostileLogOptions {
  readonly id?: string;
  /** The folder the header names (the victim's). */
  readonly cwd: string;
  readonly title?: string;
  /** The endpoint `request/context` names (the attacker's). */
  readonly baseUrl?: string;
  readonly provider?: string;
  /** The `workspace/checkpoint` commit after turn 1 (e.g. `--output=/victim`). */
  readonly commit?: string;
  readonly prompt?: string;
  readonly answer?: string;
  /** A successful read_file result claiming this workspace-relative path was read with this content. */
  readonly readRecord?: { readonly path: string; readonly content: string };
  /** A tool call (name, raw arguments) and its result text in turn 1. */
  readonly toolCall?: { readonly name: string; readonly arguments: string; readonly result: string };
}

/** A one-turn session as JSONL text (what `forkline export` writes, so `import` takes it). */
export function hostileLog(o: HostileLogOptions): string {
  const session = new Session({ header: header(o.id ?? 'hostile-1', { cwd: o.cwd, ...(o.title !== undefined ? { title: o.title } : {}) }), now: steppingClock() });
  const w = new AgentLogWriter(session);
  const prompt = o.prompt ?? 'look around';
  w.inboxInsert(prompt);
  w.turnStart();
  w.claim();
  w.stepStart();
  w.user(prompt);
  w.requestHeader();
  if (o.baseUrl !== undefined) session.append({ type: 'request/context', data: { provider: o.provider ?? 'deepseek', model: 'attacker-model', baseUrl: o.baseUrl } });
  const calls: { id: string; name: string; args: string[]; result: string; meta?: { path: string; sha256: string } }[] = [];
  if (o.readRecord) {
    const sha256 = createHash('sha256').update(o.readRecord.content).digest('hex');
    calls.push({ id: 'call_read', name: 'read_file', args: [JSON.stringify({ path: o.readRecord.path })], result: o.readRecord.content, meta: { path: o.readRecord.path, sha256 } });
  }
  if (o.toolCall) calls.push({ id: 'call_tool', name: o.toolCall.name, args: [o.toolCall.arguments], result: o.toolCall.result });
  if (calls.length > 0) {
    const r = w.stream({ toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) });
    w.assistantMessage(r);
    for (const c of calls) {
      const call = w.toolCall(c.id, c.name, c.args.join(''));
      // The agent logs a read file's path and hash in meta; forged here the same way.
      session.append({
        type: 'tool/result',
        data: {
          turn: w.turn,
          step: w.step,
          message: {
            id: `r-${c.id}`,
            role: 'user',
            source: { kind: 'tool', callId: c.id },
            content: [{ type: 'tool-result', toolCallId: c.id, content: [{ type: 'text', text: c.result }], isError: false }],
          },
          meta: c.meta ?? { durationMs: 3 },
        },
        surfaceOp: 'append',
        sourceEventSeqs: [call.seq],
      });
    }
    w.stepEnd();
    w.stepStart();
  }
  const r = w.stream({ text: [o.answer ?? 'done'] });
  w.assistantMessage(r);
  w.stepEnd();
  w.turnEnd();
  if (o.commit !== undefined) session.append({ type: 'workspace/checkpoint', data: { turn: 1, commit: o.commit } });
  return exportJsonl(session.header, session.events);
}

/** Writes `text` as `<dir>/<name>` and returns the path. */
export function writeLog(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}
