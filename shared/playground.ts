/**
 * The request playground (issue 23, item 5): a logged model request edited in the request
 * inspector (messages, system prompt, tools, parameters) and sent to a configured provider and
 * model. A playground run is a scratch record linked to its step — stored beside the log, never an
 * event in it (electron/host/services/request-playground.ts keeps them).
 *
 * The edit travels as the editor's texts (JSON for messages, tools and parameters); this file
 * checks them, so the editor shows the same errors inline that the host would refuse with.
 *
 * Pure: no Node, no DOM.
 */
import type { TokenUsage } from './chunks.js';
import type { JsonValue } from './json.js';
import type { Message, ToolSchema } from './messages.js';

/** What the person edited, as the editor holds it. */
export interface PlaygroundEdit {
  /** The system prompt (absent or empty: none). */
  readonly system?: string;
  /** JSON: the messages after the system prompt, in the log's message shape (`role`, `content` blocks, `source`). */
  readonly messages: string;
  /** JSON: the tools offered, `[{ name, description, parameters }]`. */
  readonly tools: string;
  /** JSON: the call parameters, `{ temperature?, maxTokens?, reasoningEffort? }`. */
  readonly params: string;
}

/** The call parameters the playground can set. */
export interface PlaygroundParams {
  /** 0–2. */
  readonly temperature?: number;
  /** Max output tokens, 1–1,000,000. */
  readonly maxTokens?: number;
  /** The provider's effort name (`low`, `high`, `off`, …); the client refuses one the provider does not have. */
  readonly reasoningEffort?: string;
}

/** One field of the edit that does not check, with where and why (`messages[2].role: must be "user" or "assistant"`). */
export interface PlaygroundFieldError {
  readonly field: 'system' | 'messages' | 'tools' | 'params';
  readonly message: string;
}

/** The edit, checked. */
export interface CheckedPlaygroundEdit {
  readonly system?: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  readonly params: PlaygroundParams;
}

/** Where a playground run is sent. */
export interface PlaygroundRoute {
  readonly provider: string;
  readonly baseUrl: string;
  readonly model: string;
}

/** A playground run: what was sent where, and what came back (so far, while it runs). */
export interface PlaygroundRun {
  readonly id: string;
  readonly sessionId: string;
  /** The logged request it started from (its index among the session's requests) and that request's step. */
  readonly requestIndex: number;
  readonly turn: number;
  readonly step: number;
  /** The request's label in the inspector (`step 2.1`). */
  readonly label: string;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly route: PlaygroundRoute;
  readonly edit: PlaygroundEdit;
  /** `running` only while the host streams it (never stored so). */
  readonly status: 'running' | 'done' | 'failed' | 'aborted';
  readonly text: string;
  readonly reasoning?: string;
  readonly toolCalls: readonly { readonly name: string; readonly arguments: string }[];
  /** The finish kind (`stop`, `tool-calls`, `max-tokens`, `error`, …). */
  readonly finish?: string;
  readonly failure?: { readonly code: string; readonly message: string };
  readonly usage?: TokenUsage;
  /** Wall time from send to finish, ms. */
  readonly durationMs?: number;
}

const PARAM_KEYS = ['temperature', 'maxTokens', 'reasoningEffort'] as const;

type Check<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

function parseJson(text: string): Check<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkBlock(block: unknown, at: string, role: string): string | undefined {
  if (!isObject(block)) return `${at}: must be an object`;
  const type = block['type'];
  if (typeof type !== 'string') return `${at}.type: must be a string`;
  if (type === 'text' || type === 'reasoning') return typeof block['text'] === 'string' ? undefined : `${at}.text: must be a string`;
  if (type === 'tool-call') {
    if (role !== 'assistant') return `${at}: a tool call belongs in an assistant message`;
    if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string' || typeof block['arguments'] !== 'string') return `${at}: a tool call needs string id, name and arguments`;
    return undefined;
  }
  if (type === 'tool-result')
    return role === 'user' && typeof block['toolCallId'] === 'string' && Array.isArray(block['content'])
      ? undefined
      : `${at}: a tool result belongs in a user message and needs a string toolCallId and a content array`;
  return `${at}.type: must be "text", "reasoning", "tool-call" or "tool-result" (got ${JSON.stringify(type)})`;
}

function checkMessages(value: unknown): Check<readonly Message[]> {
  if (!Array.isArray(value)) return { ok: false, message: 'must be a JSON array of messages' };
  if (value.length === 0) return { ok: false, message: 'needs at least one message' };
  for (let i = 0; i < value.length; i++) {
    const m: unknown = value[i];
    const at = `messages[${i}]`;
    if (!isObject(m)) return { ok: false, message: `${at}: must be an object` };
    const role = m['role'];
    if (role !== 'user' && role !== 'assistant') return { ok: false, message: `${at}.role: must be "user" or "assistant" (the system prompt has its own field)` };
    if (typeof m['id'] !== 'string') return { ok: false, message: `${at}.id: must be a string` };
    if (!isObject(m['source']) || typeof m['source']['kind'] !== 'string') return { ok: false, message: `${at}.source: must be an object with a string kind` };
    const content = m['content'];
    if (!Array.isArray(content)) return { ok: false, message: `${at}.content: must be an array of blocks` };
    for (let b = 0; b < content.length; b++) {
      const problem = checkBlock(content[b], `${at}.content[${b}]`, role);
      if (problem) return { ok: false, message: problem };
    }
  }
  return { ok: true, value: value as Message[] };
}

