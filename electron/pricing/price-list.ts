/**
 * The bundled price list and a person's overrides (docs/providers.md "Prices, overrides and budgets").
 *
 * Source: `@pydantic/genai-prices` 0.1.8 (npm, MIT, published 2026-09-23; data from
 * https://github.com/pydantic/genai-prices), pinned exactly in package.json. Its data is bundled
 * inside the package and is never updated at run time here (we do not call its `updatePrices`), so
 * the pin is the snapshot: {@link PRICE_SNAPSHOT} is recorded with every price logged
 * (`request/price`), and a figure can be explained later from the log alone. Upgrading the pin
 * changes the snapshot id; prices already logged stay as they were.
 *
 * What the list gives: per-model USD per million tokens for input, cache read, cache write, output
 * and (a few models) reasoning; time-of-day prices (DeepSeek's peak and off-peak hours, resolved
 * for the request's time) and prompt-size tiers (Gemini above 200k). Models are found by the
 * endpoint's base URL (`findProvider({providerApiUrl})`), else by our provider id for the hosted
 * presets. A local or custom endpoint is never priced by model name alone (a local
 * `deepseek-r1:7b` is not DeepSeek's API): it has a price only by an override.
 */
import { calcPrice, findProvider, type ModelPrice, type Provider } from '@pydantic/genai-prices';
import type { PriceQuote, RateTier, TokenRates } from '../../shared/pricing.js';

/** The price list snapshot in force: package, exact version and its publication date. */
export const PRICE_SNAPSHOT = { id: 'genai-prices@0.1.8', package: '@pydantic/genai-prices', version: '0.1.8', published: '2026-09-23' } as const;

/** Our hosted presets → the list's provider ids. Local and custom endpoints have none. */
const LIST_PROVIDER: Readonly<Record<string, string>> = { deepseek: 'deepseek', openai: 'openai', openrouter: 'openrouter', gemini: 'google' };

/**
 * A person's price for one endpoint and model (cli.json `prices`, Settings). `model` `*` matches
 * every model of the endpoint (e.g. a local server at zero). `baseUrl` absent: any endpoint with
 * that model; `provider` narrows by our provider id.
 */
export interface PriceOverride {
  readonly baseUrl?: string;
  readonly provider?: string;
  readonly model: string;
  readonly rates: TokenRates;
}

/** A malformed override: `field` names where (e.g. `prices[1].inputMtok`). */
export class PriceOverrideError extends Error {
  readonly code = 'INVALID_PRICE_OVERRIDE';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'PriceOverrideError';
  }
}

const RATE_FIELDS = ['inputMtok', 'outputMtok', 'cacheReadMtok', 'cacheWriteMtok', 'reasoningMtok'] as const;

/**
 * Reads overrides from JSON (`[{ "baseUrl"?, "provider"?, "model", "inputMtok", "outputMtok",
 * "cacheReadMtok"?, "cacheWriteMtok"?, "reasoningMtok"? }]`, USD per million tokens).
 * @param where the path shown in errors, e.g. `prices` or `cli.json prices`.
 * @throws PriceOverrideError naming the field for a missing model, a negative, non-numeric or
 *   non-finite price, or a missing input/output price.
 */
