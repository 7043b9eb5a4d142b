/**
 * What to tell a person when the conversation does not fit a model's context window, or when a
 * server cut a prompt silently (docs/architecture.md §5). Plain text for turn-end failures and `llm/warning`
 * hints; the server-specific knobs come from their docs:
 * - Ollama: `num_ctx` (Modelfile `PARAMETER num_ctx`, or the request option) and the server-wide
 *   `OLLAMA_CONTEXT_LENGTH` (https://github.com/ollama/ollama/blob/main/docs/faq.md, "How can I
 *   specify the context window size?"); default 4096 tokens.
 * - llama.cpp: `llama-server --ctx-size N` (tools/server/README.md).
 * - vLLM: `vllm serve --max-model-len N` (engine arguments).
 * - LM Studio: the model's "Context Length" load setting.
 */
import { looksLikeOllama } from '../llm/model-catalog.js';
import type { LlmCallConfig } from '../../shared/events.js';

/**
 * What the advice reads of the agent's model config (AgentModelConfig satisfies it; a local shape
 * so this file does not import agent.ts, which imports it).
 */
export type AdviceModelConfig = Pick<LlmCallConfig, 'provider' | 'model'> & { readonly contextWindow?: number; readonly baseUrl?: string };

/** The advice appended to a CONTEXT_WINDOW_EXCEEDED failure that recovery could not fix. */
export function contextAdvice(config: AdviceModelConfig, compacted: boolean): string {
  const window = config.contextWindow !== undefined ? ` of ${config.contextWindow} tokens` : '';
  const tried = compacted ? 'even after compacting the history' : 'and there was nothing left to compact';
  return (
    `the request does not fit ${config.model}'s context window${window} ${tried}. ` +
    'What to do: fork this session at an earlier turn (forkline fork ID --at SEQ) or start a new one; ' +
    'or use a model with a larger window; or, if the server can take more than it does now, raise its window ' +
    '(Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx; llama.cpp: --ctx-size; vLLM: --max-model-len) and tell Forkline with --context-window N; ' +
    'a lower --max-output N also leaves more room for the prompt.'
  );
}

/** How to stop a server from truncating prompts, for a PROMPT_TRUNCATED warning. */
export function truncationHint(config: AdviceModelConfig): string {
  if (looksLikeOllama(config.provider, config.baseUrl ?? '')) {
    return 'Ollama keeps only num_ctx tokens of a prompt (4096 unless set). Raise it: start the server with OLLAMA_CONTEXT_LENGTH=32768 ollama serve, or add PARAMETER num_ctx 32768 to a Modelfile; then pass --context-window 32768 (or set it in Settings).';
  }
  return "Raise the server's context size (llama.cpp: --ctx-size; vLLM: --max-model-len; LM Studio: the model's Context Length), then pass --context-window N (or set it in Settings).";
}
