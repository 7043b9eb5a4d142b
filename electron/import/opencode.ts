/**
 * Importer for opencode sessions kept in its JSON storage folder (`~/.local/share/opencode/storage/`:
 * `session/<projectID>/<sessionID>.json`, `message/<sessionID>/<messageID>.json`,
 * `part/<messageID>/<partID>.json`), read as folder entries (folder-entry.ts): the session, then
 * each message in id order (opencode's ids grow with time) followed by its parts in id order.
 *
 * Learned from opencode's `packages/opencode/src/session/message-v2.ts` (read in the public fork
 * 1rgs/opencode @27da9bad; the upstream sst/opencode snapshot was not available here): message
 * `Info` is `User {id, sessionID, role:"user", time.created, agent, model {providerID, modelID},
 * system?}` or `Assistant {…, role:"assistant", parentID, modelID, providerID, tokens {input,
 * output, reasoning, cache {read, write}}, cost, error?, finish?}`; parts are `text {text,
 * synthetic?, ignored?}`, `reasoning {text}`, `tool {callID, tool, state}` with `state.status`
 * `pending | running | completed {input, output} | error {input, error}`, `step-start`,
 * `step-finish {tokens, cost, reason}`, `file`, `compaction`, `subtask`, `patch`, `snapshot`,
 * `agent`, `retry`. Session `Info` is `{id, projectID, directory, parentID?, title, version,
 * time {created, updated}}`.
 *
 * Mapping: a user message starts a turn (its text parts, except `ignored` ones, are the prompt;
 * files and sub-tasks cannot be replayed and are noted). An assistant message is split into steps
 * at its `step-start` parts; each step's text, reasoning and tool parts form one assistant message
 * and its tool results follow right after it (`completed` → output, `error` → error text; a call
 * still `pending`/`running` is outcome unknown). Usage is the step's `step-finish.tokens` (else,
 * for a one-step message, the message's `tokens`). opencode's `getUsage` (session/index.ts) stores
 * `input` without cache reads and writes, and the AI SDK's `outputTokens` as `output` — which
 * already counts reasoning (`reasoning` is its subset). Every other part is a raw row.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { AssistantBlock, TextBlock } from '../../shared/messages.js';
import { ConversationBuilder } from './conversation-builder.js';
import { isObject, num, str, withoutKeys } from './json-read.js';
import type { ImportedLogWriter } from './log-writer.js';
import type { HeaderFacts, RecordImporter } from './record-importer.js';

/** Parts that hold nothing the model saw, kept as raw rows. */
const LOG_ONLY_PARTS: ReadonlySet<string> = new Set(['snapshot', 'patch', 'retry', 'agent']);

export class OpencodeImporter implements RecordImporter {
  readonly format = 'opencode' as const;
  readonly tolerateDamagedTail = false;
  readonly warnings: string[] = [];
  private readonly b: ConversationBuilder;
  private readonly fact: { id?: string; createdAt?: number; title?: string; cwd?: string; formatVersion?: string; parentSession?: string } = {};
  /** The message being read and its parts (written when the next message starts, or at the end). */
  private message: JsonObject | undefined;
  private parts: JsonObject[] = [];
  private answered = false;
  private sessions = 0;

  constructor(writer: ImportedLogWriter) {
    this.b = new ConversationBuilder(writer, 'opencode', 'opencode');
  }

  get modelViewNotes(): readonly string[] {
    return this.b.modelViewNotes;
  }
  closesTurn(): boolean {
    return false;
  }
  facts(): HeaderFacts {
    return { ...this.fact };
  }

  record(value: JsonValue): void {
    if (!isObject(value)) return this.b.foreign(undefined, 'record', value);
    const path = str(value['path']) ?? '';
    const kind = path.split('/')[0];
    const content = isObject(value['value']) ? value['value'] : undefined;
    if (!content) return this.b.foreign(undefined, path, value['value'] ?? null);
    if (kind === 'session') return this.session(content, path);
    if (kind === 'message') {
      this.flush();
      this.message = content;
      return;
    }
    if (kind === 'part') {
      if (this.message && content['messageID'] === this.message['id']) this.parts.push(content);
      else this.b.foreign(undefined, path, content, { note: 'a part of no message read before it' });
      return;
    }
    this.b.foreign(undefined, path, content);
  }

  private session(s: JsonObject, path: string): void {
    this.sessions++;
    if (this.sessions > 1) this.warnings.push(`more than one session file was read (${path}); its messages follow the first session's`);
    this.fact.id ??= str(s['id']);
    this.fact.title ??= str(s['title']);
    this.fact.cwd ??= str(s['directory']);
    this.fact.formatVersion ??= str(s['version']);
    const created = isObject(s['time']) ? num(s['time']['created']) : undefined;
    if (created !== undefined) this.fact.createdAt ??= created;
    this.b.foreign(created, 'session', s);
  }

  /** Writes the message read so far with its parts. */
  private flush(): void {
    const m = this.message;
    if (!m) return;
    const parts = this.parts;
    this.message = undefined;
    this.parts = [];
    const time = isObject(m['time']) ? num(m['time']['created']) : undefined;
    if (m['role'] === 'user') return this.user(m, parts, time);
    if (m['role'] === 'assistant') return this.assistant(m, parts, time);
    this.b.foreign(time, `message/${String(m['role'])}`, { message: m, parts });
  }

