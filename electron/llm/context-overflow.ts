/**
 * Context-overflow errors: recognising them on every provider and reading the numbers they state
 * (docs/architecture.md §5 "Overflow"). Pure; the adapter attaches the numbers to the failure
 * (`LlmFailure.overflow`) so the agent decides on fields, never on message text.
 *
 * Error shapes, one row per provider (status, the text it sends, and where the shape was seen):
 *
 * | provider | status | error text (numbers vary) | source |
 * |---|---|---|---|
 * | DeepSeek | 400 `invalid_request_error` | "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (130000 in the messages, 10000 in the completion). Please reduce the length of the messages or completion." | DeepSeek error codes (https://api-docs.deepseek.com/quick_start/error_codes, 400 "invalid format"); text as reported in dirk1983/deepseek#11 |
 * | OpenAI, prompt alone | 400, `code: context_length_exceeded` | "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages." | https://platform.openai.com/docs/guides/error-codes; rahul2002m/ChatPDF#6, webtimemachine/wtm2#579 |
 * | OpenAI, prompt + max_tokens | 400 | "… However, you requested 4696 tokens (3672 in the messages, 1024 in the completion). Please reduce the length of the messages or completion." | h2oai/h2ogpt PR #366 |
 * | OpenAI (newer models) | 400 `context_length_exceeded` | "Your input exceeds the context window of this model. Please adjust your input and try again." | OpenAI error code table (context_length_exceeded) |
 * | OpenRouter | 400 | "This endpoint's maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, 131072 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically." | OpenHands/OpenHands#9937 |
 * | OpenRouter (upstream text passed on) | 400 / 502 | "This model's maximum context length is 8192 tokens, however you requested 8977 tokens (8977 in your prompt; 0 for the completion)." | OpenRouterTeam/openrouter-examples#10, ai-christianson/RA.Aid#41 |
 * | vLLM ≥ 0.6 | 400 `BadRequestError` | "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778)." | vLLM `serving_engine` validation; seen in andrewcho-dev/opsconductor-ng TOKEN_LIMIT_FIX.md |
 * | vLLM, prompt alone | 400 | "This model's maximum context length is 1536 tokens. However, your request has 4176 input tokens. Please reduce the length of the input messages." | vLLM `serving_engine`; whois-api-llc/web-categorization-v2 FIX_1536_TOKEN_LIMIT.md |
 * | vLLM (older) / DeepInfra | 400 | "This model's maximum context length is 16000 tokens. However, you requested 17165 tokens (13069 in the messages, 4096 in the completion)." | ai-christianson/RA.Aid#41 |
 * | llama.cpp `llama-server` | 400, `type: exceed_context_size_error`, fields `n_prompt_tokens`, `n_ctx` | "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it" | llama.cpp tools/server (server-common `format_error_response`); jshawtime/saywhatwant docs/228 |
 * | Ollama | 200 with the prompt truncated to `num_ctx` (no error by default); "the input length exceeds the context length" when truncation is off | — | https://github.com/ollama/ollama/blob/main/docs/api.md (`truncate`), docs/faq.md (context window) |
 * | LM Studio | 400 | "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input" | LM Studio server (lmstudio-ai/lmstudio-bug-tracker reports) |
 * | Gemini (OpenAI-compatible) | 400 `INVALID_ARGUMENT` | "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." | https://ai.google.dev/gemini-api/docs/troubleshooting |
 * | Anthropic-compatible gateways | 400 `invalid_request_error` | "prompt is too long: 210000 tokens > 200000 maximum"; "input length and `max_tokens` exceed context limit: 188000 + 21333 > 200000, decrease input length or `max_tokens` and try again" | https://docs.anthropic.com/en/api/errors |
 * | Mistral | 400 | "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length" | Mistral API (via litellm context-window tests) |
 *
 * Rate limits that mention tokens ("Request too large for gpt-4o … tokens per min (TPM)", HTTP 429)
 * are not overflows: they stay RATE_LIMIT.
 */
import type { ContextOverflowFacts } from '../../shared/chunks.js';

const OVERFLOW_TEXT = new RegExp(
  [
    'maximum context length',
    'context[_ ]length[_ ]exceeded',
    'exceeds? the context window',
    'context window (?:is )?(?:exceeded|full)',
    'prompt is too long',
    'input is too long',
    'too many (?:input )?tokens',
    'reduce the length of (?:the |either )',
    "exceeds? the (?:model's )?(?:maximum )?context",
    'exceeds? the available context size',
    'exceed_context_size',
    'exceed context limit',
    'input length exceeds the context length',
    'context length of \\d[\\d,]* tokens, which is not enough',
    'context the overflows',
    'exceeds the maximum number of tokens allowed',
    'too large for model with \\d[\\d,]* maximum context length',
    "'max_tokens' or 'max_completion_tokens' is too large",
  ].join('|'),
  'i',
);

