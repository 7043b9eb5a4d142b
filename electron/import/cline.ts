/**
 * Importer for Cline and Roo Code task folders (`…/globalStorage/<extension>/tasks/<taskId>/`), read
 * as folder entries (folder-entry.ts) in the order `task_metadata.json`, `ui_messages.json`,
 * `api_conversation_history.json`.
 *
 * Learned from cline/cline @21cb8d25: `apps/vscode/src/core/storage/disk.ts` (`GlobalFileNames`:
 * the file names), `apps/vscode/src/shared/messages/content.ts` (`ClineStorageMessage`: the
 * history is the Anthropic `MessageParam[]` sent to the model, plus `ts`, `modelInfo {modelId,
 * providerId}` and `metrics {tokens {prompt, completion, cached}, cost}` on newer messages) and
 * `apps/vscode/src/shared/ExtensionMessage.ts` (`ClineMessage`: the UI rows `{ts, type: say|ask,
 * say|ask, text}`; `say:"api_req_started"` text is JSON `{tokensIn, tokensOut, cacheReads,
 * cacheWrites, cost}`). Roo Code (a Cline fork) writes the same two files.
 *
 * An `api_conversation_history.json` dropped on its own (a JSON array, detected by its `<task>`
 * prompt) is read the same way, message by message, without the UI rows (no title, no UI usage).
 *
 * Mapping: `api_conversation_history.json` is what the model saw, so it is the conversation.
 * - assistant message = one step: `text` → text, `thinking` → reasoning, `tool_use` → tool calls
 *   (`input` as JSON arguments); `redacted_thinking` cannot be replayed (noted).
 * - user message: `tool_result` blocks answer the open calls (in their step); its text blocks follow
 *   as a user message. Older Cline called tools in XML inside the assistant text and sent results
 *   back as text `[tool_name …] Result:`; such a message continues the turn; any other text message
 *   starts a new turn (the task, feedback, a resumed task). Images cannot be replayed (noted).
 * - usage: the message's `metrics.tokens` (`prompt` includes `cached`); else, when the UI rows hold
 *   exactly one `api_req_started` with token counts per assistant message, those in order.
 * - `ui_messages.json` and `task_metadata.json` are kept whole as raw rows (they are display and
 *   bookkeeping; the model never saw them). Times are the messages' `ts` (epoch ms), else the UI's.
 */
import type { TokenUsage } from '../../shared/chunks.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { AssistantBlock, TextBlock } from '../../shared/messages.js';
import { ConversationBuilder } from './conversation-builder.js';
import { isObject, num, str, withoutKeys } from './json-read.js';
import type { ImportedLogWriter } from './log-writer.js';
import type { HeaderFacts, RecordImporter } from './record-importer.js';

/** An XML-era tool result sent back as user text: `[read_file for 'a.ts'] Result:`. */
const XML_TOOL_RESULT = /^\[[^\]\n]+\] Result:/;

export class ClineImporter implements RecordImporter {
  readonly format = 'cline' as const;
  readonly tolerateDamagedTail = false;
  readonly warnings: string[] = [];
  private readonly b: ConversationBuilder;
  private readonly fact: { id?: string; createdAt?: number; title?: string } = {};
  /** Token counts of the UI's `api_req_started` rows, in order. */
  private readonly uiUsage: TokenUsage[] = [];
  private uiTime: number | undefined;
  private model = 'unknown';
  private provider = 'unknown';
  private answered = false;
  private historySeen = false;