  private user(m: JsonObject, parts: readonly JsonObject[], time: number | undefined): void {
    const texts: TextBlock[] = [];
    for (const p of parts) {
      if (p['type'] === 'text' && typeof p['text'] === 'string' && p['ignored'] !== true) texts.push({ type: 'text', text: p['text'] });
      else if (p['type'] === 'text') this.b.foreign(partTime(p) ?? time, 'part/text-ignored', p);
      else {
        if (p['type'] === 'file' || p['type'] === 'subtask' || p['type'] === 'compaction') this.b.noteModelView(`user ${String(p['type'])} parts cannot be replayed; only text parts are`);
        this.b.foreign(partTime(p) ?? time, `part/${String(p['type'])}`, p, { modelVisible: p['type'] === 'file' || p['type'] === 'subtask' || p['type'] === 'compaction' });
      }
    }
    if (this.b.inTurn) this.b.endTurn(time, this.answered ? { kind: 'completed' } : { kind: 'interrupted' });
    this.b.startTurn(time);
    this.answered = false;
    this.b.userMessage(time, texts.length > 0 ? texts : [{ type: 'text', text: '' }], { kind: 'user', foreign: { format: 'opencode', ...withoutKeys(m, 'role') } });
  }

  private assistant(m: JsonObject, parts: readonly JsonObject[], time: number | undefined): void {
    // Steps: a new one at each step-start that follows content.
    const steps: JsonObject[][] = [[]];
    for (const p of parts) {
      if (p['type'] === 'step-start' && steps.at(-1)!.some((q) => q['type'] !== 'step-start')) steps.push([]);
      steps.at(-1)!.push(p);
    }
    const provider = str(m['providerID']) ?? 'unknown';
    const model = str(m['modelID']) ?? 'unknown';
    const facts = { format: 'opencode', ...withoutKeys(m, 'role') };
    let wrote = false;
    for (const step of steps) {
      const blocks: AssistantBlock[] = [];
      const tools: JsonObject[] = [];
      let usage: TokenUsage | undefined;
      for (const p of step) {
        const type = str(p['type']);
        if (type === 'text' && typeof p['text'] === 'string') {
          if (p['text'] !== '') blocks.push({ type: 'text', text: p['text'] });
        } else if (type === 'reasoning' && typeof p['text'] === 'string') {
          if (p['text'] !== '') blocks.push({ type: 'reasoning', text: p['text'] });
        } else if (type === 'tool' && typeof p['callID'] === 'string') {
          const state = isObject(p['state']) ? p['state'] : {};
          blocks.push({ type: 'tool-call', id: p['callID'], name: str(p['tool']) ?? '(unknown)', arguments: JSON.stringify(state['input'] ?? {}) });
          tools.push(p);
        } else if (type === 'step-finish') {
          usage = readTokens(p['tokens']);
          this.b.foreign(partTime(p) ?? time, 'part/step-finish', p);
        } else if (type === 'step-start') {
          this.b.foreign(partTime(p) ?? time, 'part/step-start', p);
        } else {
          if (!LOG_ONLY_PARTS.has(type ?? '')) this.b.noteModelView(`assistant ${String(type)} parts cannot be replayed`);
          this.b.foreign(partTime(p) ?? time, `part/${String(type)}`, p, { modelVisible: !LOG_ONLY_PARTS.has(type ?? '') });
        }
      }
      if (blocks.length === 0) continue;
      if (steps.length === 1) usage ??= readTokens(m['tokens']);
      if (!this.b.inTurn) this.b.startTurn(time);
      this.b.assistantMessage(time, blocks, { provider, model }, usage, wrote ? { format: 'opencode', messageID: str(m['id']) ?? null } : facts);
      wrote = true;
      for (const p of tools) this.toolPart(p, time);
      this.answered = tools.length === 0;
    }
    if (!wrote) this.b.foreign(time, 'message/assistant-empty', m);
  }

  private toolPart(p: JsonObject, time: number | undefined): void {
    const id = p['callID'] as string;
    const state = isObject(p['state']) ? p['state'] : {};
    const started = isObject(state['time']) ? num(state['time']['start']) : undefined;
    const ended = isObject(state['time']) ? num(state['time']['end']) : undefined;
    const facts = { format: 'opencode', part: withoutKeys(p, 'state'), state: withoutKeys(state, 'input', 'output', 'error') };
    this.b.toolCall(started ?? time, id, facts);
    const status = state['status'];
    if (status === 'completed') this.b.toolResult(ended ?? started ?? time, id, [{ type: 'text', text: str(state['output']) ?? '' }], false, undefined, { format: 'opencode' });
    else if (status === 'error') this.b.toolResult(ended ?? started ?? time, id, [{ type: 'text', text: str(state['error']) ?? 'the tool failed' }], true, undefined, { format: 'opencode' });
  }

  finish(): void {
    this.flush();
    // A log that simply ends inside a turn ended with its source, not in a crash (as in every importer).
    if (this.b.inTurn) this.b.endTurn(this.b.time(undefined), this.answered ? { kind: 'completed' } : { kind: 'source-ended' });
    const raw = this.b.rawRowsWarning();
    if (raw !== undefined) this.warnings.push(raw);
  }
}

function partTime(p: JsonObject): number | undefined {
  return isObject(p['time']) ? (num(p['time']['start']) ?? num(p['time']['created'])) : undefined;
}

/** opencode `tokens {input, output, reasoning, cache {read, write}}` → our counts (see the module comment). */
function readTokens(value: JsonValue | undefined): TokenUsage | undefined {
  if (!isObject(value)) return undefined;
  const input = num(value['input']);
  const output = num(value['output']);
  if (input === undefined || output === undefined) return undefined;
  const reasoning = num(value['reasoning']) ?? 0;
  const cache = isObject(value['cache']) ? value['cache'] : {};
  const read = num(cache['read']);
  const write = num(cache['write']);
  return {
    inputTokens: input,
    outputTokens: output,
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined && write > 0 ? { cacheWriteTokens: write } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}
