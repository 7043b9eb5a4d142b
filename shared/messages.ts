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
export interface ReasoningBlock {
  readonly type: 'reasoning';
  readonly text: string;
}
/** A model's request to run a tool. `arguments` is the raw JSON string exactly as streamed. */
export interface ToolCallBlock {
  readonly type: 'tool-call';
  readonly id: CallId;
  readonly name: string;
  readonly arguments: string;
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
