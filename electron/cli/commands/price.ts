/**
 * `forkline price ID [--as MODEL,…] [--json]` (docs/providers.md "Prices, overrides and budgets"): what a recorded session cost — each
 * response's logged usage at the price logged for its request (`request/price`; history from
 * before prices were logged is priced with the bundled list at its own time) — and what the same
 * token counts would have cost on other models (cache reads priced as cache reads, reasoning as
 * reasoning), with the bundled list (`@pydantic/genai-prices` 0.1.8) and cli.json's overrides.
 */
import { ForklineError } from '../../../shared/errors.js';
import type { SessionEvent } from '../../../shared/events.js';
import { formatUsd } from '../../../shared/pricing.js';
import { costJson, sessionCost, type CostTotals, type SessionCost } from '../../../shared/session-cost.js';
import { visibleInline } from '../../../shared/visible-text.js';
import { namedModelQuote, type PriceBook } from '../../pricing/price-list.js';
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { cliPriceBook } from '../pricing-options.js';
import { openStoredSessions } from '../stored-sessions.js';

export interface PriceCommandInput {
  readonly sessionId: string;
  readonly title?: string;
  readonly events: readonly SessionEvent[];
  readonly book: PriceBook;
  /** The `--as` value: models separated by commas. */
  readonly as?: string;
  readonly json: boolean;
}

/**
 * The command's output (text or one JSON document).
 * @throws ForklineError UNKNOWN_MODEL_PRICE (exit 2) for an `--as` model with no known price,
 *   naming it; INVALID_BUDGET-style usage errors are the caller's.
 */
export function priceCommand(input: PriceCommandInput): string {
  const { book } = input;
  const recorded = sessionCost(input.events, { fallback: book.fallback });
  const specs = (input.as ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (input.as !== undefined && specs.length === 0) throw new ForklineError('UNKNOWN_MODEL_PRICE', '--as needs one or more models, e.g. --as openai:gpt-5,deepseek:deepseek-v4-pro');
  const alternatives = specs.map((spec) => {
    // Every model must be known at least at the session's start, or the figure would be partial.
    const probe = namedModelQuote(book, spec, new Date(input.events[0]?.time ?? Date.now()));
    if (probe.kind === 'unknown')
      throw new ForklineError('UNKNOWN_MODEL_PRICE', `--as ${spec}: no price known (${probe.reason}); name it as PROVIDER:MODEL (e.g. openai:gpt-5) or set a price in cli.json`);
    return { spec, cost: sessionCost(input.events, { as: (r) => namedModelQuote(book, spec, new Date(r.time)) }) };
  });
  if (input.json) {
    return `${JSON.stringify({
      session: input.sessionId,
      recorded: { ...costJson(recorded.total, recorded.snapshots), turns: turnsJson(recorded) },
      as: alternatives.map((a) => ({ model: a.spec, ...costJson(a.cost.total, a.cost.snapshots), turns: turnsJson(a.cost) })),
    })}\n`;
  }
  const lines: string[] = [];
  lines.push(`session ${visibleInline(input.sessionId)}${input.title ? ` — ${visibleInline(input.title)}` : ''}`);
  const current = recorded.responses.filter((r) => r.priceFrom === 'current').length;
  const note = current > 0 ? `; ${current} priced with today's list (no price was logged for them)` : '';
  lines.push(`recorded: ${totalText(recorded.total)} over ${count(recorded.responses.length, 'response')} (prices: ${recorded.snapshots.join(', ') || 'none'}${note})`);
  for (const [turn, t] of recorded.turns) lines.push(`  ${turn === 0 ? 'between turns' : `turn ${turn}`}: ${totalText(t)} · ${tokenText(t)}`);
  for (const a of alternatives) lines.push(`as ${visibleInline(a.spec)}: ${totalText(a.cost.total)}`);
  return `${lines.join('\n')}\n`;
}

function turnsJson(cost: SessionCost): unknown[] {
  return [...cost.turns].map(([turn, t]) => {
    const { priceSnapshots: _snapshots, ...figures } = costJson(t, []);
    return { turn, ...figures };
  });
}

/** `$0.012345`, or `$0.01 + price unknown for 2 responses`. */
export function totalText(t: CostTotals): string {
  if (t.usd !== undefined) return `${formatUsd(t.usd)}${t.unreportedCount > 0 ? ` (${count(t.unreportedCount, 'response')} without reported usage, counted at the worst case)` : ''}`;
  return t.knownUsd > 0 ? `${formatUsd(t.knownUsd)} + price unknown for ${count(t.unknownCount, 'response')}` : `price unknown (${count(t.unknownCount, 'response')})`;
}

/** `input 12000 tokens (8000 cached) · output 800 (200 reasoning)`. */
export function tokenText(t: CostTotals): string {
  const cached = t.cacheReadTokens > 0 ? ` (${t.cacheReadTokens} cached)` : '';
  const reasoning = t.reasoningTokens > 0 ? ` (${t.reasoningTokens} reasoning)` : '';
  return `input ${t.inputTokens} tokens${cached} · output ${t.outputTokens}${reasoning}`;
}

function count(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}

/** `forkline price ID [--as MODEL,…] [--json]`: reads only the store and the price list. */
export const command = defineCommand({
  options: { ...DATA_OPTIONS, as: { type: 'string' }, json: { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const [id] = positionals;
    if (!id) throw new UsageError('price needs a session id, e.g. forkline price ID --as openai:gpt-5');
    const book = cliPriceBook(dataDirOf(options));
    const runtime = openStoredSessions(dataDirOf(options));
    try {
      const loaded = runtime.repository.load(resolveSessionId(runtime, id));
      const as = options.as;
      const h = loaded.record.header;
      ctx.stdout.write(
        priceCommand({ sessionId: h.id, ...(h.title !== undefined ? { title: h.title } : {}), events: loaded.events, book, ...(as !== undefined ? { as } : {}), json: options.json === true }),
      );
      return 0;
    } finally {
      await runtime.close();
    }
  },
});
