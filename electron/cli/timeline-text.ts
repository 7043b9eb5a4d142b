/**
 * A session timeline as terminal text, for `forkline run` (live, streaming text deltas as they
 * arrive) and `forkline show` (replay of a stored log). Pure: events in, strings out.
 *
 * Every string taken from an event (model text, tool names, arguments and output, failure messages,
 * anything an imported file put there) goes through {@link visibleText} / {@link visibleInline}, so
 * control characters are shown, never obeyed (docs/security.md).
 *
 * Events are read as tolerantly as the UI reads them (`shared/event-read.ts`): an imported log may
 * hold older shapes (`turn/end {error}`, `assistant/message {content, provenance}`, `tool/result
 * {callId, content}`) or damaged payloads, and `show` must print a line for each, never throw.
 * Step durations come from the log's own clock or print as unknown, never negative
 * (`shared/span-clock.ts`).
 */
import { asObject, asString, assistantBlocks, joinText, readUsage, toolResultFacts, turnEndFacts, turnEndLabel, type TurnEndFacts } from '../../shared/event-read.js';
import type { SessionEvent, TurnEndReason } from '../../shared/events.js';
import { visibleInline, visibleText } from '../../shared/visible-text.js';
import { shorten } from '../../shared/text-cut.js';
import { SpanClock, type SpanMark } from '../../shared/span-clock.js';
import { formatUsd, totalInputTokens, usageCost, type PriceQuote } from '../../shared/pricing.js';
import { SessionCostFold, type BilledResponse, type QuoteFor } from '../../shared/session-cost.js';
import type { TokenUsage } from '../../shared/chunks.js';

export interface TimelineTextOptions {
  /** Live mode streams text deltas and skips the final message text (already printed). */
  readonly live: boolean;
  /** ANSI colours. */
  readonly color: boolean;
  /** Print the seq of each turn end (for `forkline fork --at SEQ`). */
  readonly seqs?: boolean;
  /** For a fork child: the seq of its own `session/end-seed` (= its seed length), printed as the fork point. */
  readonly forkSeq?: number;
  /** Prices a response logged without a `request/price` (older history); without it, its price shows as unknown. */
  readonly fallbackPrice?: QuoteFor;
}

const ANSI = { dim: '\x1b[2m', bold: '\x1b[1m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', reset: '\x1b[0m' };

/** Turns events into text, one call per event; keeps the little state that needs (step timing, streaming). */
export class TimelineText {
  private readonly clock = new SpanClock();
  private stepStart = new Map<string, SpanMark>();
  private streaming = false;
  private thinkingShown = false;
  private readonly callNames = new Map<string, string>();
  private readonly streamedCalls = new Set<string>();
  /** The price logged for the current request (`request/price`), with its turn and step. */
  private price: { readonly turn: number; readonly step: number; readonly quote: PriceQuote; readonly worstCaseUsd?: number } | undefined;
  /** The running turn's cost so far: the priced sum and how many responses have no known price. */
  private turnCost = { usd: 0, unknown: 0 };
  /**
   * The session's billed responses, folded as events are rendered: a compaction's summary is priced
   * by it (its own logged price, else the one logged latest for its route; shared/session-cost.ts).
   */
  private readonly cost: SessionCostFold;
  /** Set when an odd payload made the fold throw: compaction lines then print without a cost (rendering never throws). */
  private costBroken = false;

  constructor(private readonly options: TimelineTextOptions) {
    this.cost = new SessionCostFold(options.fallbackPrice ? { fallback: options.fallbackPrice } : {});
  }

  /** `[tokens: input 2670 (1340 cached) · output 120 (40 reasoning) · $0.000123]` for one response; adds it to the turn's cost. */
  private usageText(event: SessionEvent<'assistant/message'>, usage: ReturnType<typeof readUsage>): string {
    const d = event.data as Partial<SessionEvent<'assistant/message'>['data']>;
    const logged = this.price && this.price.turn === d.turn && this.price.step === d.step ? this.price : undefined;
    const source = asObject(asObject(d.message)?.['source']);
    const quote = logged?.quote ?? this.options.fallbackPrice?.({ provider: asString(source?.['provider']) ?? '', model: asString(source?.['model']) ?? '', time: event.time });
    if (!usage) {
      const worst = logged?.worstCaseUsd;
      if (worst !== undefined) this.turnCost.usd += worst;
      else this.turnCost.unknown++;
      return `[usage not reported${worst !== undefined ? ` · counted at its worst case ${formatUsd(worst)}` : ''}]`;
    }
    let cost = ' · price unknown';
    if (quote?.kind === 'known') {
      const usd = usageCost(usage, quote).usd;
      this.turnCost.usd += usd;
      cost = ` · ${formatUsd(usd)}`;
    } else this.turnCost.unknown++;
    return `[${tokensText(usage)}${cost}]`;
  }

