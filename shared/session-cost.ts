/**
 * What a session cost, from its log (docs/providers.md "Prices, overrides and budgets"): every billed response — a step's
 * `assistant/message` and a compaction's `compaction/summary` — priced from its logged usage at the
 * price logged for its request (`request/price`: snapshot id and rates). Pure; used by the budget
 * check, `show`, `ls --json`, `price`, compare and the renderer.
 *
 * A compaction's summary request logs its own `request/price` (naming its `compactionId`; a manual
 * compaction between turns with turn and step 0), and its response is priced at it like a step's.
 * A summary that was billed but not used (a failed compaction) counts too, from the usage in its
 * `compaction/end`. A compaction summary with no `request/price` of its own (one run with no
 * price check, or a manual one recorded before those were logged) is priced at the price logged
 * latest in the session for the same provider and model (and endpoint when one was logged) — the
 * snapshot in force when it ran — marked `priceFrom: 'session'`. A response with no price logged for it or for
 * its model (a log recorded before prices were logged, an imported one) is priced by `fallback`
 * when one is given (the current price list; marked `priceFrom: 'current'`), else its price is
 * unknown. A response whose provider reported no usage
 * is `usage-not-reported` and counts at the worst case logged for its request. A price that is not
 * known is never counted as $0: totals then say how many responses are unpriced.
 */
import type { TokenUsage } from './chunks.js';
import type { SessionEvent } from './events.js';
import { formatUsd, totalInputTokens, usageCost, worstCaseCost, type CostBreakdown, type PriceQuote } from './pricing.js';
import { formatTokens } from './format.js';

/** One billed response. */
export interface BilledResponse {
  readonly kind: 'step' | 'compaction';
  /** Seq of the `assistant/message` or `compaction/summary`. */
  readonly seq: number;
  readonly time: number;
  /** The turn it belongs to (0 for a compaction between turns). */
  readonly turn: number;
  /** The step (0 for a compaction). */
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly usage?: TokenUsage;
  /** `priced`: usage × price; `unknown`: no price for the model; `usage-not-reported`: counted at its worst case. */
  readonly status: 'priced' | 'unknown' | 'usage-not-reported';
  /** USD: usage × price, or the worst case for `usage-not-reported` (when priced). Absent when unknown. */
  readonly usd?: number;
  readonly breakdown?: CostBreakdown;
  /** Tokens billed (total input + output), or the worst case for `usage-not-reported`. */
  readonly tokens: number;
  /** The price list snapshot the figure comes from. */
  readonly snapshot?: string;
  /**
   * `logged`: the price logged before the request; `session`: a compaction with no price of its own,
   * at the price logged latest in the session for its model; `current`: the fallback (no price was
   * logged); `as`: a re-pricing.
   */
  readonly priceFrom?: 'logged' | 'session' | 'current' | 'as';
  readonly priceId?: string;
}

/** Totals over a set of responses. `usd` is absent when any of them has no known price. */
export interface CostTotals {
  readonly usd?: number;
  /** Sum over the responses whose price is known. */
  readonly knownUsd: number;
  readonly unknownCount: number;
  readonly unreportedCount: number;
  /** Total input (uncached + cache read + cache write), with its cached part. */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Output, with its reasoning part. */
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  /** Billed tokens including worst cases of unreported responses (what token budgets count). */
  readonly tokens: number;
}

export interface SessionCost {
  readonly responses: readonly BilledResponse[];
  readonly total: CostTotals;
  /** Totals per turn number. */
  readonly turns: ReadonlyMap<number, CostTotals>;
  /** Price list snapshots the figures come from, in order of first use. */
  readonly snapshots: readonly string[];
}

/** Prices a response for which no `request/price` was logged (or for re-pricing). */
export type QuoteFor = (response: { readonly provider: string; readonly model: string; readonly baseUrl?: string; readonly time: number }) => PriceQuote;