/** True when a provider error text (message and body) says the request does not fit the context window. */
export function isContextOverflowText(text: string): boolean {
  return OVERFLOW_TEXT.test(text);
}

const WINDOW_PATTERNS: readonly RegExp[] = [
  /maximum context length is (\d[\d,]*)/i,
  /available context size \((\d[\d,]*) tokens?\)/i,
  /"n_ctx"\s*:\s*(\d+)/,
  /context length of (\d[\d,]*) tokens/i,
  /maximum number of tokens allowed \((\d[\d,]*)\)/i,
  /tokens? > (\d[\d,]*) maximum/i,
  /exceed context limit: \d[\d,]* \+ \d[\d,]* > (\d[\d,]*)/i,
  /too large for model with (\d[\d,]*) maximum context length/i,
  /context window of (\d[\d,]*)/i,
];

const PROMPT_PATTERNS: readonly RegExp[] = [
  /\((\d[\d,]*) in the messages/i,
  /\((\d[\d,]*) of text input/i,
  /\((\d[\d,]*) in your prompt/i,
  /your request has (\d[\d,]*) input tokens/i,
  /your messages resulted in (\d[\d,]*) tokens/i,
  /"n_prompt_tokens"\s*:\s*(\d+)/,
  /request \((\d[\d,]*) tokens?\) exceeds/i,
  /prompt contains (\d[\d,]*) tokens/i,
  /input token count \((\d[\d,]*)\)/i,
  /prompt is too long: (\d[\d,]*) tokens/i,
  /exceed context limit: (\d[\d,]*) \+/i,
];

const OUTPUT_PATTERNS: readonly RegExp[] = [
  /(\d[\d,]*) in the completion/i,
  /(\d[\d,]*) in the output/i,
  /(\d[\d,]*) for the completion/i,
  /'max_tokens' or 'max_completion_tokens' is too large: (\d[\d,]*)/i,
  /exceed context limit: \d[\d,]* \+ (\d[\d,]*) >/i,
];

function firstNumber(text: string, patterns: readonly RegExp[]): number | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined) {
      const value = Number(match[1].replace(/,/g, ''));
      if (Number.isSafeInteger(value) && value >= 0) return value;
    }
  }
  return undefined;
}

/**
 * The numbers an overflow error states (see the table above), from its message plus its JSON body
 * (llama.cpp puts `n_ctx` and `n_prompt_tokens` there). Fields the text does not state are absent;
 * `undefined` when it states none.
 */
export function parseContextOverflow(text: string): ContextOverflowFacts | undefined {
  const out: { contextWindow?: number; promptTokens?: number; requestedOutputTokens?: number } = {};
  const window = firstNumber(text, WINDOW_PATTERNS);
  const prompt = firstNumber(text, PROMPT_PATTERNS);
  const output = firstNumber(text, OUTPUT_PATTERNS);
  if (window !== undefined && window > 0) out.contextWindow = window;
  if (prompt !== undefined) out.promptTokens = prompt;
  if (output !== undefined) out.requestedOutputTokens = output;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Whether the output size alone caused an overflow: the prompt fits the window with room to spare
 * (`margin` tokens, default 256) but prompt + requested output does not. Uses the provider's
 * prompt count when it stated one, else `estimatedPromptTokens`. False when the window is unknown.
 */
export function isOutputOnlyOverflow(facts: ContextOverflowFacts | undefined, estimatedPromptTokens: number, margin = 256): boolean {
  const window = facts?.contextWindow;
  if (window === undefined) return false;
  const prompt = facts?.promptTokens ?? estimatedPromptTokens;
  return prompt + margin < window;
}

/**
 * The max output to retry with after an output-only overflow: what is left of the window after the
 * prompt, less a safety margin (2 % of the window, at least 64 tokens, for tokenizer differences),
 * never below 1. Undefined when the window is unknown.
 */
export function loweredMaxOutput(facts: ContextOverflowFacts | undefined, estimatedPromptTokens: number): number | undefined {
  const window = facts?.contextWindow;
  if (window === undefined) return undefined;
  const prompt = facts?.promptTokens ?? estimatedPromptTokens;
  const margin = Math.max(64, Math.ceil(window * 0.02));
  return Math.max(1, window - prompt - margin);
}
