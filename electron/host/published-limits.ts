/**
 * What endpoints publish about their models, fetched once per endpoint and kept for a while
 * (catalog 10 minutes; a failed lookup 2 minutes, so an unreachable endpoint is not asked on every
 * step). Used to fill in a context window nobody set (docs/architecture.md §5 order: setting → published →
 * learned).
 */
import { fetchModelCatalog, type ModelCatalog } from '../llm/model-catalog.js';
import type { ModelLimitValues } from '../llm/model-limits.js';

const FRESH_MS = 10 * 60_000;
const FAILED_MS = 2 * 60_000;

export class PublishedLimits {
  private readonly cache = new Map<string, { at: number; ttl: number; catalog: Promise<ModelCatalog> }>();

  constructor(
    private readonly fetchCatalog: typeof fetchModelCatalog = fetchModelCatalog,
    private readonly now: () => number = Date.now,
  ) {}

  /** The endpoint's catalog (cached). Never rejects. */
  catalog(provider: string, baseUrl: string, apiKey: string | undefined): Promise<ModelCatalog> {
    const key = `${provider}|${baseUrl.replace(/\/+$/, '')}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < hit.ttl) return hit.catalog;
    const entry = { at: this.now(), ttl: FRESH_MS, catalog: Promise.resolve<ModelCatalog>({ models: [], source: '', listedByEndpoint: false }) };
    entry.catalog = this.fetchCatalog({ provider, baseUrl, ...(apiKey !== undefined ? { apiKey } : {}), timeoutMs: 3000 }).then(
      (catalog) => {
        if (catalog.models.length === 0) entry.ttl = FAILED_MS;
        return catalog;
      },
      (error: unknown) => {
        entry.ttl = FAILED_MS;
        return { models: [], source: `lookup failed: ${error instanceof Error ? error.message : String(error)}`, listedByEndpoint: false };
      },
    );
    this.cache.set(key, entry);
    return entry.catalog;
  }

  /** The limits the endpoint publishes for `model`, if any. */
  async limitsFor(provider: string, baseUrl: string, apiKey: string | undefined, model: string): Promise<ModelLimitValues | undefined> {
    if (baseUrl.trim() === '') return undefined;
    const catalog = await this.catalog(provider, baseUrl, apiKey);
    const entry = catalog.models.find((m) => m.id === model) ?? catalog.models.find((m) => m.id === `models/${model}`);
    if (!entry || (entry.contextWindow === undefined && entry.maxOutput === undefined)) return undefined;
    return { ...(entry.contextWindow !== undefined ? { contextWindow: entry.contextWindow } : {}), ...(entry.maxOutput !== undefined ? { maxOutputTokens: entry.maxOutput } : {}) };
  }
}
