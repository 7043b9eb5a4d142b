/**
 * Prices from the bundled list (@pydantic/genai-prices 0.1.8) and overrides, checked against
 * figures computed by hand from the list's published rates (USD per million tokens), to 1e-6 USD —
 * and against the list's own `calcPrice`, so our reading of its rates cannot drift from it.
 */
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../../shared/chunks.js';
import { formatUsd, usageCost, worstCaseCost, type PriceQuote } from '../../../shared/pricing.js';
import { listQuote, parsePriceOverrides, PriceBook, PriceOverrideError, PRICE_SNAPSHOT } from '../../../electron/pricing/price-list.js';

const known = (q: PriceQuote) => {
  if (q.kind !== 'known') throw new Error(`expected a price, got: ${q.reason}`);
  return q;
};
/** 2026-12-01 12:00 UTC: DeepSeek V4 off-peak (peak is 01:00–04:00 and 06:00–10:00 UTC from 2026-08-17). */
const OFF_PEAK = new Date('2026-12-01T12:00:00Z');
const PEAK = new Date('2026-12-01T02:00:00Z');

/** The list's own figure for the same usage (its `input_tokens` is the total input). */
function listFigure(usage: TokenUsage, model: string, providerId: string, at: Date): number {
  const r = calcPrice(
    {
      input_tokens: usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
      cache_read_tokens: usage.cacheReadTokens ?? 0,
      cache_write_tokens: usage.cacheWriteTokens ?? 0,
      output_tokens: usage.outputTokens,
    },
    model,
    { providerId, timestamp: at },
  );
  return r!.total_price;
}