  /**
   * ` · tokens: input 3000 (1000 cached) · output 200 · $0.006100` for a compaction's billed summary
   * (the same words as a step's; `price unknown`, or the worst case when no usage was reported); adds it to the turn's cost.
   */
  private compactionCostText(billed: BilledResponse | undefined): string {
    if (!billed) return '';
    if (billed.status === 'usage-not-reported') {
      if (billed.usd !== undefined) this.turnCost.usd += billed.usd;
      else this.turnCost.unknown++;
      return ` · usage not reported${billed.usd !== undefined ? ` · counted at its worst case ${formatUsd(billed.usd)}` : ''}`;
    }
    if (!billed.usage) return '';
    if (billed.status === 'priced' && billed.usd !== undefined) this.turnCost.usd += billed.usd;
    else this.turnCost.unknown++;
    return ` · ${tokensText(billed.usage)} · ${billed.status === 'priced' ? formatUsd(billed.usd) : 'price unknown'}`;
  }

  /** ` · cost $0.0012` for the turn that ends ('' when it billed nothing). */
  private turnCostText(): string {
    const { usd, unknown } = this.turnCost;
    if (usd === 0 && unknown === 0) return '';
    return ` · cost ${unknown > 0 ? (usd > 0 ? `${formatUsd(usd)} + price unknown` : 'price unknown') : formatUsd(usd)}`;
  }

  private c(code: keyof typeof ANSI, text: string): string {
    return this.options.color ? `${ANSI[code]}${text}${ANSI.reset}` : text;
  }

  /**
   * Text printed between events (a prompt, live tool output, a notice): starts on a fresh line when
   * an answer is mid-stream, so nothing lands inside a sentence.
   */
  interject(text: string): string {
    const prefix = this.streaming ? '\n' : '';
    // Text that does not end its line leaves the cursor mid-line: the next event starts a new one.
    this.streaming = text !== '' && !text.endsWith('\n');
    return prefix + text;
  }

  dim(text: string): string {
    return this.c('dim', text);
  }

  /** Notes that a call's output was already printed live (its result then prints only its status). */
  markStreamed(callId: string): void {
    this.streamedCalls.add(callId);
  }

