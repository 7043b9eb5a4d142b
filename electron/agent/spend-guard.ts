/**
 * The pre-request price and budget check (docs/providers.md "Prices, overrides and budgets"), called by the agent loop right before each
 * model request is sent (once per attempt).
 *
 * It logs `request/price`: the price in force for the request (bundled list snapshot or a
 * person's override, see electron/pricing/price-list.ts) and the request's worst case — its input
 * estimated with the context estimator (`estimateRequestTokens`, the one compaction uses) plus its
 * output cap (the max tokens requested, else the model's known output cap, else what the context
 * window leaves). Then, when a budget is set, it adds that worst case to what the session (and the
 * running turn) already spent, as priced from the log by shared/session-cost.ts (responses whose
 * provider reported no usage count at their worst case), and refuses a request that could cross a
 * limit: {@link BudgetStop} ends the turn with reason `budget` before anything is sent. A higher
 * budget on resume lets the session go on.
 *
 * USD limits need a known price; where none is known a token limit (`sessionTokens`) does the job,
 * and a USD limit with no price stops with a message saying so.
 */
import type { BudgetStopFacts, RequestHeader, SessionEvent } from '../../shared/events.js';
import type { Message } from '../../shared/messages.js';
import { formatUsd, worstCaseCost, type PriceQuote } from '../../shared/pricing.js';
import { sessionCost } from '../../shared/session-cost.js';
import type { Session } from '../session/session.js';
import { BudgetStop } from './budget-stop.js';
import { estimateRequestTokens } from './compaction.js';

/** Spending limits for one agent lifecycle (a `run`, a `resume`, a live session in the app). */
export interface Budget {
  /** USD for the whole session (what its log already spent counts). */
  readonly sessionUsd?: number;
  /** USD per turn. */
  readonly turnUsd?: number;
  /** Billed tokens (total input + output) for the whole session; works where prices are unknown. */
  readonly sessionTokens?: number;
}

/** What the guard needs to know about the request about to be sent. */
export interface PendingRequest {
  /** The open turn and step; 0 and 0 for a manual compaction's summary request (between turns). */
  readonly turn: number;
  readonly step: number;
  /** Set for a compaction's summary request (logged in `request/price`; refusals say so). */
  readonly compactionId?: string;
  readonly provider: string;
  readonly model: string;
  readonly baseUrl?: string;
  readonly header: RequestHeader;
  readonly messages: readonly Message[];
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

export interface SpendGuardOptions {
  /** The price of a route at a time. */
  readonly quote: (route: { readonly provider: string; readonly baseUrl?: string; readonly model: string }, at: Date) => PriceQuote;
  /** Prices responses logged without a `request/price` (older history), see sessionCost. */
  readonly fallback?: (response: { readonly provider: string; readonly model: string; readonly time: number }) => PriceQuote;
  /** The limits in force, read before every request (a setting may change them). */
  readonly budget: () => Budget | undefined;
  readonly now?: () => number;
}

export { BudgetStop };

/** How a refusal names the request and what to do next: a step's request, or a compaction's summary request (between turns: `manual`). */
interface Subject {
  readonly compaction?: 'in-turn' | 'manual';
}

/** Checks a budget of `limit` against worst-case spend; an error message when it would be crossed. */
function crossing(limit: BudgetStopFacts['limit'], scope: BudgetStopFacts['scope'], budget: number | undefined, spent: number, worstCase: number, subject: Subject = {}): BudgetStopFacts | undefined {
  if (budget === undefined || spent + worstCase <= budget) return undefined;
  const show = (n: number) => (limit === 'usd' ? formatUsd(n) : `${Math.round(n)} tokens`);
  const flag = limit === 'tokens' ? '--max-tokens-total' : scope === 'turn' ? '--turn-budget' : '--budget';
  const what = subject.compaction ? "the compaction's summary request" : 'the next request';
  // A manual compaction is its own unit of work: a per-turn budget bounds it alone.
  const spentPart = subject.compaction === 'manual' && scope === 'turn' ? `the per-turn budget is ${show(budget)}` : `the ${scope} has spent ${show(spent)} of its ${show(budget)} budget`;
  const next = subject.compaction === 'manual' ? `compact again with a higher ${flag}` : `resume with a higher ${flag} to go on`;
  return { limit, scope, budget, spent, worstCase, message: `${what} could cost up to ${show(worstCase)} and ${spentPart}, so it was not sent; ${next}` };
}

export class SpendGuard {
  private readonly now: () => number;