export interface SessionCostOptions {
  /** Used when no price was logged for a response. */
  readonly fallback?: QuoteFor;
  /** Re-prices every response with this instead of its logged price (`forkline price --as`). */
  readonly as?: QuoteFor;
}

/** Folds a log into what each billed response cost. */
export function sessionCost(events: readonly SessionEvent[], options: SessionCostOptions = {}): SessionCost {
  const fold = new SessionCostFold(options);
  for (const e of events) fold.add(e);
  return fold.result();
}

/**
 * The fold behind {@link sessionCost}, fed one event at a time, so that a caller that keeps it
 * (the host's per-session cost summary for the session list) reads each event once: `add` the new
 * events since the last call, then read `responses` or `result()`.
 */
export class SessionCostFold {
  /** The billed responses so far, in log order. */
  readonly responses: BilledResponse[] = [];
  /** Events folded so far (the next seq for a caller that feeds a log in order). */
  count = 0;
  private price: SessionEvent<'request/price'>['data'] | undefined;
  private priceSeq = -1;
  /** The endpoint of the latest `request/context` (for pricing responses logged without a price). */
  private baseUrl: string | undefined;
  private openTurn = 0;
  /** Seq of the open compaction's `compaction/start` (a price logged after it is the summary request's). */
  private compactionStart = -1;
  /** The open compaction's `compaction/start` (its output cap and the size of what it summarises). */
  private compaction: SessionEvent<'compaction/start'>['data'] | undefined;
  /** Provider and model of the latest `request/header` (a failed summary's route when it logged no price). */
  private headerRoute: { readonly provider: string; readonly model: string } | undefined;
  /** The latest price logged per route (`provider\u0000model`, and with `\u0000baseUrl` when one was logged). */
  private readonly latestPrice = new Map<string, SessionEvent<'request/price'>['data']>();

  constructor(private readonly options: SessionCostOptions = {}) {}

  /** Folds the next event of the log. */
  add(e: SessionEvent): void {
    this.count++;
    const options = this.options;
    switch (e.type) {
      case 'turn/start':
        this.openTurn = e.data.turn;
        break;
      case 'turn/end':
        this.openTurn = 0;
        break;
      case 'compaction/start':
        this.compactionStart = e.seq;
        this.compaction = e.data;
        break;
      case 'request/header':
        this.headerRoute = { provider: e.data.header.config.provider, model: e.data.header.config.model };
        break;
      case 'request/context':
        this.baseUrl = e.data.baseUrl;
        break;
      case 'request/price':
        this.price = e.data;
        this.priceSeq = e.seq;
        this.latestPrice.set(routeKey(e.data.provider, e.data.model), e.data);
        if (e.data.baseUrl !== undefined) this.latestPrice.set(routeKey(e.data.provider, e.data.model, e.data.baseUrl), e.data);
        break;
      case 'assistant/message': {
        const price = this.price;
        const source = e.data.message.source;
        const logged = price !== undefined && price.turn === e.data.turn && price.step === e.data.step ? price : undefined;
        const provider = logged?.provider ?? source.provider ?? '';
        const model = logged?.model ?? source.model ?? '';
        this.responses.push(
          priced({ kind: 'step', seq: e.seq, time: e.time, turn: e.data.turn, step: e.data.step, provider, model, ...endpoint(logged?.baseUrl ?? this.baseUrl), usage: e.data.usage }, logged, options),
        );
        break;
      }
      case 'compaction/summary':
        this.billCompaction(e, e.data.compactionId, e.data.provider, e.data.model, e.data.usage, { estimatedInputTokens: e.data.shadowedTokenCount, outputCap: e.data.maxTokens });
        this.compaction = undefined;
        break;
      case 'compaction/end': {
        // A summary that was not used (not smaller, the conversation changed) was still billed.
        const own = this.ownPrice(e.data.compactionId);
        const route = own ?? this.headerRoute;
        if (e.data.usage && route && this.compaction?.compactionId === e.data.compactionId) {
          this.billCompaction(e, e.data.compactionId, route.provider, route.model, e.data.usage, {
            estimatedInputTokens: this.compaction.shadowedTokenCount,
            outputCap: this.compaction.maxTokens,
          });
        }
        this.compaction = undefined;
        break;
      }
      default:
        break;
    }
  }

