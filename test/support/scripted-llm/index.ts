/**
 * Scripted OpenAI-compatible LLM server for tests and manual runs (see README.md).
 */
export { startScriptedLlm, type RecordedRequest, type RequestValidator, type ScriptHandler, type ScriptedLlm, type ScriptedLlmOptions } from './server.js';
export type { Cut, Frame, FramesStep, HttpErrorStep, ReplayStep, ReplyStep, ScriptFile, ScriptStep, ScriptedToolCall, ScriptedUsage, StreamOptions } from './script.js';
export { PROVIDER_STREAMS_DIR, emptyResponse, fixture, frame, framesResponse, httpError, reasoningResponse, replayFile, reply, textResponse, toolCallResponse, usage, wireChunk } from './builders.js';
export { loadScriptFile } from './script-file.js';
export { conversationPosition, stepsByConversation } from './conversation-position.js';
export { unknownFieldViolations, unknownFieldsValidator } from './strict-fields.js';
export { strictThinkingValidator, strictThinkingViolations, thinkingStep, type StrictThinkingOptions } from './strict-thinking.js';