  /** The text to print for `event` ('' for events not shown). Never throws on odd payloads. */
  render(event: SessionEvent): string {
    this.clock.tick(event.time);
    if (!this.costBroken) {
      try {
        this.cost.add(event);
      } catch {
        this.costBroken = true;
      }
    }
    const breakStream = () => {
      if (!this.streaming) return '';
      this.streaming = false;
      return '\n';
    };
    const d = asObject(event.data) ?? {};
    const num = (key: string): string => (typeof d[key] === 'number' ? String(d[key]) : '?');
    switch (event.type) {
      case 'turn/start':
        this.turnCost = { usd: 0, unknown: 0 };
        return `${breakStream()}${this.c('bold', `━━ Turn ${num('turn')} ━━`)}\n`;
      case 'turn/end':
        return `${breakStream()}${this.c('bold', `━━ Turn ${num('turn')} ended: ${describeFacts(turnEndFacts(d))}${this.turnCostText()}`)}${this.options.seqs ? this.c('dim', `  [seq ${event.seq}]`) : ''}\n`;
      case 'step/start':
        this.stepStart.set(`${num('turn')}/${num('step')}`, this.clock.mark(event.time));
        this.thinkingShown = false;
        return `${breakStream()}${this.c('dim', `── step ${num('step')}`)}\n`;
      case 'step/end': {
        const started = this.stepStart.get(`${num('turn')}/${num('step')}`);
        const ms = started === undefined ? undefined : this.clock.since(started, event.time);
        const took = started === undefined ? '' : ms === undefined ? " (duration unknown: the log's clock does not run forward here)" : ` in ${(ms / 1000).toFixed(1)} s`;
        return `${breakStream()}${this.c('dim', `── step ${num('step')} done${took}`)}\n`;
      }
      case 'user/message': {
        const kind = asString(asObject(d['source'])?.['kind']) ?? 'user';
        if (kind === 'compaction') return `${breakStream()}${this.c('dim', '[compaction summary replaces earlier history]')}\n`;
        const label = kind === 'user' ? '>' : `> (${visibleInline(String(kind))})`;
        return `${breakStream()}${this.c('cyan', `${label} ${visibleText(joinText(d['content']))}`)}\n`;
      }
      case 'assistant/chunk': {
        if (!this.options.live) return '';
        const { chunk } = event.data;
        if (chunk.type === 'text-delta') {
          this.streaming = true;
          return visibleText(chunk.text);
        }
        if (chunk.type === 'reasoning-delta' && !this.thinkingShown) {
          this.thinkingShown = true;
          return this.c('dim', '(thinking…)\n');
        }
        return '';
      }
      case 'assistant/message': {
        const parts: string[] = [breakStream()];
        const usage = readUsage(d['usage']);
        for (const block of assistantBlocks(d)) {
          if (block.type === 'reasoning' && !this.options.live) parts.push(this.c('dim', `(thinking) ${visibleInline(firstLine(block.text, 160))}\n`));
          if (block.type === 'text' && !this.options.live) parts.push(`${visibleText(block.text)}\n`);
          if (block.type === 'tool-call' && block.id !== undefined) this.callNames.set(block.id, block.name ?? '');
        }
        if (d['interrupted'] === true) parts.push(this.c('yellow', '[answer interrupted]\n'));
        parts.push(this.c('dim', `${this.usageText(event as SessionEvent<'assistant/message'>, usage)}\n`));
        return parts.join('');
      }
      case 'request/price':
        this.price = { turn: event.data.turn, step: event.data.step, quote: event.data.quote, ...(event.data.worstCaseUsd !== undefined ? { worstCaseUsd: event.data.worstCaseUsd } : {}) };
        return '';
      case 'tool/call':
        return `${breakStream()}${this.c('yellow', `→ ${visibleInline(asString(d['name']) ?? '(unknown tool)')} ${visibleInline(summarizeArguments(asString(d['arguments']) ?? ''))}`)}\n`;
      case 'tool/result': {
        const facts = toolResultFacts(d);
        const code = facts.errorCode;
        const text = visibleText(facts.text);
        const head = facts.isError ? this.c('red', `← error${code ? ` ${visibleInline(String(code))}` : ''}`) : this.c('green', '← ok');
        const body = this.streamedCalls.has(facts.callId ?? '')
          ? lastLines(text, 1)
          : facts.isError
            ? headAndTail(text, 4, 6) // an error's cause is usually at the top, its exit code at the bottom
            : lastLines(text, this.options.live ? 6 : 12);
        return `${breakStream()}${head} ${indent(body)}\n`;
      }
      case 'llm/retry': {
        const failure = asObject(d['failure']);
        return `${breakStream()}${this.c('yellow', `↻ retry ${num('attempt')} in ${num('delayMs')} ms (${visibleInline(`${asString(failure?.['code']) ?? 'UNKNOWN'}: ${asString(failure?.['message']) ?? ''}`)})`)}\n`;
      }
      case 'llm/warning':
        return `${breakStream()}${this.c('yellow', `⚠ ${visibleInline(`${event.data.code}: ${event.data.message}`)}`)}\n${event.data.hint ? `${this.c('yellow', `  what to do: ${visibleInline(event.data.hint)}`)}\n` : ''}`;
      case 'approval/asked': {
        const reason = asString(d['reason']);
        return `${breakStream()}${this.c('yellow', `? approval needed for ${visibleInline(asString(d['toolName']) ?? '(unknown tool)')}${reason ? ` (${visibleInline(reason)})` : ''}`)}\n`;
      }
      case 'approval/decided':
        return `${breakStream()}${this.c('dim', `  approval: ${visibleInline(asString(d['outcome']) ?? '?')}`)}\n`;
      case 'session/end-seed':
        return `${breakStream()}${this.c('dim', event.seq === this.options.forkSeq ? "··· forked here (the history above is the parent's) ···" : '··· resumed here ···')}\n`;
      case 'session/takeover': {
        const { previous, reason } = event.data;
        const why =
          reason === 'forced' ? 'taken over from a running Forkline' : reason === 'pid-reused' ? 'its previous owner is gone (its pid now names another process)' : 'its previous owner is gone';
        return `${breakStream()}${this.c('dim', `··· ${why}: pid ${previous.pid}${previous.host ? ` on ${visibleInline(previous.host)}` : ''} ···`)}\n`;
      }
      case 'instructions/loaded': {
        const files = event.data.files.map((f) => visibleInline(f.shownPath)).join(', ');
        const where = event.data.placement === 'tool-result' ? ' (added to the tool result)' : '';
        return `${breakStream()}${this.c('dim', files === '' ? '[project instructions: none in force]' : `[project instructions: ${files}${where}]`)}\n`;
      }
      case 'compaction/summary': {
        const billed = this.costBroken ? undefined : this.cost.responses.findLast((r) => r.kind === 'compaction' && r.seq === event.seq);
        return `${breakStream()}${this.c('dim', `[compacted ${Array.isArray(d['shadowedSeqs']) ? d['shadowedSeqs'].length : '?'} messages${this.compactionCostText(billed)}]`)}\n`;
      }
      case 'import/foreign':
        // Raw records of an imported log are log-only; only those that changed what its model saw are worth a line.
        return this.options.live || d['modelVisible'] !== true
          ? ''
          : `${breakStream()}${this.c('yellow', `! ${visibleInline(asString(d['format']) ?? 'imported')} ${visibleInline(asString(d['type']) ?? 'record')}: changed what the model saw; kept as a raw record, not replayed`)}\n`;
      default:
        return '';
    }
  }
}