  /**
   * The `request/price` of compaction `compactionId`'s summary request: one naming it, or (logs
   * from before prices named their compaction) the latest price logged after its `compaction/start`.
   */
  private ownPrice(compactionId: string): SessionEvent<'request/price'>['data'] | undefined {
    const price = this.price;
    if (price === undefined || this.compactionStart < 0 || this.priceSeq < this.compactionStart) return undefined;
    if (price.compactionId !== undefined) return price.compactionId === compactionId ? price : undefined;
    return price;
  }

  /**
   * Bills a compaction's summary response: at its own logged price; else (a compaction between
   * turns recorded before those were logged) at the price logged latest for its route.
   */
  private billCompaction(
    e: SessionEvent,
    compactionId: string,
    provider: string,
    model: string,
    usage: TokenUsage | undefined,
    request: { readonly estimatedInputTokens: number | undefined; readonly outputCap: number | undefined },
  ): void {
    const options = this.options;
    const candidate = this.ownPrice(compactionId);
    const own = candidate !== undefined && candidate.provider === provider && candidate.model === model ? candidate : undefined;
    const facts: ResponseFacts = {
      kind: 'compaction',
      seq: e.seq,
      time: e.time,
      turn: this.openTurn,
      step: own?.step ?? 0,
      provider,
      model,
      ...endpoint(own?.baseUrl ?? this.baseUrl),
      usage,
    };
    if (own || options.as) {
      this.responses.push(priced(facts, own, options));
      return;
    }
    // No price of its own: the one logged latest for its route (same endpoint first).
    const latest = (this.baseUrl !== undefined ? this.latestPrice.get(routeKey(provider, model, this.baseUrl)) : undefined) ?? this.latestPrice.get(routeKey(provider, model));
    const worst = {
      ...(request.estimatedInputTokens !== undefined ? { estimatedInputTokens: request.estimatedInputTokens } : {}),
      ...(request.outputCap !== undefined ? { outputCap: request.outputCap } : {}),
    };
    this.responses.push(latest ? pricedAt(facts, latest.quote, worst) : priced(facts, undefined, options));
  }

  /** Totals over every response folded so far. */
  total(): CostTotals {
    return totals(this.responses);
  }

  /** What the folded log cost: responses, totals, per-turn totals and snapshots. */
  result(): SessionCost {
    const responses = [...this.responses];
    const turns = new Map<number, BilledResponse[]>();
    for (const r of responses) {
      let list = turns.get(r.turn);
      if (!list) turns.set(r.turn, (list = []));
      list.push(r);
    }
    const snapshots: string[] = [];
    for (const r of responses) if (r.snapshot !== undefined && !snapshots.includes(r.snapshot)) snapshots.push(r.snapshot);
    return { responses, total: totals(responses), turns: new Map([...turns].map(([turn, list]) => [turn, totals(list)])), snapshots };
  }
}

/** Totals over some billed responses (a turn's, a step's). */
export function costTotals(list: readonly BilledResponse[]): CostTotals {
  return totals(list);
}

function routeKey(provider: string, model: string, baseUrl?: string): string {
  return baseUrl === undefined ? `${provider}\u0000${model}` : `${provider}\u0000${model}\u0000${baseUrl}`;
}

/**
 * A compaction priced at a quote logged for another request of the session (`priceFrom:
 * 'session'`). With no reported usage its worst case is its own: the estimated input of what it
 * summarised plus its output cap, at that quote.
 */
