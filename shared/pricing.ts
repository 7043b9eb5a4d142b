/**
 * Token prices and what logged usage cost (docs/providers.md "Prices, overrides and budgets"). Pure arithmetic shared by the engine (budget
 * checks), the CLI (`show`, `ls --json`, `price`) and the renderer; no Node, no DOM.
 *
 * Prices are USD per million tokens, as in the price list we bundle (`@pydantic/genai-prices`, see
 * electron/pricing/price-list.ts for its version and date). Usage counts follow shared/chunks.ts:
 * `inputTokens` is the *uncached* input, cache reads and cache writes are separate, and
 * `reasoningTokens` is the part of `outputTokens` spent on reasoning (never added twice).
 *
 * A token kind with no price of its own is billed at its parent's price, as the price list does:
 * cache reads and cache writes at the input price, reasoning at the output price.
 */
import type { TokenUsage } from './chunks.js';

/** USD per million tokens. `inputMtok` and `outputMtok` are always known; the others fall back to them. */
export interface TokenRates {
  readonly inputMtok: number;
  readonly outputMtok: number;
  readonly cacheReadMtok?: number;
  readonly cacheWriteMtok?: number;
  readonly reasoningMtok?: number;
}

/**
 * Rates that change with the size of the prompt (e.g. Gemini 2.5 Pro above 200,000 input tokens):
 * the highest tier whose `startInputTokens` the request's total input reaches applies to the whole
 * request.
 */
export interface RateTier {
  readonly startInputTokens: number;
  readonly rates: TokenRates;
}

/**
 * The price in force for one request. `snapshot` names the price list (package and version) it was
 * resolved with, so a figure can be explained later; `source` says whether it came from that list
 * or from a person's override (cli.json or Settings).
 */
export type PriceQuote =
  | {
      readonly kind: 'known';
      readonly snapshot: string;
      readonly source: 'list' | 'override';
      /** The list's model id (e.g. `deepseek-v4-flash`), or the override's model pattern. */
      readonly priceId: string;
      readonly rates: TokenRates;
      readonly tiers?: readonly RateTier[];
    }
  | { readonly kind: 'unknown'; readonly snapshot: string; readonly reason: string };

/** What one response cost, by token kind (USD). `usd` is their sum. */
export interface CostBreakdown {
  readonly usd: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Output other than reasoning. */
  readonly output: number;
  readonly reasoning: number;
}

const PER = 1_000_000;

/** Total input a response was billed for: uncached + cache read + cache write. */
export function totalInputTokens(usage: TokenUsage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** The rates that apply to a request with `inputTokens` of total input (tiers resolved). */
export function ratesFor(quote: Extract<PriceQuote, { kind: 'known' }>, inputTokens: number): TokenRates {
  let rates = quote.rates;
  for (const tier of quote.tiers ?? []) if (inputTokens >= tier.startInputTokens) rates = tier.rates;
  return rates;
}

/** Cost of one response's usage at a price (tiers chosen by its total input). */
export function usageCost(usage: TokenUsage, quote: Extract<PriceQuote, { kind: 'known' }>): CostBreakdown {
  const r = ratesFor(quote, totalInputTokens(usage));
  const reasoningTokens = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const input = (usage.inputTokens * r.inputMtok) / PER;
  const cacheRead = ((usage.cacheReadTokens ?? 0) * (r.cacheReadMtok ?? r.inputMtok)) / PER;
  const cacheWrite = ((usage.cacheWriteTokens ?? 0) * (r.cacheWriteMtok ?? r.inputMtok)) / PER;
  const output = ((usage.outputTokens - reasoningTokens) * r.outputMtok) / PER;
  const reasoning = (reasoningTokens * (r.reasoningMtok ?? r.outputMtok)) / PER;
  return { usd: input + cacheRead + cacheWrite + output + reasoning, input, cacheRead, cacheWrite, output, reasoning };
}

/**
 * The most a request can cost before it is sent: every input token at the dearest input rate
 * (uncached or cache write) and the whole output cap at the dearest output rate (plain or
 * reasoning), in the tier its input falls in.
 */
export function worstCaseCost(inputTokens: number, outputCap: number, quote: Extract<PriceQuote, { kind: 'known' }>): number {
  const r = ratesFor(quote, inputTokens);
  const inputRate = Math.max(r.inputMtok, r.cacheWriteMtok ?? 0);
  const outputRate = Math.max(r.outputMtok, r.reasoningMtok ?? 0);
  return (inputTokens * inputRate + outputCap * outputRate) / PER;
}

/** `$0.012345`: six decimals below a cent, four below a dollar, two above; `price unknown` for undefined. */
export function formatUsd(usd: number | undefined): string {
  if (usd === undefined) return 'price unknown';
  if (usd === 0) return '$0';
  const abs = Math.abs(usd);
  const digits = abs < 0.01 ? 6 : abs < 1 ? 4 : 2;
  return `$${usd.toFixed(digits)}`;
}