export function parsePriceOverrides(value: unknown, where = 'prices'): PriceOverride[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new PriceOverrideError(where, 'must be a list of prices');
  return value.map((item: unknown, i): PriceOverride => {
    const at = `${where}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new PriceOverrideError(at, 'must be an object');
    const o = item as Record<string, unknown>;
    if (typeof o['model'] !== 'string' || o['model'].trim() === '') throw new PriceOverrideError(`${at}.model`, 'must name a model (or "*" for every model of the endpoint)');
    for (const key of ['baseUrl', 'provider'] as const) {
      if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === '')) throw new PriceOverrideError(`${at}.${key}`, 'must be a non-empty string');
    }
    const rates: Record<string, number> = {};
    for (const field of RATE_FIELDS) {
      const raw = o[field];
      if (raw === undefined) {
        if (field === 'inputMtok' || field === 'outputMtok') throw new PriceOverrideError(`${at}.${field}`, 'is required (USD per million tokens; 0 for a free model)');
        continue;
      }
      if (typeof raw !== 'number' || !Number.isFinite(raw)) throw new PriceOverrideError(`${at}.${field}`, `must be a number of USD per million tokens (got ${JSON.stringify(raw)})`);
      if (raw < 0) throw new PriceOverrideError(`${at}.${field}`, `must not be negative (got ${raw})`);
      rates[field] = raw;
    }
    return {
      model: o['model'],
      ...(typeof o['baseUrl'] === 'string' ? { baseUrl: o['baseUrl'] } : {}),
      ...(typeof o['provider'] === 'string' ? { provider: o['provider'] } : {}),
      rates: rates as unknown as TokenRates,
    };
  });
}

/** Where a request goes, as the price book needs it. */
export interface PricedRoute {
  readonly provider: string;
  readonly baseUrl?: string;
  readonly model: string;
}

/** Trailing slashes off, for comparing base URLs. */
function normalUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/**
 * Prices for routes: the person's overrides first (the most specific match: endpoint + model,
 * then endpoint + `*`, then model on any endpoint), then the bundled list. Never guesses: a route
 * with neither is `unknown`.
 */
export class PriceBook {
  constructor(private readonly overrides: readonly PriceOverride[] = []) {}

  /** The price of `route` for a request at `at` (time-of-day prices depend on it). */
  quote(route: PricedRoute, at: Date): PriceQuote {
    const override = this.override(route);
    if (override) return { kind: 'known', snapshot: PRICE_SNAPSHOT.id, source: 'override', priceId: override.model, rates: override.rates };
    return listQuote(route, at);
  }

  /** Prices a logged response with no logged price: this book at the response's own time and endpoint. */
  readonly fallback = (r: { readonly provider: string; readonly model: string; readonly baseUrl?: string; readonly time: number }): PriceQuote =>
    this.quote({ provider: r.provider, model: r.model, ...(r.baseUrl !== undefined ? { baseUrl: r.baseUrl } : {}) }, new Date(r.time));

  private override(route: PricedRoute): PriceOverride | undefined {
    const url = route.baseUrl !== undefined ? normalUrl(route.baseUrl) : undefined;
    const fits = (o: PriceOverride) => (o.provider === undefined || o.provider === route.provider) && (o.baseUrl === undefined || (url !== undefined && normalUrl(o.baseUrl) === url));
    const candidates = this.overrides.filter(fits);
    return (
      candidates.find((o) => o.baseUrl !== undefined && o.model === route.model) ??
      candidates.find((o) => o.baseUrl !== undefined && o.model === '*') ??
      candidates.find((o) => o.model === route.model) ??
      candidates.find((o) => o.model === '*')
    );
  }
}

/**
 * The price of a model named on the command line (`forkline price --as`): `PROVIDER:MODEL` (our
 * provider ids, e.g. `deepseek:deepseek-v4-pro`, `openai:gpt-5`, or the list's own, e.g.
 * `anthropic:claude-sonnet-4`) or a bare model id, matched by the list across its providers (an
 * override for that model wins).
 */
export function namedModelQuote(book: PriceBook, spec: string, at: Date): PriceQuote {
  const colon = spec.indexOf(':');
  const provider = colon > 0 ? spec.slice(0, colon) : undefined;
  const model = colon > 0 ? spec.slice(colon + 1) : spec;
  if (provider !== undefined) {
    const quote = book.quote({ provider, model }, at);
    if (quote.kind === 'known' || LIST_PROVIDER[provider] !== undefined) return quote;
    const listed = findProvider({ providerId: provider });
    return listed ? listQuoteIn(listed, model, at) : { kind: 'unknown', snapshot: PRICE_SNAPSHOT.id, reason: `${PRICE_SNAPSHOT.id} has no provider ${provider}` };
  }
  const quote = book.quote({ provider: '', model }, at);
  if (quote.kind === 'known') return quote;
  let result;
  try {
    result = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { timestamp: at });
  } catch {
    result = null;
  }
  if (!result) return { kind: 'unknown', snapshot: PRICE_SNAPSHOT.id, reason: `${PRICE_SNAPSHOT.id} has no price for ${model}` };
  return listQuoteIn(result.provider, model, at);
}

/** The bundled list's price for a route at a time, or `unknown` with the reason. */
export function listQuote(route: PricedRoute, at: Date): PriceQuote {
  const provider = listProvider(route);
  if (!provider) {
    return { kind: 'unknown', snapshot: PRICE_SNAPSHOT.id, reason: `no price list covers ${route.baseUrl ?? route.provider} (set a price for it in cli.json or Settings)` };
  }
  return listQuoteIn(provider, route.model, at);
}

function listQuoteIn(provider: Provider, model: string, at: Date): PriceQuote {
  let result;
  try {
    result = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { provider, timestamp: at });
  } catch {
    result = null;
  }
  if (!result) return { kind: 'unknown', snapshot: PRICE_SNAPSHOT.id, reason: `${provider.name} has no price for ${model} in ${PRICE_SNAPSHOT.id}` };
  const converted = toRates(result.model_price);
  if (!converted) return { kind: 'unknown', snapshot: PRICE_SNAPSHOT.id, reason: `${PRICE_SNAPSHOT.id} prices ${model} in units other than tokens` };
  return { kind: 'known', snapshot: PRICE_SNAPSHOT.id, source: 'list', priceId: `${provider.id}/${result.model.id}`, ...converted };
}

function listProvider(route: PricedRoute): Provider | undefined {
  if (route.baseUrl !== undefined) {
    const byUrl = findProvider({ providerApiUrl: route.baseUrl });
    if (byUrl) return byUrl;
  }
  const id = LIST_PROVIDER[route.provider];
  return id !== undefined ? findProvider({ providerId: id }) : undefined;
}

type Tiered = { readonly base: number; readonly tiers: readonly { readonly start: number; readonly price: number }[] };

/** The list's price record → flat rates plus prompt-size tiers. Undefined without input and output prices. */
function toRates(price: ModelPrice): { rates: TokenRates; tiers?: RateTier[] } | undefined {
  const keys = { inputMtok: 'input_mtok', outputMtok: 'output_mtok', cacheReadMtok: 'cache_read_mtok', cacheWriteMtok: 'cache_write_mtok', reasoningMtok: 'reasoning_mtok' } as const;
  const starts = new Set<number>();
  const at = (start: number): TokenRates | undefined => {
    const out: Record<string, number> = {};
    for (const [ours, theirs] of Object.entries(keys)) {
      const v = price[theirs] as number | Tiered | undefined;
      if (v === undefined) continue;
      if (typeof v === 'number') out[ours] = v;
      else {
        let p = v.base;
        for (const tier of v.tiers) {
          starts.add(tier.start);
          if (start >= tier.start) p = tier.price;
        }
        out[ours] = p;
      }
    }
    return out['inputMtok'] !== undefined && out['outputMtok'] !== undefined ? (out as unknown as TokenRates) : undefined;
  };
  const rates = at(0);
  if (!rates) return undefined;
  const tiers = [...starts].sort((a, b) => a - b).map((start) => ({ startInputTokens: start, rates: at(start)! }));
  return { rates, ...(tiers.length > 0 ? { tiers } : {}) };
}