function pricedAt(r: ResponseFacts, quote: PriceQuote, request: { readonly estimatedInputTokens?: number; readonly outputCap?: number }): BilledResponse {
  const { usage, baseUrl: _baseUrl, ...facts } = r;
  const from = { snapshot: quote.snapshot, priceFrom: 'session' as const, ...(quote.kind === 'known' ? { priceId: quote.priceId } : {}) };
  if (!usage) {
    const tokens = (request.estimatedInputTokens ?? 0) + (request.outputCap ?? 0);
    const usd =
      quote.kind === 'known' && request.estimatedInputTokens !== undefined && request.outputCap !== undefined ? worstCaseCost(request.estimatedInputTokens, request.outputCap, quote) : undefined;
    return { ...facts, status: 'usage-not-reported', tokens, ...(usd !== undefined ? { usd } : {}), ...from };
  }
  const tokens = totalInputTokens(usage) + usage.outputTokens;
  if (quote.kind !== 'known') return { ...facts, usage, status: 'unknown', tokens, ...from };
  const breakdown = usageCost(usage, quote);
  return { ...facts, usage, status: 'priced', usd: breakdown.usd, breakdown, tokens, ...from };
}

function endpoint(baseUrl: string | undefined): { baseUrl?: string } {
  return baseUrl !== undefined ? { baseUrl } : {};
}

interface ResponseFacts {
  readonly kind: BilledResponse['kind'];
  readonly seq: number;
  readonly time: number;
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly baseUrl?: string;
  readonly usage: TokenUsage | undefined;
}

function priced(
  r: ResponseFacts,
  logged: (Omit<SessionEvent<'request/price'>['data'], 'worstCaseUsd'> & { worstCaseUsd?: number | undefined }) | undefined,
  options: SessionCostOptions,
): BilledResponse {
  const { usage, baseUrl: _baseUrl, ...facts } = r;
  let quote: PriceQuote | undefined;
  let priceFrom: BilledResponse['priceFrom'];
  if (options.as) {
    quote = options.as(r);
    priceFrom = 'as';
  } else if (logged) {
    quote = logged.quote;
    priceFrom = 'logged';
  } else if (options.fallback) {
    quote = options.fallback(r);
    priceFrom = 'current';
  }
  const from = { ...(quote ? { snapshot: quote.snapshot } : {}), ...(priceFrom ? { priceFrom } : {}), ...(quote?.kind === 'known' ? { priceId: quote.priceId } : {}) };
  if (!usage) {
    // No usage: the worst case of the request as logged (tokens; USD at the logged price).
    const tokens = logged ? logged.estimatedInputTokens + (logged.outputCap ?? 0) : 0;
    const usd = priceFrom === 'logged' ? logged?.worstCaseUsd : undefined;
    return { ...facts, status: 'usage-not-reported', tokens, ...(usd !== undefined ? { usd } : {}), ...from };
  }
  const tokens = totalInputTokens(usage) + usage.outputTokens;
  if (quote?.kind !== 'known') return { ...facts, usage, status: 'unknown', tokens, ...from };
  const breakdown = usageCost(usage, quote);
  return { ...facts, usage, status: 'priced', usd: breakdown.usd, breakdown, tokens, ...from };
}

function totals(list: readonly BilledResponse[]): CostTotals {
  let knownUsd = 0;
  let unknownCount = 0;
  let unreportedCount = 0;
  let inputTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let outputTokens = 0;
  let reasoningTokens = 0;
  let tokens = 0;
  for (const r of list) {
    tokens += r.tokens;
    if (r.status === 'usage-not-reported') unreportedCount++;
    if (r.usd !== undefined) knownUsd += r.usd;
    else unknownCount++;
    if (r.usage) {
      inputTokens += totalInputTokens(r.usage);
      cacheReadTokens += r.usage.cacheReadTokens ?? 0;
      cacheWriteTokens += r.usage.cacheWriteTokens ?? 0;
      outputTokens += r.usage.outputTokens;
      reasoningTokens += r.usage.reasoningTokens ?? 0;
    }
  }
  return {
    ...(unknownCount === 0 ? { usd: knownUsd } : {}),
    knownUsd,
    unknownCount,
    unreportedCount,
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    outputTokens,
    reasoningTokens,
    tokens,
  };
}