describe('bundled price list', () => {
  it('DeepSeek V4 Flash: cache hits and misses, off-peak and peak hours', () => {
    const book = new PriceBook();
    const route = { provider: 'deepseek', baseUrl: 'https://api.deepseek.com', model: 'deepseek-v4-flash' };
    const offPeak = known(book.quote(route, OFF_PEAK));
    expect(offPeak).toMatchObject({ snapshot: 'genai-prices@0.1.8', source: 'list', priceId: 'deepseek/deepseek-v4-flash', rates: { inputMtok: 0.22, cacheReadMtok: 0.007, outputMtok: 0.66 } });
    // 10,000 prompt tokens, 8,000 of them cache hits; 500 out (200 reasoning, billed as output).
    const hits: TokenUsage = { inputTokens: 2000, cacheReadTokens: 8000, outputTokens: 500, reasoningTokens: 200 };
    // 2000×0.22 + 8000×0.007 + 500×0.66 = 440 + 56 + 330 = 826 µ$
    expect(usageCost(hits, offPeak).usd).toBeCloseTo(0.000826, 6);
    const misses: TokenUsage = { inputTokens: 12000, outputTokens: 300 };
    // 12000×0.22 + 300×0.66 = 2640 + 198 = 2838 µ$
    expect(usageCost(misses, offPeak).usd).toBeCloseTo(0.002838, 6);
    const peak = known(book.quote(route, PEAK));
    // 2000×0.44 + 8000×0.014 + 500×1.32 = 880 + 112 + 660 = 1652 µ$
    expect(usageCost(hits, peak).usd).toBeCloseTo(0.001652, 6);
    expect(usageCost(hits, offPeak).usd).toBeCloseTo(listFigure(hits, 'deepseek-v4-flash', 'deepseek', OFF_PEAK), 9);
    expect(usageCost(hits, peak).usd).toBeCloseTo(listFigure(hits, 'deepseek-v4-flash', 'deepseek', PEAK), 9);
  });

  it('OpenAI gpt-5: cached input and reasoning tokens', () => {
    const q = known(new PriceBook().quote({ provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-5' }, OFF_PEAK));
    expect(q.rates).toMatchObject({ inputMtok: 1.25, cacheReadMtok: 0.125, outputMtok: 10 });
    // 5,000 prompt tokens, 3,000 cached; 1,200 out of which 800 reasoning (billed at the output rate).
    const usage: TokenUsage = { inputTokens: 2000, cacheReadTokens: 3000, outputTokens: 1200, reasoningTokens: 800 };
    const cost = usageCost(usage, q);
    // 2000×1.25 + 3000×0.125 + 1200×10 = 2500 + 375 + 12000 = 14875 µ$
    expect(cost.usd).toBeCloseTo(0.014875, 6);
    expect(cost.reasoning).toBeCloseTo(0.008, 6);
    expect(cost.output).toBeCloseTo(0.004, 6);
    expect(cost.usd).toBeCloseTo(listFigure(usage, 'gpt-5', 'openai', OFF_PEAK), 9);
  });

  it('prompt-size tiers apply to the whole request (Gemini 2.5 Pro above 200k input)', () => {
    const q = known(new PriceBook().quote({ provider: 'gemini', model: 'gemini-2.5-pro' }, OFF_PEAK));
    const small: TokenUsage = { inputTokens: 100_000, outputTokens: 1000 };
    const large: TokenUsage = { inputTokens: 250_000, outputTokens: 1000 };
    // 100000×1.25 + 1000×10 = 0.135; 250000×2.5 + 1000×15 = 0.64
    expect(usageCost(small, q).usd).toBeCloseTo(0.135, 6);
    expect(usageCost(large, q).usd).toBeCloseTo(0.64, 6);
    expect(usageCost(large, q).usd).toBeCloseTo(listFigure(large, 'gemini-2.5-pro', 'google', OFF_PEAK), 9);
  });

  it('a local or custom endpoint is never priced by model name; an unknown model shows "price unknown", not $0', () => {
    const book = new PriceBook();
    const local = book.quote({ provider: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'deepseek-r1:7b' }, OFF_PEAK);
    expect(local.kind).toBe('unknown');
    const scripted = book.quote({ provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'scripted-model' }, OFF_PEAK);
    expect(scripted).toMatchObject({ kind: 'unknown', snapshot: PRICE_SNAPSHOT.id });
    expect(listQuote({ provider: 'openai', model: 'no-such-model-xyz' }, OFF_PEAK).kind).toBe('unknown');
    expect(formatUsd(undefined)).toBe('price unknown');
    expect(formatUsd(0)).toBe('$0');
  });
});

describe('price overrides', () => {
  const overrides = parsePriceOverrides([
    { baseUrl: 'http://127.0.0.1:8000/v1/', model: 'my-model', inputMtok: 0.5, cacheReadMtok: 0.05, outputMtok: 1.5 },
    { baseUrl: 'http://127.0.0.1:11434/v1', model: '*', inputMtok: 0, outputMtok: 0 },
    { provider: 'openai', model: 'gpt-5', inputMtok: 1, outputMtok: 8 },
  ]);
  const book = new PriceBook(overrides);

  it('a custom endpoint with a user price', () => {
    const q = known(book.quote({ provider: 'custom', baseUrl: 'http://127.0.0.1:8000/v1', model: 'my-model' }, OFF_PEAK));
    expect(q.source).toBe('override');
    // 1000×0.5 + 4000×0.05 + 100×1.5 = 500 + 200 + 150 = 850 µ$
    expect(usageCost({ inputTokens: 1000, cacheReadTokens: 4000, outputTokens: 100 }, q).usd).toBeCloseTo(0.00085, 6);
    // The worst case prices every input token uncached and the whole output cap: 5000×0.5 + 2000×1.5 = 5500 µ$
    expect(worstCaseCost(5000, 2000, q)).toBeCloseTo(0.0055, 6);
    // Another model of that endpoint has no price.
    expect(book.quote({ provider: 'custom', baseUrl: 'http://127.0.0.1:8000/v1', model: 'other' }, OFF_PEAK).kind).toBe('unknown');
  });

  it('a local server at zero is known to be free; an override wins over the list', () => {
    const local = known(book.quote({ provider: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' }, OFF_PEAK));
    expect(usageCost({ inputTokens: 5000, outputTokens: 500 }, local).usd).toBe(0);
    const gpt = known(book.quote({ provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-5' }, OFF_PEAK));
    expect(gpt).toMatchObject({ source: 'override', rates: { inputMtok: 1, outputMtok: 8 } });
  });

  it('bad input names the field', () => {
    const bad = (value: unknown) => {
      try {
        parsePriceOverrides(value, 'cli.json prices');
      } catch (error) {
        expect(error).toBeInstanceOf(PriceOverrideError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad([{ model: 'm', inputMtok: -1, outputMtok: 1 }])).toBe('cli.json prices[0].inputMtok: must not be negative (got -1)');
    expect(bad([{ model: 'm', inputMtok: 1, outputMtok: '2' }])).toBe('cli.json prices[0].outputMtok: must be a number of USD per million tokens (got "2")');
    expect(bad([{ model: 'm', inputMtok: 1 }])).toMatch(/^cli\.json prices\[0\]\.outputMtok: is required/);
    expect(bad([{ inputMtok: 1, outputMtok: 1 }])).toMatch(/^cli\.json prices\[0\]\.model: /);
    expect(bad({ model: 'm' })).toBe('cli.json prices: must be a list of prices');
  });
});