function checkTools(value: unknown): Check<readonly ToolSchema[]> {
  if (!Array.isArray(value)) return { ok: false, message: 'must be a JSON array (`[]` for no tools)' };
  const names = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const t: unknown = value[i];
    const at = `tools[${i}]`;
    if (!isObject(t)) return { ok: false, message: `${at}: must be an object` };
    if (typeof t['name'] !== 'string' || t['name'] === '') return { ok: false, message: `${at}.name: must be a non-empty string` };
    if (names.has(t['name'])) return { ok: false, message: `${at}.name: ${JSON.stringify(t['name'])} is offered twice` };
    names.add(t['name']);
    if (typeof t['description'] !== 'string') return { ok: false, message: `${at}.description: must be a string` };
    if (!isObject(t['parameters'])) return { ok: false, message: `${at}.parameters: must be a JSON Schema object` };
  }
  return { ok: true, value: value as ToolSchema[] };
}

function checkParams(value: unknown): Check<PlaygroundParams> {
  if (!isObject(value)) return { ok: false, message: 'must be a JSON object (`{}` for the provider defaults)' };
  for (const key of Object.keys(value)) {
    if (!(PARAM_KEYS as readonly string[]).includes(key)) return { ok: false, message: `unknown parameter ${JSON.stringify(key)} (the playground sets ${PARAM_KEYS.join(', ')})` };
  }
  const { temperature, maxTokens, reasoningEffort } = value;
  if (temperature !== undefined && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))) return { ok: false, message: 'temperature: must be a number from 0 to 2' };
  if (maxTokens !== undefined && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 1_000_000))
    return { ok: false, message: 'maxTokens: must be a whole number from 1 to 1,000,000' };
  if (reasoningEffort !== undefined && (typeof reasoningEffort !== 'string' || reasoningEffort === '')) return { ok: false, message: 'reasoningEffort: must be a non-empty string' };
  return {
    ok: true,
    value: { ...(temperature !== undefined ? { temperature } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}), ...(reasoningEffort !== undefined ? { reasoningEffort } : {}) },
  };
}

/**
 * Checks an edit field by field; every field that fails is reported (the editor shows each under
 * its own box).
 */
export function checkPlaygroundEdit(edit: PlaygroundEdit): { readonly ok: true; readonly value: CheckedPlaygroundEdit } | { readonly ok: false; readonly errors: readonly PlaygroundFieldError[] } {
  const errors: PlaygroundFieldError[] = [];
  const field = <T>(name: PlaygroundFieldError['field'], text: string, check: (v: unknown) => Check<T>): T | undefined => {
    const parsed = parseJson(text);
    const checked = parsed.ok ? check(parsed.value) : parsed;
    if (!checked.ok) {
      errors.push({ field: name, message: checked.message });
      return undefined;
    }
    return checked.value;
  };
  const messages = field('messages', edit.messages, checkMessages);
  const tools = field('tools', edit.tools, checkTools);
  const params = field('params', edit.params, checkParams);
  if (errors.length > 0 || !messages || !tools || !params) return { ok: false, errors };
  const system = edit.system !== undefined && edit.system !== '' ? edit.system : undefined;
  return { ok: true, value: { ...(system !== undefined ? { system } : {}), messages, tools, params } };
}

/** The editor's starting texts for a logged request (pretty JSON, two-space indent). */
export function playgroundEditOf(request: {
  readonly system?: string;
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolSchema[];
  readonly config?: { readonly temperature?: number; readonly maxTokens?: number; readonly reasoningEffort?: string };
}): PlaygroundEdit {
  const c = request.config;
  const params: Record<string, JsonValue> = {};
  if (c?.temperature !== undefined) params['temperature'] = c.temperature;
  if (c?.maxTokens !== undefined) params['maxTokens'] = c.maxTokens;
  if (c?.reasoningEffort !== undefined) params['reasoningEffort'] = c.reasoningEffort;
  return {
    ...(request.system !== undefined ? { system: request.system } : {}),
    messages: JSON.stringify(request.messages, null, 2),
    tools: JSON.stringify(Array.isArray(request.tools) ? request.tools : [], null, 2),
    params: JSON.stringify(params, null, 2),
  };
}

/**
 * The person-typed prompt the edit changed: the first `source.kind: "user"` message whose text
 * differs from the logged message with the same id (what "Fork with this prompt" forks with).
 * Absent when no typed prompt changed.
 */
export function editedPrompt(original: readonly Message[], edited: readonly Message[]): { readonly messageId: string; readonly text: string } | undefined {
  const before = new Map(original.map((m) => [m.id, m]));
  for (const m of edited) {
    if (m.role !== 'user' || m.source.kind !== 'user') continue;
    const was = before.get(m.id);
    if (!was) continue;
    const text = textOf(m);
    if (text !== textOf(was) && text.trim() !== '') return { messageId: m.id, text };
  }
  return undefined;
}

function textOf(m: Message): string {
  let out = '';
  for (const block of m.content) if (block.type === 'text') out += block.text;
  return out;
}