/** The JSON form of totals for `show --json`, `ls --json`, `compare --json` (USD `null` when unknown). */
export function costJson(t: CostTotals, snapshots: readonly string[]): Record<string, number | null | string[]> {
  return {
    usd: t.usd ?? null,
    knownUsd: t.knownUsd,
    unpricedResponses: t.unknownCount,
    usageNotReported: t.unreportedCount,
    inputTokens: t.inputTokens,
    cachedInputTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWriteTokens,
    outputTokens: t.outputTokens,
    reasoningTokens: t.reasoningTokens,
    priceSnapshots: [...snapshots],
  };
}

/**
 * Short label of totals for a row or a meter: `$0.0123`; `≥ $0.0100 (2 unpriced)` when some
 * responses have no known price; `12.3k tokens, price unknown` when none has; `≤ ` before the
 * figure when a response without reported usage counts at its worst case; `usage unknown` when
 * responses reported no usage and nothing is counted. Empty when nothing was billed.
 */
export function costLabel(t: CostTotals | undefined, options: { readonly compact?: boolean } = {}): string {
  if (!t || (t.tokens === 0 && t.unknownCount === 0 && t.knownUsd === 0)) return '';
  const usd = options.compact ? compactUsd : formatUsd;
  // A response without reported usage counts at its worst case: the figure is then an upper bound.
  const atMost = t.unreportedCount > 0 ? '≤ ' : '';
  if (t.usd !== undefined) return `${atMost}${usd(t.usd)}`;
  if (t.knownUsd > 0) return options.compact ? `≥ ${usd(t.knownUsd)}` : `≥ ${usd(t.knownUsd)} (${t.unknownCount} unpriced)`;
  // No token counted and no price: "≤ 0 tok" would say nothing (an imported log that recorded no usage).
  if (t.tokens === 0) return t.unreportedCount > 0 ? 'usage unknown' : '';
  return options.compact ? `${atMost}${formatTokens(t.tokens)} tok` : `${atMost}${formatTokens(t.tokens)} tokens, price unknown`;
}

/** USD for a narrow place (a sidebar row): four decimals below a cent (`$0.0022`), else as {@link formatUsd}. */
export function compactUsd(usd: number): string {
  return usd !== 0 && Math.abs(usd) < 0.01 ? `$${usd.toFixed(4)}` : formatUsd(usd);
}

/** What the tokens of totals count, for a tooltip: total input with its cached part, output with its reasoning part. */
export function costTokensTitle(t: CostTotals): string {
  const cached = [t.cacheReadTokens ? `${formatTokens(t.cacheReadTokens)} cached` : '', t.cacheWriteTokens ? `${formatTokens(t.cacheWriteTokens)} cache-write` : ''].filter(Boolean).join(', ');
  return `input ${formatTokens(t.inputTokens)} total${cached ? ` (${cached})` : ''} · output ${formatTokens(t.outputTokens)}${t.reasoningTokens ? ` (${formatTokens(t.reasoningTokens)} reasoning)` : ''}${t.unreportedCount ? ` · ${t.unreportedCount} response(s) without reported usage, counted at their worst case` : ''}`;
}

/** What a branch's cost figure is read from (BranchStats, a fan-out BranchReport). */
export interface BranchCostFigures {
  /** USD; absent when a response has no known price. */
  readonly costUsd?: number;
  /** Billed responses (steps' and compaction summaries'); absent in reports from older builds. */
  readonly billedResponses?: number;
  /** Steps the branch ran, when known. */
  readonly steps?: number;
}

/**
 * A branch's cost for the compare view, the board and `compare`: `no steps` for a branch that ran
 * none (`nothing billed` when its steps billed nothing) — never `$0`, which reads as a free run;
 * `price unknown` when a response has no known price; else the USD figure.
 */
export function branchCostLabel(f: BranchCostFigures): string {
  if (f.billedResponses === 0) return f.steps !== undefined && f.steps > 0 ? 'nothing billed' : 'no steps';
  return f.costUsd !== undefined ? formatUsd(f.costUsd) : 'price unknown';
}
