/**
 * Provider-neutral conversation messages: what `deriveMessages()` folds the surface into and what
 * the provider adapter serialises. Shapes follow the reference runtime (DeepSeek Harness,
 * `packages/llm/llm/src/types.ts`) so its session logs import unchanged.
 */
import type { JsonValue } from './json.js';

/** Branded ids: plain strings at runtime, distinct at compile time. */
export type SessionId = string & { readonly __brand?: 'SessionId' };
export type MessageId = string & { readonly __brand?: 'MessageId' };
export type CallId = string & { readonly __brand?: 'CallId' };

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}
/**
 * The wire field reasoning text arrived in: DeepSeek, vLLM (older) and llama.cpp stream
 * `reasoning_content`; OpenRouter, Ollama, Groq and vLLM (newer) stream `reasoning`.
 */
export type ReasoningWireField = 'reasoning_content' | 'reasoning';

export interface ReasoningBlock {
  readonly type: 'reasoning';
  readonly text: string;
  /**
   * Where the text came from on the wire (absent in logs written before it was recorded, and for
   * imported logs). The request serializer sends reasoning back in this same field.
   */
  readonly field?: ReasoningWireField;
  /**
   * OpenRouter `reasoning_details` exactly as streamed (fragments merged by their `index`): the
   * structured reasoning (text, summaries, encrypted data, signatures) that must be sent back with
   * the assistant message for the model to continue its reasoning after tool calls
   * (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks).
   */
  readonly details?: readonly JsonValue[];
}
/** A model's request to run a tool. `arguments` is the raw JSON string exactly as streamed. */
export interface ToolCallBlock {
  readonly type: 'tool-call';
  readonly id: CallId;
  readonly name: string;
  readonly arguments: string;
  /**
   * Provider extras the server attached to this call (keys of the wire tool call other than
   * `index`, `id`, `type`, `function`), kept as they came and returned on this call in later
   * requests — e.g. Gemini's `extra_content.google.thought_signature`
   * (https://ai.google.dev/gemini-api/docs/thought-signatures, OpenAI-compatibility section).
   */
  readonly extras?: { readonly [key: string]: JsonValue };
}
export interface ToolResultBlock {
  readonly type: 'tool-result';
  readonly toolCallId: CallId;
  readonly content: readonly TextBlock[];
  readonly isError: boolean;
}
export type AssistantBlock = TextBlock | ReasoningBlock | ToolCallBlock;
export type ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock;

/** Where a user-role message came from. `user` = typed by a person; others are machine-made. */
export type UserMessageSource =
  | { readonly kind: 'user'; readonly [extra: string]: JsonValue }
  | { readonly kind: 'steer'; readonly [extra: string]: JsonValue }
  | { readonly kind: 'inject'; readonly [extra: string]: JsonValue }
  | { readonly kind: 'plugin'; readonly plugin: string; readonly [extra: string]: JsonValue }
  | { readonly kind: 'compaction'; readonly compactionId: string; readonly [extra: string]: JsonValue };

export interface UserMessage {
  readonly id: MessageId;
  readonly role: 'user';
  readonly content: readonly TextBlock[];
  readonly source: UserMessageSource;
}

export interface AssistantMessage {
  readonly id: MessageId;
  readonly role: 'assistant';
  readonly content: readonly AssistantBlock[];
  readonly source: { readonly kind: 'model'; readonly provider: string; readonly model: string };
}

/** A tool's answer: a user-role message with exactly one tool-result block. */
export interface ToolResultMessage {
  readonly id: MessageId;
  readonly role: 'user';
  readonly source: { readonly kind: 'tool'; readonly callId: CallId };
  readonly content: readonly [ToolResultBlock];
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** True for a tool-result message (both tool results and user prompts use role `user`). */
export function isToolResultMessage(message: Message): message is ToolResultMessage {
  return message.role === 'user' && message.source.kind === 'tool';
}

/**
 * The source of a message the request playground added with the `system` role (issue 23): a
 * user-role message that the request serializer sends as `role: "system"` where it stands in the
 * list. Only playground edits hold one; a session's log never does.
 */
export const SYSTEM_ROLE_SOURCE = { kind: 'inject', wireRole: 'system' } as const satisfies UserMessageSource;

/** True for a message sent as `role: "system"` in the middle of the messages (see {@link SYSTEM_ROLE_SOURCE}). */
export function isSystemRoleMessage(message: Message): boolean {
  return message.role === 'user' && message.source.kind === 'inject' && message.source['wireRole'] === 'system';
}

/** Concatenated text of the text blocks of a message (reasoning and tool calls excluded). */
export function messageText(message: { readonly content: readonly ContentBlock[] }): string {
  let out = '';
  for (const block of message.content) if (block.type === 'text') out += block.text;
  return out;
}

/** A tool as the model sees it (function-calling schema). `parameters` is a JSON Schema object. */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly parameters: { readonly [key: string]: JsonValue };
}
