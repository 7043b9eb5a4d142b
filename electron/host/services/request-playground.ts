/**
 * The request playground (issue 23, item 5) for the HostApi's `startPlaygroundRun`,
 * `listPlaygroundRuns` and `cancelPlaygroundRun`: an edited copy of a logged request sent to a
 * configured provider and model through the same model client sessions use, its response
 * streamed to the asking client, and the finished run kept as a scratch record linked to its step.
 *
 * Scratch records live in `<data folder>/playground/<session id>.jsonl`, one finished run per line
 * (appended whole, so a crash mid-run loses only that run); they are never events of the session's
 * log, and deleting the file loses nothing of the session. A line that does not parse is skipped.
 */
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ForklineError } from '../../../shared/errors.js';
import type { RequestHeader } from '../../../shared/events.js';
import { checkPlaygroundEdit, type PlaygroundEdit, type PlaygroundRoute, type PlaygroundRun } from '../../../shared/playground.js';
import { BlockAssembler } from '../../llm/assembler.js';
import type { ModelClient } from '../../llm/model-client.js';
import { inspectSessionRequest } from '../request-inspector.js';
import type { SessionReader } from './session-reader.js';

/** Progress pushes at most this often while a run streams (ms); the last one always goes. */
const PROGRESS_EVERY_MS = 50;

/** The scratch records of playground runs, one JSONL file per session under `dir`. */
export class PlaygroundRunStore {
  constructor(private readonly dir: string) {}

  private fileOf(sessionId: string): string {
    return join(this.dir, `${encodeURIComponent(sessionId)}.jsonl`);
  }

  /** The stored runs of a session, oldest first; of one request when `index` is given. */
  list(sessionId: string, index?: number): PlaygroundRun[] {
    const file = this.fileOf(sessionId);
    if (!existsSync(file)) return [];
    const runs: PlaygroundRun[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        const run = JSON.parse(line) as PlaygroundRun;
        if (run.sessionId === sessionId && (index === undefined || run.requestIndex === index)) runs.push(run);
      } catch {
        // A torn last line (a crash while appending): that run is lost, the others stay.
      }
    }
    return runs;
  }

  /** Appends one finished run (on a line of its own, also after a torn last line). */
  append(run: PlaygroundRun): void {
    mkdirSync(this.dir, { recursive: true });
    const file = this.fileOf(run.sessionId);
    appendFileSync(file, `${endsTorn(file) ? '\n' : ''}${JSON.stringify(run)}\n`);
  }
}