  constructor(private readonly options: SpendGuardOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Logs the request's price and worst case, then checks the budget.
   * @throws BudgetStop when the request could cross a limit (nothing was sent).
   */
  beforeSend(session: Session, request: PendingRequest): void {
    const quote = this.options.quote({ provider: request.provider, model: request.model, ...(request.baseUrl !== undefined ? { baseUrl: request.baseUrl } : {}) }, new Date(this.now()));
    const estimatedInputTokens = estimateRequestTokens(request.header, request.messages);
    const outputCap = request.header.config.maxTokens ?? request.maxOutputTokens ?? (request.contextWindow !== undefined ? Math.max(0, request.contextWindow - estimatedInputTokens) : undefined);
    const worstCaseUsd = quote.kind === 'known' && outputCap !== undefined ? worstCaseCost(estimatedInputTokens, outputCap, quote) : undefined;
    // Spend so far, before this request's own price event.
    const budget = this.options.budget();
    const spend = budget !== undefined ? this.spent(session, request.turn) : undefined;
    session.append({
      type: 'request/price',
      data: {
        turn: request.turn,
        step: request.step,
        ...(request.compactionId !== undefined ? { compactionId: request.compactionId } : {}),
        provider: request.provider,
        model: request.model,
        ...(request.baseUrl !== undefined ? { baseUrl: request.baseUrl } : {}),
        quote,
        estimatedInputTokens,
        ...(outputCap !== undefined ? { outputCap } : {}),
        ...(worstCaseUsd !== undefined ? { worstCaseUsd } : {}),
      },
    });
    if (budget === undefined || spend === undefined) return;
    const usdLimited = budget.sessionUsd !== undefined || budget.turnUsd !== undefined;
    if (outputCap === undefined && (usdLimited || budget.sessionTokens !== undefined)) {
      throw new BudgetStop({
        limit: usdLimited ? 'usd' : 'tokens',
        scope: budget.sessionUsd !== undefined || !usdLimited ? 'session' : 'turn',
        budget: (usdLimited ? (budget.sessionUsd ?? budget.turnUsd) : budget.sessionTokens)!,
        spent: usdLimited ? (spend.sessionUsd ?? 0) : spend.sessionTokens,
        message: `the request has no known output cap, so its worst case is unbounded and a budget cannot be kept: pass --max-output N (or set the model's max output)`,
      });
    }
    const subject: Subject = request.compactionId === undefined ? {} : { compaction: request.turn === 0 ? 'manual' : 'in-turn' };
    const tokenStop = crossing('tokens', 'session', budget.sessionTokens, spend.sessionTokens, estimatedInputTokens + (outputCap ?? 0), subject);
    if (tokenStop) throw new BudgetStop(tokenStop);
    if (!usdLimited) return;
    if (worstCaseUsd === undefined || spend.sessionUsd === undefined || spend.turnUsd === undefined) {
      const what = quote.kind === 'unknown' ? `the price of ${request.model} is unknown (${quote.reason})` : 'part of what the session already spent has no known price';
      throw new BudgetStop({
        limit: 'usd',
        scope: budget.sessionUsd !== undefined ? 'session' : 'turn',
        budget: (budget.sessionUsd ?? budget.turnUsd)!,
        spent: spend.sessionUsd ?? spend.knownSessionUsd,
        ...(worstCaseUsd !== undefined ? { worstCase: worstCaseUsd } : {}),
        message: `${what}, so a USD budget cannot be kept: set a price for it (cli.json "prices" or Settings), or use a token budget (--max-tokens-total)`,
      });
    }
    const stop = crossing('usd', 'session', budget.sessionUsd, spend.sessionUsd, worstCaseUsd, subject) ?? crossing('usd', 'turn', budget.turnUsd, spend.turnUsd, worstCaseUsd, subject);
    if (stop) throw new BudgetStop(stop);
  }

  /**
   * What the session and turn `turn` spent so far (USD undefined when something is unpriced).
   * Turn 0 (a manual compaction between turns) is its own unit: it has spent nothing of a turn budget.
   */
  private spent(session: Session, turn: number): { sessionUsd: number | undefined; knownSessionUsd: number; turnUsd: number | undefined; sessionTokens: number } {
    const cost = sessionCost(session.events as readonly SessionEvent[], this.options.fallback ? { fallback: this.options.fallback } : {});
    const turnTotals = cost.turns.get(turn);
    return {
      sessionUsd: cost.total.usd,
      knownSessionUsd: cost.total.knownUsd,
      turnUsd: turn !== 0 && turnTotals ? turnTotals.usd : 0,
      sessionTokens: cost.total.tokens,
    };
  }
}