  constructor(writer: ImportedLogWriter) {
    this.b = new ConversationBuilder(writer, 'cline', 'cline');
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
    if (typeof value['role'] === 'string' && value['type'] === undefined) {
      // An api_conversation_history.json opened on its own: its messages arrive one by one.
      this.historySeen = true;
      const time = num(value['ts']) ?? this.b.time(undefined);
      if (this.fact.createdAt === undefined && time !== 0) this.fact.createdAt = time;
      if (value['role'] === 'assistant') return this.assistant(value, time, undefined);
      if (value['role'] === 'user') return this.user(value, time);
      return this.b.foreign(time, `message/${value['role']}`, value);
    }
    const folder = str(value['folder']);
    if (folder !== undefined) this.fact.id ??= folder;
    const path = str(value['path']) ?? '';
    const file = path.split('/').pop() ?? path;
    const content = value['value'] ?? null;
    if (file === 'ui_messages.json' && Array.isArray(content)) return this.uiMessages(content, path);
    if (file === 'task_metadata.json' && isObject(content)) {
      const usage = Array.isArray(content['model_usage']) ? content['model_usage'].filter(isObject) : [];
      const last = usage.at(-1);
      if (last) this.setModel(str(last['model_id']), str(last['model_provider_id']));
      return this.b.foreign(undefined, path, content);
    }
    if (file === 'api_conversation_history.json' && Array.isArray(content)) return this.history(content);
    this.b.foreign(undefined, path, content);
  }

  private setModel(model: string | undefined, provider: string | undefined): void {
    if (model) this.model = model;
    if (provider) this.provider = provider;
  }

  private uiMessages(rows: readonly JsonValue[], path: string): void {
    for (const row of rows) {
      if (!isObject(row)) continue;
      const ts = num(row['ts']);
      if (ts !== undefined) this.uiTime ??= ts;
      if (row['say'] === 'task' && this.fact.title === undefined) {
        const first = (str(row['text']) ?? '').trim().split('\n')[0] ?? '';
        if (first !== '') this.fact.title = first.length > 80 ? `${first.slice(0, 79)}…` : first;
      }
      if (isObject(row['modelInfo'])) this.setModel(str(row['modelInfo']['modelId']), str(row['modelInfo']['providerId']));
      if (row['say'] !== 'api_req_started' || typeof row['text'] !== 'string') continue;
      let info: JsonValue;
      try {
        info = JSON.parse(row['text']) as JsonValue;
      } catch {
        continue;
      }
      if (!isObject(info)) continue;
      const input = num(info['tokensIn']);
      const output = num(info['tokensOut']);
      if (input === undefined || output === undefined) continue;
      const read = num(info['cacheReads']);
      const write = num(info['cacheWrites']);
      this.uiUsage.push({ inputTokens: input, outputTokens: output, ...(read !== undefined ? { cacheReadTokens: read } : {}), ...(write !== undefined ? { cacheWriteTokens: write } : {}) });
    }
    if (this.uiTime !== undefined) this.fact.createdAt ??= this.uiTime;
    this.b.foreign(this.uiTime, path, [...rows]);
  }

  private history(messages: readonly JsonValue[]): void {
    if (this.historySeen) this.warnings.push('a second api_conversation_history.json was read; its messages were added after the first');
    this.historySeen = true;
    const assistants = messages.filter((m) => isObject(m) && m['role'] === 'assistant').length;
    const uiUsage = this.uiUsage.length === assistants ? this.uiUsage : undefined;
    if (!uiUsage && this.uiUsage.length > 0)
      this.warnings.push(`the UI rows hold ${this.uiUsage.length} request(s) with token counts for ${assistants} model response(s): their tokens are not matched to responses`);
    let k = 0;
    for (const m of messages) {
      if (!isObject(m)) continue;
      const time = num(m['ts']) ?? this.uiTime;
      if (m['role'] === 'assistant') this.assistant(m, time, uiUsage?.[k++]);
      else if (m['role'] === 'user') this.user(m, time);
      else this.b.foreign(time, `message/${String(m['role'])}`, m);
    }
  }