/** The file's last byte is not a newline (a crash cut its last line). */
function endsTorn(file: string): boolean {
  if (!existsSync(file)) return false;
  const size = statSync(file).size;
  if (size === 0) return false;
  const fd = openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** What a playground run uses of the host. */
export interface PlaygroundDeps {
  readonly store: PlaygroundRunStore;
  readonly reader: SessionReader;
  /** The model client for a route (the host's, with the key settings allow for that endpoint). */
  readonly modelClient: (route: PlaygroundRoute, reasoningEffort: string | undefined) => ModelClient;
  readonly newId: () => string;
  readonly now: () => number;
}

export interface PlaygroundParamsIn {
  readonly sessionId: string;
  /** The logged request the edit started from. */
  readonly index: number;
  readonly route: PlaygroundRoute;
  readonly edit: PlaygroundEdit;
}

/** A started run: its first snapshot, its end, and a way to stop it. */
export interface StartedPlaygroundRun {
  readonly run: PlaygroundRun;
  readonly done: Promise<PlaygroundRun>;
  abort(): void;
}

/**
 * Checks the edit, then sends it; `onProgress` gets the whole run as it grows and once at the end
 * (after the record is stored).
 * @throws ForklineError INVALID_PLAYGROUND_EDIT (every failing field, `messages: …; params: …`),
 *   SESSION_NOT_FOUND, REQUEST_NOT_FOUND — all before anything is sent.
 */
export function startPlaygroundRun(deps: PlaygroundDeps, params: PlaygroundParamsIn, onProgress: (run: PlaygroundRun) => void): StartedPlaygroundRun {
  const checked = checkPlaygroundEdit(params.edit);
  if (!checked.ok) throw new ForklineError('INVALID_PLAYGROUND_EDIT', checked.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  const { header: sessionHeader, events } = deps.reader.withHeader(params.sessionId);
  const logged = inspectSessionRequest(sessionHeader, events, { index: params.index });
  const edit = checked.value;
  const header: RequestHeader = {
    config: { provider: params.route.provider, model: params.route.model, ...edit.params },
    ...(edit.system !== undefined ? { system: edit.system } : {}),
    tools: edit.tools,
    // What the logged endpoint taught about its history shape holds for that provider only.
    ...(logged.header?.dialect && logged.header.config.provider === params.route.provider ? { dialect: logged.header.dialect } : {}),
  };
  const started = deps.now();
  let run: PlaygroundRun = {
    id: deps.newId(),
    sessionId: params.sessionId,
    requestIndex: logged.request.index,
    turn: logged.turn,
    step: logged.step,
    label: logged.request.label,
    createdAt: started,
    route: params.route,
    edit: params.edit,
    status: 'running',
    text: '',
    toolCalls: [],
  };
  const controller = new AbortController();
  const client = deps.modelClient(params.route, edit.params.reasoningEffort);
  const done = (async (): Promise<PlaygroundRun> => {
    const assembler = new BlockAssembler();
    let text = '';
    let reasoning = '';
    let sentAt = 0;
    let trailing: ReturnType<typeof setTimeout> | undefined;
    const push = (): void => {
      trailing = undefined;
      sentAt = deps.now();
      run = { ...run, text, ...(reasoning !== '' ? { reasoning } : {}) };
      onProgress(run);
    };
    try {
      for await (const chunk of client.stream({ header, messages: edit.messages }, controller.signal)) {
        assembler.push(chunk);
        if (chunk.type === 'text-delta') text += chunk.text;
        else if (chunk.type === 'reasoning-delta') reasoning += chunk.text;
        else continue;
        const wait = PROGRESS_EVERY_MS - (deps.now() - sentAt);
        if (wait <= 0) push();
        // Throttled: the text so far still goes out once the interval is over, so a stream that
        // stalls after it shows all it sent, not the part before the last push.
        else trailing ??= setTimeout(push, wait);
      }
    } catch (error) {
      // The client contract says a stream never throws; a bug that does still ends the run, stored.
      assembler.push({ type: 'finish', reason: { kind: 'error', failure: { code: 'UNKNOWN', message: error instanceof Error ? error.message : String(error) } } });
    }
    if (trailing !== undefined) clearTimeout(trailing);
    const result = assembler.result();
    const finalText = result.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const finalReasoning = result.blocks.flatMap((b) => (b.type === 'reasoning' ? [b.text] : [])).join('');
    const failure = result.finish.kind === 'error' || result.finish.kind === 'aborted' ? result.finish.failure : undefined;
    run = {
      ...run,
      status: result.finish.kind === 'aborted' ? 'aborted' : failure ? 'failed' : 'done',
      text: finalText !== '' ? finalText : text,
      ...(finalReasoning !== '' || reasoning !== '' ? { reasoning: finalReasoning !== '' ? finalReasoning : reasoning } : {}),
      toolCalls: result.blocks.flatMap((b) => (b.type === 'tool-call' ? [{ name: b.name, arguments: b.arguments }] : [])),
      finish: result.finish.kind,
      ...(failure ? { failure: { code: failure.code, message: failure.message } } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
      durationMs: deps.now() - started,
    };
    deps.store.append(run);
    onProgress(run);
    return run;
  })();
  return { run, done, abort: () => controller.abort() };
}