/** Human words for a turn end read loosely (any stored shape). */
export function describeFacts(facts: TurnEndFacts): string {
  switch (facts.kind) {
    case 'completed':
    case 'max-tokens':
    case 'blocked':
    case 'interrupted':
    case 'source-ended':
      return describeReason({ kind: facts.kind });
    case 'aborted':
      return describeReason({ kind: 'aborted', cause: facts.cause ?? { kind: 'legacy' } });
    case 'error':
      return describeReason({ kind: 'error', failure: facts.failure ?? { code: 'UNKNOWN', message: '' } });
    case 'budget':
      return visibleInline(`budget: ${facts.message ?? ''}`);
    default:
      return visibleInline(turnEndLabel(facts));
  }
}

/** Human words for a turn-end reason (failure text from a server or a file made visible). */
export function describeReason(reason: TurnEndReason): string {
  return visibleInline(reasonWords(reason));
}

function reasonWords(reason: TurnEndReason): string {
  switch (reason.kind) {
    case 'completed':
      return 'completed';
    case 'max-tokens':
      return 'stopped at the output token limit';
    case 'blocked':
      return 'blocked';
    case 'interrupted':
      return 'interrupted (the app closed or crashed during the turn)';
    case 'source-ended':
      return 'the source log ends inside this turn (the imported file stops here)';
    case 'aborted':
      return reason.cause.kind === 'signal' ? `cancelled (${reason.cause.signal})` : reason.cause.kind === 'hook' ? `cancelled (${reason.cause.reason})` : `cancelled (${reason.cause.kind})`;
    case 'error':
      return `error ${reason.failure.code}: ${reason.failure.message}`;
    case 'budget':
      return `budget: ${reason.message}`;
  }
}

/** `tokens: input 2670 (1340 cached) · output 120 (40 reasoning)`: total input with its cached part, output with its reasoning part. */
function tokensText(usage: TokenUsage): string {
  const cached = usage.cacheReadTokens ? ` (${usage.cacheReadTokens} cached)` : '';
  const reasoning = usage.reasoningTokens ? ` (${usage.reasoningTokens} reasoning)` : '';
  return `tokens: input ${totalInputTokens(usage)}${cached} · output ${usage.outputTokens}${reasoning}`;
}

function summarizeArguments(raw: string): string {
  try {
    const args = JSON.parse(raw) as Record<string, unknown>;
    const key = ['command', 'path', 'pattern'].find((k) => typeof args[k] === 'string');
    if (key) return firstLine(String(args[key]), 120);
  } catch {
    // Shown raw below.
  }
  return firstLine(raw, 120);
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n')[0] ?? '';
  return shorten(line, max);
}

function lastLines(text: string, n: number): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= n) return lines.join('\n');
  const more = lines.length - n;
  return [`… (${more} more line${more === 1 ? '' : 's'})`, ...lines.slice(-n)].join('\n');
}

function headAndTail(text: string, head: number, tail: number): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= head + tail + 1) return lines.join('\n');
  const more = lines.length - head - tail;
  return [...lines.slice(0, head), `… (${more} more line${more === 1 ? '' : 's'})`, ...lines.slice(-tail)].join('\n');
}

function indent(text: string): string {
  return text.split('\n').join('\n    ');
}