  private user(m: JsonObject, time: number | undefined): void {
    const content = m['content'];
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content } as JsonObject] : Array.isArray(content) ? content.filter(isObject) : [];
    const texts: TextBlock[] = [];
    let results = 0;
    for (const block of blocks) {
      if (block['type'] === 'tool_result') {
        results++;
        const id = str(block['tool_use_id']) ?? '';
        const { text, images } = resultText(block['content']);
        if (images > 0) this.b.noteModelView('images in tool results cannot be replayed; only their text is');
        if (!this.b.toolResult(time, id, [{ type: 'text', text }], block['is_error'] === true, undefined, { format: 'cline', ...withoutKeys(block, 'content', 'tool_use_id') })) {
          this.b.foreign(time, 'tool_result', block, { modelVisible: true, note: `a result for ${id}, which is not an open call` });
          this.b.noteModelView('a tool result that answers no open call is kept as a raw row');
        }
      } else if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push({ type: 'text', text: block['text'] });
      else this.b.noteModelView(`user content of type ${String(block['type'])} (images, documents) cannot be replayed`);
    }
    if (texts.length === 0) return;
    const continues = results > 0 || (this.b.inTurn && XML_TOOL_RESULT.test(texts[0]!.text));
    if (!continues) {
      if (this.b.inTurn) this.b.endTurn(time, this.answered ? { kind: 'completed' } : { kind: 'interrupted' });
      this.b.startTurn(time);
    }
    this.answered = false;
    const facts = withoutKeys(m, 'content', 'role');
    this.b.userMessage(time, texts, continues ? { kind: 'inject', foreign: { format: 'cline', ...facts } } : { kind: 'user', foreign: { format: 'cline', ...facts } });
  }

  private assistant(m: JsonObject, time: number | undefined, uiUsage: TokenUsage | undefined): void {
    if (isObject(m['modelInfo'])) this.setModel(str(m['modelInfo']['modelId']), str(m['modelInfo']['providerId']));
    const content = m['content'];
    const blocks: AssistantBlock[] = [];
    for (const block of typeof content === 'string' ? [{ type: 'text', text: content } as JsonObject] : Array.isArray(content) ? content.filter(isObject) : []) {
      const type = block['type'];
      if (type === 'text' && typeof block['text'] === 'string') blocks.push({ type: 'text', text: block['text'] });
      else if (type === 'thinking' && typeof block['thinking'] === 'string') blocks.push({ type: 'reasoning', text: block['thinking'] });
      else if (type === 'tool_use')
        blocks.push({ type: 'tool-call', id: str(block['id']) ?? `cline-call-${this.b.writer.nextSeq}`, name: str(block['name']) ?? '(unknown)', arguments: JSON.stringify(block['input'] ?? {}) });
      else this.b.noteModelView(`assistant content of type ${String(type)} cannot be replayed`);
    }
    if (blocks.length === 0) {
      // An empty response (a request cut off before any content): nothing to replay.
      this.b.foreign(time, 'message/assistant-empty', m);
      return;
    }
    if (!this.b.inTurn) this.b.startTurn(time);
    this.b.assistantMessage(time, blocks, { provider: this.provider, model: this.model }, readMetrics(m['metrics']) ?? uiUsage, { format: 'cline', ...withoutKeys(m, 'content', 'role') });
    const calls = blocks.filter((b) => b.type === 'tool-call');
    for (const call of calls) this.b.toolCall(time, call.id);
    this.answered = calls.length === 0;
  }

  finish(): void {
    if (!this.historySeen) this.warnings.push('the task folder has no api_conversation_history.json: there is no conversation to continue');
    // A log that simply ends inside a turn ended with its source, not in a crash (as in every importer).
    if (this.b.inTurn) this.b.endTurn(this.b.time(undefined), this.answered ? { kind: 'completed' } : { kind: 'source-ended' });
    const raw = this.b.rawRowsWarning();
    if (raw !== undefined) this.warnings.push(raw);
  }
}

/** A `tool_result` block's content (a string or text/image blocks) as text, and how many images it held. */
function resultText(content: JsonValue | undefined): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: '', images: 0 };
  let images = 0;
  const texts: string[] = [];
  for (const c of content) {
    if (isObject(c) && typeof c['text'] === 'string') texts.push(c['text']);
    else images++;
  }
  return { text: texts.join('\n'), images };
}

/** `metrics.tokens {prompt, completion, cached}` → our disjoint counts (`prompt` includes `cached`). */
function readMetrics(value: JsonValue | undefined): TokenUsage | undefined {
  const tokens = isObject(value) && isObject(value['tokens']) ? value['tokens'] : undefined;
  if (!tokens) return undefined;
  const prompt = num(tokens['prompt']);
  const completion = num(tokens['completion']);
  if (prompt === undefined || completion === undefined) return undefined;
  const cached = num(tokens['cached']) ?? 0;
  return { inputTokens: Math.max(0, prompt - cached), outputTokens: completion, cacheReadTokens: cached };
}
