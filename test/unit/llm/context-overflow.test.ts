/**
 * Every row of the overflow table in electron/llm/context-overflow.ts: recognised as
 * CONTEXT_WINDOW_EXCEEDED by status + text, with the numbers it states; and the decisions built on
 * them (output-only overflow, the lowered max output).
 */
import { describe, expect, it } from 'vitest';
import { isContextOverflowText, isOutputOnlyOverflow, loweredMaxOutput, parseContextOverflow } from '../../../electron/llm/context-overflow.js';
import { codeForHttpStatus, messageFromErrorBody } from '../../../electron/llm/failure.js';

const ROWS: { provider: string; status: number; text: string; facts: ReturnType<typeof parseContextOverflow> }[] = [
  {
    provider: 'DeepSeek',
    status: 400,
    text: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (130000 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
    facts: { contextWindow: 131072, promptTokens: 130000, requestedOutputTokens: 10000 },
  },
  {
    provider: 'OpenAI, prompt alone',
    status: 400,
    text: "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
    facts: { contextWindow: 128000, promptTokens: 204308 },
  },
  {
    provider: 'OpenAI, newer wording',
    status: 400,
    text: 'Your input exceeds the context window of this model. Please adjust your input and try again. {"code":"context_length_exceeded"}',
    facts: undefined,
  },
  {
    provider: 'OpenRouter',
    status: 400,
    text: 'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, 131072 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    facts: { contextWindow: 131072, promptTokens: 7884, requestedOutputTokens: 131072 },
  },
  {
    provider: 'OpenRouter, upstream text',
    status: 502,
    text: "This model's maximum context length is 8192 tokens, however you requested 8977 tokens (8977 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
    facts: { contextWindow: 8192, promptTokens: 8977, requestedOutputTokens: 0 },
  },
  {
    provider: 'vLLM, max_tokens too large',
    status: 400,
    text: "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None",
    facts: { contextWindow: 4096, promptTokens: 2778, requestedOutputTokens: 8000 },
  },
  {
    provider: 'vLLM, prompt alone',
    status: 400,
    text: "This model's maximum context length is 1536 tokens. However, your request has 4176 input tokens. Please reduce the length of the input messages.",
    facts: { contextWindow: 1536, promptTokens: 4176 },
  },
  {
    provider: 'llama.cpp',
    status: 400,
    text: 'request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it {"code":400,"type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}',
    facts: { contextWindow: 4096, promptTokens: 4476 },
  },
  {
    provider: 'LM Studio',
    status: 400,
    text: 'Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
    facts: { contextWindow: 4096 },
  },
  {
    provider: 'Gemini',
    status: 400,
    text: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    facts: { contextWindow: 1048576, promptTokens: 1200000 },
  },
  {
    provider: 'Anthropic-compatible, prompt',
    status: 400,
    text: 'prompt is too long: 210000 tokens > 200000 maximum',
    facts: { contextWindow: 200000, promptTokens: 210000 },
  },
  {
    provider: 'Anthropic-compatible, prompt + max_tokens',
    status: 400,
    text: 'input length and `max_tokens` exceed context limit: 188000 + 21333 > 200000, decrease input length or `max_tokens` and try again',
    facts: { contextWindow: 200000, promptTokens: 188000, requestedOutputTokens: 21333 },
  },
  {
    provider: 'Mistral',
    status: 400,
    text: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
    facts: { contextWindow: 32768, promptTokens: 40000 },
  },
  {
    provider: 'Ollama with truncation off',
    status: 400,
    text: 'the input length exceeds the context length',
    facts: undefined,
  },
];

describe('context-overflow error shapes', () => {
  for (const row of ROWS) {
    it(`${row.provider}: recognised, numbers read`, () => {
      expect(isContextOverflowText(row.text)).toBe(true);
      expect(codeForHttpStatus(row.status, row.text)).toBe('CONTEXT_WINDOW_EXCEEDED');
      expect(parseContextOverflow(row.text)).toEqual(row.facts);
    });
  }

  it('token-per-minute rate limits and other 400s are not overflows', () => {
    expect(codeForHttpStatus(429, 'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45000.')).toBe('RATE_LIMIT');
    expect(codeForHttpStatus(400, 'Invalid value for messages[1].role')).toBe('INVALID_REQUEST');
    expect(isContextOverflowText('the context window is large')).toBe(false);
  });

  it('output-only overflow: the prompt fits with room, prompt + output does not', () => {
    const vllm = parseContextOverflow(ROWS[5]!.text);
    expect(isOutputOnlyOverflow(vllm, 99_999)).toBe(true); // the provider's prompt count wins over our estimate
    expect(loweredMaxOutput(vllm, 0)).toBe(4096 - 2778 - 82);
    expect(isOutputOnlyOverflow(parseContextOverflow(ROWS[1]!.text), 0)).toBe(false); // prompt alone is too big
    expect(isOutputOnlyOverflow(undefined, 10)).toBe(false); // no window: never
    expect(isOutputOnlyOverflow({ contextWindow: 8000 }, 3000)).toBe(true); // our estimate when the provider gives none
    expect(loweredMaxOutput({ contextWindow: 1000, promptTokens: 990 }, 0)).toBe(1);
  });

  it('reads the provider message from a flat error body the openai client cannot see', () => {
    expect(messageFromErrorBody('{"object":"error","message":"This model\'s maximum context length is 4096 tokens.","type":"BadRequestError","code":400}')).toBe(
      "This model's maximum context length is 4096 tokens.",
    );
    expect(messageFromErrorBody('{"detail":"Not Found"}')).toBe('Not Found');
    expect(messageFromErrorBody('[{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}]')).toBe('bad');
    expect(messageFromErrorBody('upstream connect error')).toBe('upstream connect error');
  });
});
